-- Gives back units a granted spend of period `spent_in` took (credit-balance.ts, afterRefund):
-- all of them in that period; after one refill, what the balance would hold beyond the refill
-- had the request never spent them; nothing later still. KEYS: credit-state.lua's. ARGV: the
-- period `now` falls in, the rule's credits, its initial credits, the units, spent_in.
-- Reply: the units the balance gained.
--#include "credit-state.lua"
local credits = tonumber(ARGV[2])
local state = credit_refilled(tonumber(ARGV[1]), credits, tonumber(ARGV[3]))
local units = tonumber(ARGV[4])
local spent_in = tonumber(ARGV[5])
local added = 0
if spent_in == state.period then
  added = units
elseif state.before and state.before.period == spent_in then
  added = math.max(credits, state.before.balance + units) - math.max(credits, state.before.balance)
  state.before.balance = state.before.balance + units
end
state.balance = state.balance + added
credit_keep(state)
credit_count(state.period, 'refunded', added)
credit_count(state.period, 'refunds', 1)
return added
