--[[
  Takes up to ARGV[3] messages, first priority first, into the active set with a
  visibility deadline: a consumer that dies leaves them there for the reaper, never lost.

  Input:
    KEYS[1] waiting set, KEYS[2] delayed set, KEYS[3] active set, KEYS[4] data hash,
    KEYS[5] counters hash
    ARGV[1] now, unix ms
    ARGV[2] visibility in ms
    ARGV[3] how many messages at most
    ARGV[4] how many due delayed messages to promote at most first

  Output:
    a flat list: id, payload, attempts (including this one), waiting score, ... per message
]]
--- @include "includes/waitScore"
--- @include "includes/promoteDue"

local now = tonumber(ARGV[1])
promoteDue(KEYS[2], KEYS[1], KEYS[4], now, tonumber(ARGV[4]))
local popped = redis.call("ZPOPMIN", KEYS[1], tonumber(ARGV[3]))
local deadline = scoreString(now + tonumber(ARGV[2]))
local out = {}
for i = 1, #popped, 2 do
  local id = popped[i]
  redis.call("ZADD", KEYS[3], deadline, id)
  local attempts = redis.call("HINCRBY", KEYS[4], "a:" .. id, 1)
  out[#out + 1] = id
  out[#out + 1] = redis.call("HGET", KEYS[4], "p:" .. id)
  out[#out + 1] = attempts
  out[#out + 1] = popped[i + 1]
end
if #out > 0 then
  redis.call("HINCRBY", KEYS[5], "dequeued", #out / 4)
end
return out
