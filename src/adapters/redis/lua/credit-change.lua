-- An operator's change (credit-balance.ts, afterChange): the balance set outright, or units
-- added (negative: taken away, never below zero); the difference entered as `adjusted`.
-- KEYS: credit-state.lua's. ARGV: the period `now` falls in, the rule's credits, its initial
-- credits, 'set' or 'add', the value. Reply: { the balance before, the balance after, its period }.
--#include "credit-state.lua"
local state = credit_refilled(tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]))
local before = state.balance
local value = tonumber(ARGV[5])
if ARGV[4] == 'set' then state.balance = value else state.balance = math.max(0, before + value) end
credit_keep(state)
credit_count(state.period, 'adjusted', state.balance - before)
return { before, state.balance, state.period }
