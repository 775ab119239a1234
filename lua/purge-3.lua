--[[
  Deletes up to ARGV[1] of the messages a purge took out of line (purgeTake), first in line
  first, with their data. A huge purge is many such calls, so that Redis never blocks on
  one long command.

  Input:
    KEYS[1] a purging set, KEYS[2] data hash, KEYS[3] counters hash
    ARGV[1] how many messages at most

  Output:
    the number of messages deleted
]]
local popped = redis.call("ZPOPMIN", KEYS[1], tonumber(ARGV[1]))
if #popped == 0 then
  return 0
end
local fields = {}
for i = 1, #popped, 2 do
  local id = popped[i]
  fields[#fields + 1] = "p:" .. id
  fields[#fields + 1] = "m:" .. id
  fields[#fields + 1] = "s:" .. id
  fields[#fields + 1] = "a:" .. id
end
redis.call("HDEL", KEYS[2], unpack(fields))
redis.call("HINCRBY", KEYS[3], "purged", #popped / 2)
return #popped / 2
