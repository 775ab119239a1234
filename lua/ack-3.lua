--[[
  Acknowledges a processed message: it leaves the active set and its data is deleted.

  Input:
    KEYS[1] active set, KEYS[2] data hash, KEYS[3] counters hash
    ARGV[1] message id

  Output:
    1   acknowledged
    -1  not in the active set (its visibility expired and it was requeued, or unknown id)
]]
--- @include "includes/dropMessage"

if redis.call("ZREM", KEYS[1], ARGV[1]) == 0 then
  return -1
end
dropMessage(KEYS[2], ARGV[1])
redis.call("HINCRBY", KEYS[3], "acked", 1)
return 1
