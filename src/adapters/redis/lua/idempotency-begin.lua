-- A claim's record (RedisIdempotencyStore) is a hash: `f` the fingerprint, and once its request
-- stored something (remember.lua, in the script that stored it) `k` kind, `i` id, `r` record.
-- Redis expires it (PEXPIRE): no sweeping.
-- KEYS: the claim's record. ARGV: fingerprint, the in-flight mark's lifetime in ms, how long a
-- mark must have left to hold a repeat off. Returns {'started'} (and marks it in flight),
-- {'reused'}, {'in_flight', ms left} or {'replay', kind, id, record}.
local stored = redis.call('HMGET', KEYS[1], 'f', 'k', 'i', 'r')
local left = redis.call('PTTL', KEYS[1])
if not stored[1] or (not stored[2] and left < tonumber(ARGV[3])) then
  redis.call('HSET', KEYS[1], 'f', ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return { 'started' }
end
if stored[1] ~= ARGV[1] then return { 'reused' } end
if not stored[2] then return { 'in_flight', left } end
return { 'replay', stored[2], stored[3], stored[4] }
