--[[
  Moves up to ARGV[1] items from a dead-letter list back to its destination list, oldest
  first, in one atomic step: at every instant each item is in exactly one of the two lists.

  Input:
    KEYS[1] dead-letter list (items taken from its right end, where the oldest wait)
    KEYS[2] destination list (items pushed on its left end, as producers LPUSH)
    ARGV[1] how many items to move at most (bounds the loop)

  Output:
    the number of items moved (0 when the dead-letter list is empty)
    -1  KEYS[1] or KEYS[2] holds a value that is not a list
]]
local maxCount = tonumber(ARGV[1])
for _, key in ipairs(KEYS) do
  local keyType = redis.call("TYPE", key)["ok"]
  if keyType ~= "list" and keyType ~= "none" then
    return -1
  end
end
local moved = 0
while moved < maxCount do
  if not redis.call("LMOVE", KEYS[1], KEYS[2], "RIGHT", "LEFT") then
    break
  end
  moved = moved + 1
end
return moved
