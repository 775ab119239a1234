-- The score of a waiting message: priority in the high bits, arrival sequence in the low 43,
-- so lower priority numbers go first and equal priorities are FIFO. Priority < 1024 and
-- sequence < 2^43 keep the sum below 2^53, where a double is still exact.
local SEQUENCE_SPAN = 8796093022208 -- 2^43
local function waitScore(priority, sequence)
  return priority * SEQUENCE_SPAN + sequence
end
local function priorityOfScore(score)
  return math.floor(score / SEQUENCE_SPAN)
end
-- Lua turns numbers into strings with 14 significant digits, which would drop the low
-- bits of a score: every computed score goes to Redis through this.
local function scoreString(score)
  return string.format("%.0f", score)
end
