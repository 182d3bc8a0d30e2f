/**
 * Revokes a managed key, if its record is still the one the caller read (compare and set):
 * writes the record with its revocation time and deletes the grants under the key's secrets,
 * in one step. KEYS[1] the registry's hash; ARGV: the id's field, the record read, the
 * revoked record, then the digest of each secret (the current one, and the previous one after a
 * roll). Returns 1, or 0 when the record changed meanwhile.
 * (The record is replaced whole rather than decoded with cjson, which rounds numbers to 14 digits.)
 */
export const REVOKE_API_KEY_LUA = `
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('HDEL', KEYS[1], unpack(ARGV, 4))
return 1
`;

/**
 * Stores a managed key: its record under its id and its grant under its digest, in one step,
 * unless either field exists already. KEYS[1] the registry's hash; ARGV: the id's field, the
 * record, the digest, the grant. Returns 1, or 0 when the id or the digest is taken.
 */
export const CREATE_API_KEY_LUA = `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 or redis.call('HEXISTS', KEYS[1], ARGV[3]) == 1 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4])
return 1
`;

/**
 * Updates a managed key, if its record is still the one the caller read (compare and set):
 * writes the record and the grant under each of the key's secrets, in one step. KEYS[1] the
 * registry's hash; ARGV: the id's field, the record read, the updated record, then a digest and
 * its grant for each secret. Returns 1, or 0 when the record changed meanwhile.
 */
export const UPDATE_API_KEY_LUA = `
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], unpack(ARGV, 3))
return 1
`;

/**
 * Rolls a managed key, if its record is still the one the caller read (compare and set), unless
 * the new secret's digest is taken: writes the record and the new secret's grant, keeps the old
 * secret's grant for its grace or deletes it, and deletes the secret before it, in one step.
 * KEYS[1] the registry's hash; ARGV: the id's field, the record read, the rolled record, the new
 * digest, its grant, the old secret's digest, its grant ('' when it has no grace), the older
 * secret's digest ('' when none). Returns 1, 0 when the record changed meanwhile, or -1 when the
 * new digest is taken.
 */
export const ROLL_API_KEY_LUA = `
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
if redis.call('HEXISTS', KEYS[1], ARGV[4]) == 1 then return -1 end
if ARGV[8] ~= '' then redis.call('HDEL', KEYS[1], ARGV[8]) end
if ARGV[7] == '' then redis.call('HDEL', KEYS[1], ARGV[6]) else redis.call('HSET', KEYS[1], ARGV[6], ARGV[7]) end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3], ARGV[4], ARGV[5])
return 1
`;
