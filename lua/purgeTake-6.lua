--[[
  Starts a purge: takes everything the chosen sets hold, at one instant, out of line into
  their purging sets (RENAME: constant time however large the set), where the purge script
  then deletes them batch by batch. Messages enqueued, failed or reaped afterwards land in
  the emptied sets and are kept.

  Input:
    KEYS[1] waiting set       KEYS[2] its purging set
    KEYS[3] delayed set       KEYS[4] its purging set
    KEYS[5] dead-letter set   KEYS[6] its purging set
    ARGV    the sets to take: any of "wait", "delayed", "dead"

  Output:
    the number of messages taken
    -1  a set holds a value of another type (nothing taken)
    -5  a purging set is not empty: an earlier purge is still deleting (nothing taken)
]]
--- @include "includes/checkKeyTypes"

local pairOf = { wait = 1, delayed = 3, dead = 5 }
local chosen = {}
for _, name in ipairs(ARGV) do
  local at = pairOf[name]
  if at == nil then
    return redis.error_reply("unknown set " .. name)
  end
  if not checkKeyTypes({ KEYS[at] }, { "zset" }) then
    return -1
  end
  if redis.call("EXISTS", KEYS[at + 1]) == 1 then
    return -5
  end
  chosen[#chosen + 1] = at
end
local taken = 0
for _, at in ipairs(chosen) do
  local size = redis.call("ZCARD", KEYS[at])
  if size > 0 then
    redis.call("RENAME", KEYS[at], KEYS[at + 1])
    taken = taken + size
  end
end
return taken
