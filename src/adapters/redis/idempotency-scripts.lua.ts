/*
 * Lua run inside Redis by RedisIdempotencyStore (see pet-scripts.lua.ts on why Lua lives in
 * TypeScript modules). A claim's record is a hash: `f` the fingerprint, and once its request
 * stored something (REMEMBER_LUA, in the script that stored it) `k` kind, `i` id, `r` record.
 * Redis expires it (PEXPIRE): no sweeping.
 */

/**
 * KEYS: the claim's record. ARGV: fingerprint, the in-flight mark's lifetime in ms, how long a
 * mark must have left to hold a repeat off. Returns {'started'} (and marks it in flight),
 * {'reused'}, {'in_flight', ms left} or {'replay', kind, id, record}.
 */
export const BEGIN_IDEMPOTENT_LUA = `
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
`;

/** KEYS: the claim's record. ARGV: fingerprint. Drops an in-flight mark of that fingerprint, never a completed record. */
export const RELEASE_IDEMPOTENT_LUA = `
if redis.call('HGET', KEYS[1], 'f') == ARGV[1] and redis.call('HEXISTS', KEYS[1], 'k') == 0 then
  redis.call('DEL', KEYS[1])
end
return 0
`;
