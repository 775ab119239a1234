--[[
  Moves dead letters back to the waiting set, oldest first, each at its original place
  and with its id, attempts reset. One call moves a bounded batch atomically.

  Input:
    KEYS[1] dead-letter set, KEYS[2] waiting set, KEYS[3] data hash, KEYS[4] counters hash
    ARGV[1] how many dead letters at most
    ARGV[2] only those whose payload or last error contains this text ("" for all)
    ARGV[3] cursor for a filtered scan: the last dead-letter score scanned ("" to start)

  Output:
    { moved, cursor }   cursor "" when a filtered scan reached the end (always "" unfiltered)
]]
local count = tonumber(ARGV[1])
local moved = 0
local cursor = ""
if ARGV[2] == "" then
  local popped = redis.call("ZPOPMIN", KEYS[1], count)
  if #popped == 0 then
    return { 0, "" }
  end
  local ids, fields = {}, {}
  for i = 1, #popped, 2 do
    ids[#ids + 1] = popped[i]
    fields[#fields + 1] = "s:" .. popped[i]
  end
  local scores = redis.call("HMGET", KEYS[3], unpack(fields))
  local members, resets = {}, {}
  for i, id in ipairs(ids) do
    members[#members + 1] = scores[i]
    members[#members + 1] = id
    resets[#resets + 1] = "a:" .. id
    resets[#resets + 1] = 0
  end
  redis.call("ZADD", KEYS[2], unpack(members))
  redis.call("HSET", KEYS[3], unpack(resets))
  moved = #ids
else
  local from = ARGV[3] == "" and "-inf" or ("(" .. ARGV[3])
  local batch = redis.call("ZRANGEBYSCORE", KEYS[1], from, "+inf", "WITHSCORES", "LIMIT", 0, count)
  for i = 1, #batch, 2 do
    local id = batch[i]
    local payload = redis.call("HGET", KEYS[3], "p:" .. id) or ""
    local meta = redis.call("HGET", KEYS[3], "m:" .. id) or ""
    if string.find(payload, ARGV[2], 1, true) or string.find(meta, ARGV[2], 1, true) then
      redis.call("ZREM", KEYS[1], id)
      redis.call("ZADD", KEYS[2], redis.call("HGET", KEYS[3], "s:" .. id), id)
      redis.call("HSET", KEYS[3], "a:" .. id, 0)
      moved = moved + 1
    end
  end
  if #batch / 2 == count then
    cursor = batch[#batch]
  end
end
if moved > 0 then
  redis.call("HINCRBY", KEYS[4], "redriven", moved)
end
return { moved, cursor }
