-- Pages of pets, each as the JSON array a client receives, joined here from the records (each
-- JSON without its id, which the hash field holds: `{"id":` + id + `,` + the record after its `{`
-- is what JSON.stringify gives of the pet), so the instance neither parses nor serialises them.
-- One call answers every page read of an event-loop turn (RedisPetRepository).
-- KEYS: pet records hash, then the sorted set of each page. ARGV: afterId and limit of each page.
-- Returns each page's JSON followed by its last id when more pets match after it, else ''.
local reply = {}
for p = 1, #KEYS - 1 do
  local limit = tonumber(ARGV[2 * p])
  local ids = redis.call('ZRANGE', KEYS[1 + p], '(' .. ARGV[2 * p - 1], '+inf', 'BYSCORE', 'LIMIT', 0, limit + 1)
  local n = math.min(#ids, limit)
  if n == 0 then
    reply[2 * p - 1], reply[2 * p] = '[]', ''
  else
    local records = redis.call('HMGET', KEYS[1], unpack(ids, 1, n))
    local parts = {}
    for i = 1, n do
      if not records[i] then return redis.error_reply('pet ' .. ids[i] .. ' is indexed without a record') end
      parts[i] = '{"id":' .. ids[i] .. ',' .. string.sub(records[i], 2)
    end
    reply[2 * p - 1], reply[2 * p] = '[' .. table.concat(parts, ',') .. ']', #ids > n and ids[n] or ''
  end
end
return reply
