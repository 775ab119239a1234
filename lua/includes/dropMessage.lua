-- Deletes a message's payload and metadata once it has left every set.
local function dropMessage(dataKey, id)
  redis.call("HDEL", dataKey, "p:" .. id, "m:" .. id, "s:" .. id, "a:" .. id)
end
