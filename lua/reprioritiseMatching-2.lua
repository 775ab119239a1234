--[[
  Changes the priority of waiting messages that match a filter, scanning at most ARGV[2]
  of them per call; the caller repeats with the returned cursor until it is "".

  Input:
    KEYS[1] waiting set, KEYS[2] data hash
    ARGV[1] cursor: the last score scanned ("" to start)
    ARGV[2] how many waiting messages to scan at most
    ARGV[3] new priority, 0 to 1023
    ARGV[4] only messages of this priority ("" for any)
    ARGV[5] only messages whose payload contains this text ("" for any)

  Output:
    { cursor, changed, scanned }   cursor "" when the scan reached the end
    -3  priority out of range
]]
--- @include "includes/waitScore"

local priority = tonumber(ARGV[3])
if priority == nil or priority < 0 or priority > 1023 or priority % 1 ~= 0 then
  return -3
end
local from = ARGV[1] == "" and "-inf" or ("(" .. ARGV[1])
local batch = redis.call("ZRANGEBYSCORE", KEYS[1], from, "+inf", "WITHSCORES", "LIMIT", 0, tonumber(ARGV[2]))
local onlyPriority = tonumber(ARGV[4])
local changed = 0
for i = 1, #batch, 2 do
  local id, score = batch[i], tonumber(batch[i + 1])
  local current = priorityOfScore(score)
  local matches = current ~= priority and (onlyPriority == nil or current == onlyPriority)
  if matches and ARGV[5] ~= "" then
    matches = string.find(redis.call("HGET", KEYS[2], "p:" .. id) or "", ARGV[5], 1, true) ~= nil
  end
  if matches then
    local newScore = scoreString(waitScore(priority, score % SEQUENCE_SPAN))
    redis.call("HSET", KEYS[2], "s:" .. id, newScore)
    redis.call("ZADD", KEYS[1], newScore, id)
    changed = changed + 1
  end
end
local scanned = #batch / 2
local cursor = ""
if scanned == tonumber(ARGV[2]) then
  cursor = batch[#batch]
end
return { cursor, changed, scanned }
