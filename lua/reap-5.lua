--[[
  Returns messages whose visibility deadline passed (their consumer died or hung) to the
  waiting set at their original place, or dead-letters them after ARGV[2] attempts.

  Input:
    KEYS[1] active set, KEYS[2] waiting set, KEYS[3] dead-letter set, KEYS[4] data hash,
    KEYS[5] counters hash
    ARGV[1] now, unix ms
    ARGV[2] attempts allowed
    ARGV[3] how many messages at most

  Output:
    { requeued, deadLettered }
]]
local now = tonumber(ARGV[1])
local expired = redis.call("ZRANGEBYSCORE", KEYS[1], "-inf", now, "LIMIT", 0, tonumber(ARGV[3]))
local requeued, dead = 0, 0
for _, id in ipairs(expired) do
  redis.call("ZREM", KEYS[1], id)
  local attempts = tonumber(redis.call("HGET", KEYS[4], "a:" .. id) or "0")
  if attempts >= tonumber(ARGV[2]) then
    local meta = cjson.decode(redis.call("HGET", KEYS[4], "m:" .. id) or "{}")
    meta.lastError = "visibility timeout expired (consumer died or hung) on attempt " .. attempts
    meta.firstFailedAt = meta.firstFailedAt or now
    meta.lastFailedAt = now
    meta.deadLetteredAt = now
    redis.call("HSET", KEYS[4], "m:" .. id, cjson.encode(meta))
    redis.call("ZADD", KEYS[3], redis.call("HINCRBY", KEYS[5], "deadLettered", 1), id)
    dead = dead + 1
  else
    redis.call("ZADD", KEYS[2], redis.call("HGET", KEYS[4], "s:" .. id), id)
    requeued = requeued + 1
  end
end
if requeued + dead > 0 then
  redis.call("HINCRBY", KEYS[5], "reaped", requeued + dead)
end
return { requeued, dead }
