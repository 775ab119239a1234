--[[
  Reads messages of one set of a queue in order, without changing anything.

  Input:
    KEYS[1] the set (waiting, delayed, active or dead-letter), KEYS[2] data hash
    ARGV[1] first rank (0 is first in line)
    ARGV[2] how many at most (bounded by the caller)

  Output:
    a flat list: id, set score, payload, metadata JSON, attempts, waiting score, ... per message
    (the set score is the waiting score, the due time, the visibility deadline, or for dead
    letters the order in which they died)
]]
local start = tonumber(ARGV[1])
local entries = redis.call("ZRANGE", KEYS[1], start, start + tonumber(ARGV[2]) - 1, "WITHSCORES")
local out = {}
for i = 1, #entries, 2 do
  local id = entries[i]
  local data = redis.call("HMGET", KEYS[2], "p:" .. id, "m:" .. id, "a:" .. id, "s:" .. id)
  out[#out + 1] = id
  out[#out + 1] = entries[i + 1]
  out[#out + 1] = data[1] or false
  out[#out + 1] = data[2] or false
  out[#out + 1] = data[3] or false
  out[#out + 1] = data[4] or false
end
return out
