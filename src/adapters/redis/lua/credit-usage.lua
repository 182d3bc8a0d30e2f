-- A subject's usage rows of the periods from ARGV[1] to ARGV[2] (ZRANGEBYSCORE bounds), read at
-- one moment. KEYS[1] its usage rows, KEYS[2] their periods (credit-state.lua). ARGV[3...]: the
-- columns. Reply: per row, its period then its columns in ARGV's order ('0' for one never counted).
local reply = {}
for _, period in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], ARGV[1], ARGV[2])) do
  reply[#reply + 1] = period
  for i = 3, #ARGV do reply[#reply + 1] = redis.call('HGET', KEYS[1], period .. ':' .. ARGV[i]) or '0' end
end
return reply
