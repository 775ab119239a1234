--[[
  Adds up to 1000 messages to a Varal priority queue in one atomic call: for producers
  with bursts, one round trip and one script call for the lot. All are checked before any
  is added, so a bad one adds none.

  Input:
    KEYS[1] waiting set, KEYS[2] delayed set, KEYS[3] data hash, KEYS[4] counters hash,
    KEYS[5] active set (type check only)
    ARGV[1] now, unix ms
    ARGV[2] largest payload in bytes
    ARGV[3..] per message: payload, priority, delay in ms

  Output:
    the list of ids, in order
    -1  a queue key holds a value of another type
    -3  a priority out of range
    -4  a payload larger than ARGV[2]
    -5  more than 1000 messages, or an incomplete triple
]]
--- @include "includes/waitScore"
--- @include "includes/validPriority"
--- @include "includes/checkKeyTypes"
--- @include "includes/addMessage"

local count = (#ARGV - 2) / 3
if count % 1 ~= 0 or count > 1000 then
  return -5
end
local maxBytes = tonumber(ARGV[2])
for i = 0, count - 1 do
  if validPriority(ARGV[4 + i * 3]) == nil then
    return -3
  end
  if #ARGV[3 + i * 3] > maxBytes then
    return -4
  end
end
if not checkKeyTypes({ KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5] }, { "zset", "zset", "hash", "hash", "zset" }) then
  return -1
end
local now = tonumber(ARGV[1])
local ids = {}
for i = 0, count - 1 do
  ids[#ids + 1] = addMessage(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[3 + i * 3], tonumber(ARGV[4 + i * 3]), tonumber(ARGV[5 + i * 3]), now, {})
end
return ids
