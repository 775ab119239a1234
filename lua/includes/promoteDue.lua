-- Moves up to `limit` delayed messages whose time has come into the waiting set.
local function promoteDue(delayedKey, waitKey, dataKey, now, limit)
  local due = redis.call("ZRANGEBYSCORE", delayedKey, "-inf", now, "LIMIT", 0, limit)
  for _, id in ipairs(due) do
    redis.call("ZREM", delayedKey, id)
    redis.call("ZADD", waitKey, redis.call("HGET", dataKey, "s:" .. id), id)
  end
  return #due
end
