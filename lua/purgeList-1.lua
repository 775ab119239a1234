--[[
  Drops a whole list at one instant: what it held then is purged, whatever a consumer pops
  or a producer pushes afterwards is theirs. UNLINK frees the items in Redis's background
  thread, so even a huge list never blocks Redis.

  Input:
    KEYS[1] the list

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
redis.call("UNLINK", KEYS[1])
return length
