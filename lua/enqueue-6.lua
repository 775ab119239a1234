--[[
  Adds one message to a Varal priority queue, optionally refusing a repeated idempotency key.

  Input:
    KEYS[1] waiting set         vq:{queue}:wait
    KEYS[2] delayed set         vq:{queue}:delayed
    KEYS[3] data hash           vq:{queue}:data  (p:<id> payload, m:<id> metadata JSON,
                                                  s:<id> waiting score, a:<id> attempts)
    KEYS[4] counters hash       vq:{queue}:stats
    KEYS[5] idempotency key     vq:{queue}:idem:<key> (any key when ARGV[5] is 0)
    KEYS[6] active set          vq:{queue}:active (type check only)
    ARGV[1] payload
    ARGV[2] priority, 0 (first) to 1023
    ARGV[3] delay in ms (0: ready now)
    ARGV[4] now, unix ms
    ARGV[5] idempotency window in ms (0: no idempotency key)
    ARGV[6] idempotency key, stored in the metadata
    ARGV[7] largest payload in bytes

  Output:
    { 0, id }   enqueued
    { -2, id }  refused: the idempotency key was seen within the window (id of the first)
    -1  a queue key holds a value of another type
    -3  priority out of range
    -4  payload larger than ARGV[7]
]]
--- @include "includes/waitScore"
--- @include "includes/validPriority"
--- @include "includes/checkKeyTypes"
--- @include "includes/addMessage"

local priority = validPriority(ARGV[2])
if priority == nil then
  return -3
end
if #ARGV[1] > tonumber(ARGV[7]) then
  return -4
end
if not checkKeyTypes({ KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[6] }, { "zset", "zset", "hash", "hash", "zset" }) then
  return -1
end
local window = tonumber(ARGV[5])
local meta = {}
if window > 0 then
  local first = redis.call("GET", KEYS[5])
  if first then
    return { -2, first }
  end
  meta.idempotencyKey = ARGV[6]
end
local id = addMessage(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1], priority, tonumber(ARGV[3]), tonumber(ARGV[4]), meta)
if window > 0 then
  redis.call("SET", KEYS[5], id, "PX", window)
end
return { 0, id }
