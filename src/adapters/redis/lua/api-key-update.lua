-- Updates a managed key, if its record is still the one the caller read (compare and set):
-- writes the record and the grant under each of the key's secrets, in one step. KEYS[1] the
-- registry's hash; ARGV: the id's field, the record read, the updated record, then a digest and
-- its grant for each secret. Returns 1, or 0 when the record changed meanwhile.
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], unpack(ARGV, 3))
return 1
