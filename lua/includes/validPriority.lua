-- A priority is a whole number from 0 (served first) to 1023.
local function validPriority(value)
  local priority = tonumber(value)
  if priority == nil or priority < 0 or priority > 1023 or priority % 1 ~= 0 then
    return nil
  end
  return priority
end
