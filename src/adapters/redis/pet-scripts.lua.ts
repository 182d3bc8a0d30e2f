/*
 * Lua run inside Redis by RedisPetRepository. Kept as TypeScript modules exporting strings
 * so that `tsc` carries them into dist with the code (a .lua file would need a copy step
 * and a path lookup at run time), and apart from the TypeScript so the Lua reads as Lua.
 *
 * Ids cross into strings with string.format('%d'): Lua's own number-to-string conversion
 * keeps 14 digits, which would turn a large id into 1e+15.
 */

/**
 * KEYS: next id counter, records hash, all-ids sorted set, the status's sorted set.
 * ARGV: the record (JSON without the id). Returns the new id.
 * One script, so no pet is indexed without its record, nor the reverse.
 */
export const CREATE_PET_LUA = `
local id = string.format('%d', redis.call('INCR', KEYS[1]))
redis.call('HSET', KEYS[2], id, ARGV[1])
redis.call('ZADD', KEYS[3], id, id)
redis.call('ZADD', KEYS[4], id, id)
return id
`;

/**
 * KEYS: records hash, the sorted set to page (all ids or one status).
 * ARGV: afterId, limit. Returns id, record, id, record... ascending: O(log n + limit), one round trip.
 */
export const PET_PAGE_LUA = `
local ids = redis.call('ZRANGE', KEYS[2], '(' .. ARGV[1], '+inf', 'BYSCORE', 'LIMIT', 0, ARGV[2])
if #ids == 0 then return {} end
local records = redis.call('HMGET', KEYS[1], unpack(ids))
local page = {}
for i = 1, #ids do
  page[2 * i - 1] = ids[i]
  page[2 * i] = records[i]
end
return page
`;
