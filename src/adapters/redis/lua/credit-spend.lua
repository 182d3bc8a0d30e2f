-- Spends units if the balance holds them (credit-balance.ts, afterSpend), else refuses and spends
-- nothing. KEYS: credit-state.lua's. ARGV: the period `now` falls in, the rule's credits, its
-- initial credits, the units. Reply: { granted (1 or 0), the balance after, its period }.
--#include "credit-state.lua"
local state = credit_refilled(tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]))
local units = tonumber(ARGV[4])
if state.balance < units then
  credit_keep(state)
  credit_count(state.period, 'refused', 1)
  return { 0, state.balance, state.period }
end
state.balance = state.balance - units
credit_keep(state)
credit_count(state.period, 'spent', units)
credit_count(state.period, 'spends', 1)
return { 1, state.balance, state.period }
