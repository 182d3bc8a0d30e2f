-- Revokes a managed key, if its record is still the one the caller read (compare and set):
-- writes the record with its revocation time and deletes the grants under the key's secrets,
-- in one step. KEYS[1] the registry's hash; ARGV: the id's field, the record read, the
-- revoked record, then the digest of each secret (the current one, and the previous one after a
-- roll). Returns 1, or 0 when the record changed meanwhile.
-- (The record is replaced whole rather than decoded with cjson, which rounds numbers to 14 digits.)
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('HDEL', KEYS[1], unpack(ARGV, 4))
return 1
