--[[
  Records a failed attempt: the message is retried after a backoff, or, once it has had
  ARGV[4] attempts, moved to the dead-letter set with its last error.

  Input:
    KEYS[1] active set, KEYS[2] delayed set, KEYS[3] dead-letter set, KEYS[4] data hash,
    KEYS[5] counters hash
    ARGV[1] message id
    ARGV[2] error message (kept as the last error)
    ARGV[3] now, unix ms
    ARGV[4] attempts allowed
    ARGV[5] retry time, unix ms (backoff with jitter, computed by the caller)
  The dead-letter set is scored by the deadLettered counter: the order of death.

  Output:
    1   scheduled for retry
    2   dead-lettered
    -1  not in the active set
]]
if redis.call("ZREM", KEYS[1], ARGV[1]) == 0 then
  return -1
end
local id = ARGV[1]
local now = tonumber(ARGV[3])
local meta = cjson.decode(redis.call("HGET", KEYS[4], "m:" .. id) or "{}")
meta.lastError = string.sub(ARGV[2], 1, 2000)
meta.firstFailedAt = meta.firstFailedAt or now
meta.lastFailedAt = now
local attempts = tonumber(redis.call("HGET", KEYS[4], "a:" .. id) or "0")
redis.call("HINCRBY", KEYS[5], "failed", 1)
if attempts >= tonumber(ARGV[4]) then
  meta.deadLetteredAt = now
  redis.call("HSET", KEYS[4], "m:" .. id, cjson.encode(meta))
  -- Dead letters are scored by the order they died in (the counter), not the time: many
  -- die within one millisecond, and equal scores would sort by id as text.
  redis.call("ZADD", KEYS[3], redis.call("HINCRBY", KEYS[5], "deadLettered", 1), id)
  return 2
end
redis.call("HSET", KEYS[4], "m:" .. id, cjson.encode(meta))
redis.call("ZADD", KEYS[2], ARGV[5], id)
return 1
