-- True when every key is missing or of the expected type; Varal's queue keys are sorted
-- sets, hashes and strings, and a key of another type means the name is taken.
local function checkKeyTypes(keys, expected)
  for index, key in ipairs(keys) do
    local keyType = redis.call("TYPE", key)["ok"]
    if keyType ~= "none" and keyType ~= expected[index] then
      return false
    end
  end
  return true
end
