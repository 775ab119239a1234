--[[
  Changes one message's priority. Waiting, it moves to its new place at once (keeping its
  arrival order within the new priority); delayed, it takes the new place when due.

  Input:
    KEYS[1] waiting set, KEYS[2] delayed set, KEYS[3] active set, KEYS[4] data hash
    ARGV[1] message id
    ARGV[2] new priority, 0 to 1023

  Output:
    1   changed
    -1  no such message in the queue
    -2  the message is being processed (in the active set): nothing to reorder
    -3  priority out of range
]]
--- @include "includes/waitScore"

local priority = tonumber(ARGV[2])
if priority == nil or priority < 0 or priority > 1023 or priority % 1 ~= 0 then
  return -3
end
local id = ARGV[1]
local score = redis.call("HGET", KEYS[4], "s:" .. id)
if not score then
  return -1
end
if redis.call("ZSCORE", KEYS[3], id) then
  return -2
end
local sequence = tonumber(score) % SEQUENCE_SPAN
local newScore = scoreString(waitScore(priority, sequence))
redis.call("HSET", KEYS[4], "s:" .. id, newScore)
if redis.call("ZSCORE", KEYS[1], id) then
  redis.call("ZADD", KEYS[1], newScore, id)
end
return 1
