-- Stores one new message and puts it in line (or in the delayed set). The enqueued counter
-- doubles as the arrival sequence and the id. Returns the id.
local function addMessage(waitKey, delayedKey, dataKey, statsKey, payload, priority, delay, now, meta)
  local sequence = redis.call("HINCRBY", statsKey, "enqueued", 1)
  local id = tostring(sequence)
  local score = scoreString(waitScore(priority, sequence))
  meta.enqueuedAt = now
  redis.call("HSET", dataKey, "p:" .. id, payload, "m:" .. id, cjson.encode(meta), "s:" .. id, score)
  if delay > 0 then
    redis.call("ZADD", delayedKey, scoreString(now + delay), id)
  else
    redis.call("ZADD", waitKey, score, id)
  end
  return id
end
