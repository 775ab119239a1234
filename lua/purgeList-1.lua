--[[
  Drops up to ARGV[1] of the oldest items of a list. Purging a huge list is done in many
  such calls so Redis never blocks on one long command.

  Input:
    KEYS[1] the list
    ARGV[1] how many items to drop at most in this call

  Output:
    the number of items dropped
    -1  KEYS[1] holds a value that is not a list
]]
local keyType = redis.call("TYPE", KEYS[1])["ok"]
if keyType == "none" then
  return 0
end
if keyType ~= "list" then
  return -1
end
local length = redis.call("LLEN", KEYS[1])
local drop = math.min(length, tonumber(ARGV[1]))
if drop == length then
  redis.call("UNLINK", KEYS[1])
elseif drop > 0 then
  redis.call("LTRIM", KEYS[1], 0, length - drop - 1)
end
return drop
