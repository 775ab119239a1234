--[[
  Takes up to ARGV[3] messages, first priority first, into the active set with a
  visibility deadline: a consumer that dies leaves them there for the reaper, never lost.

  Input:
    KEYS[1] waiting set, KEYS[2] delayed set, KEYS[3] active set, KEYS[4] data hash,
    KEYS[5] counters hash
    ARGV[1] now, unix ms
    ARGV[2] visibility in ms
    ARGV[3] how many messages at most
    ARGV[4] how many due delayed messages to promote at most first

  Output:
    a flat list: id, payload, attempts (including this one), waiting score, ... per message
]]
--- @include "includes/waitScore"
--- @include "includes/promoteDue"

local now = tonumber(ARGV[1])
promoteDue(KEYS[2], KEYS[1], KEYS[4], now, tonumber(ARGV[4]))
local popped = redis.call("ZPOPMIN", KEYS[1], tonumber(ARGV[3]))
if #popped == 0 then
  return {}
end
local deadline = scoreString(now + tonumber(ARGV[2]))
-- One HMGET for every payload and attempt count, one HSET for the new counts: two calls
-- for the batch rather than one per message.
local members, fields = {}, {}
for i = 1, #popped, 2 do
  members[#members + 1] = deadline
  members[#members + 1] = popped[i]
  fields[#fields + 1] = "p:" .. popped[i]
  fields[#fields + 1] = "a:" .. popped[i]
end
redis.call("ZADD", KEYS[3], unpack(members))
local values = redis.call("HMGET", KEYS[4], unpack(fields))
local counts, out = {}, {}
for i = 1, #popped, 2 do
  -- popped[i] is the id, popped[i + 1] its score; values[i] its payload, values[i + 1] its attempts.
  local attempts = (tonumber(values[i + 1]) or 0) + 1
  counts[#counts + 1] = fields[i + 1]
  counts[#counts + 1] = attempts
  out[#out + 1] = popped[i]
  out[#out + 1] = values[i]
  out[#out + 1] = attempts
  out[#out + 1] = popped[i + 1]
end
redis.call("HSET", KEYS[4], unpack(counts))
redis.call("HINCRBY", KEYS[5], "dequeued", #popped / 2)
return out
