--[[
  Acknowledges processed messages: each leaves the active set and its data is deleted.
  A consumer acks what finished since its last call in one call.

  Input:
    KEYS[1] active set, KEYS[2] data hash, KEYS[3] counters hash
    ARGV[1..] message ids (at most 1000)

  Output:
    a list with, per id, 1 when acknowledged or 0 when it was no longer in the active set
    (its visibility expired and it was requeued, or an unknown id)
]]
local count = math.min(#ARGV, 1000)
local ids = { unpack(ARGV, 1, count) }
local scores = redis.call("ZMSCORE", KEYS[1], unpack(ids))
local results, active, fields, seen = {}, {}, {}, {}
for i, id in ipairs(ids) do
  if scores[i] and not seen[id] then
    seen[id] = true
    results[i] = 1
    active[#active + 1] = id
    fields[#fields + 1] = "p:" .. id
    fields[#fields + 1] = "m:" .. id
    fields[#fields + 1] = "s:" .. id
    fields[#fields + 1] = "a:" .. id
  else
    results[i] = 0
  end
end
if #active > 0 then
  redis.call("ZREM", KEYS[1], unpack(active))
  redis.call("HDEL", KEYS[2], unpack(fields))
  redis.call("HINCRBY", KEYS[3], "acked", #active)
end
return results
