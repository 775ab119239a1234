--[[
  A queue's figures in one consistent read: set sizes, counters, the depth of each
  priority band, and the arrival time of the oldest waiting message.

  Input:
    KEYS[1] waiting set, KEYS[2] delayed set, KEYS[3] active set, KEYS[4] dead-letter set,
    KEYS[5] data hash, KEYS[6] counters hash,
    KEYS[7] purging waiting set, KEYS[8] purging delayed set, KEYS[9] purging dead-letter set
    ARGV[1] how many priority bands to report at most

  Output:
    { waiting, delayed, active, dead, countersFlatList, bandsFlatList, oldestEnqueuedAt, oldestDeadAt,
      purging, purgingDead }
    purging: messages a purge took out of line and has not deleted yet (an interrupted purge
    leaves some; the next purge deletes them first)
    bandsFlatList: priority, depth, ...; oldest times are unix ms or false
]]
--- @include "includes/waitScore"

local bands = {}
local oldest = false
local from = "-inf"
for _ = 1, tonumber(ARGV[1]) do
  local head = redis.call("ZRANGEBYSCORE", KEYS[1], from, "+inf", "WITHSCORES", "LIMIT", 0, 1)
  if #head == 0 then
    break
  end
  local priority = priorityOfScore(tonumber(head[2]))
  local bandEnd = waitScore(priority + 1, 0)
  bands[#bands + 1] = priority
  bands[#bands + 1] = redis.call("ZCOUNT", KEYS[1], scoreString(waitScore(priority, 0)), "(" .. scoreString(bandEnd))
  -- Within a band the head is the oldest: equal priorities are served in arrival order.
  local meta = redis.call("HGET", KEYS[5], "m:" .. head[1])
  if meta then
    local enqueuedAt = cjson.decode(meta).enqueuedAt
    if enqueuedAt and (not oldest or enqueuedAt < oldest) then
      oldest = enqueuedAt
    end
  end
  from = scoreString(bandEnd)
end
local oldestDead = false
local firstDead = redis.call("ZRANGE", KEYS[4], 0, 0)
if #firstDead > 0 then
  local meta = redis.call("HGET", KEYS[5], "m:" .. firstDead[1])
  if meta then
    oldestDead = cjson.decode(meta).deadLetteredAt or false
  end
end
return {
  redis.call("ZCARD", KEYS[1]),
  redis.call("ZCARD", KEYS[2]),
  redis.call("ZCARD", KEYS[3]),
  redis.call("ZCARD", KEYS[4]),
  redis.call("HGETALL", KEYS[6]),
  bands,
  oldest,
  oldestDead,
  redis.call("ZCARD", KEYS[7]) + redis.call("ZCARD", KEYS[8]),
  redis.call("ZCARD", KEYS[9]),
}
