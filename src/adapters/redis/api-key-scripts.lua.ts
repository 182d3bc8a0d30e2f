/**
 * Revokes a managed key, if its record is still the one the caller read (compare and set):
 * writes the record with its revocation time and deletes the grant under the key's digest,
 * in one step. KEYS[1] the registry's hash; ARGV: the id's field, the record read, the
 * revoked record, the digest. Returns 1, or 0 when the record changed meanwhile.
 * (The record is replaced whole rather than decoded with cjson, which rounds numbers to 14 digits.)
 */
export const REVOKE_API_KEY_LUA = `
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('HDEL', KEYS[1], ARGV[4])
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
 * writes the record and the grant under the key's digest, in one step. KEYS[1] the registry's
 * hash; ARGV: the id's field, the record read, the updated record, the digest, the grant.
 * Returns 1, or 0 when the record changed meanwhile.
 */
export const UPDATE_API_KEY_LUA = `
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3], ARGV[4], ARGV[5])
return 1
`;
