-- KEYS: the sorted set of each status. Returns their sizes in the same order, read in one step.
local counts = {}
for i = 1, #KEYS do counts[i] = string.format('%d', redis.call('ZCARD', KEYS[i])) end
return counts
