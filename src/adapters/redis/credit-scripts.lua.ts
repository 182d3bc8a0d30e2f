/* The Lua of RedisCreditLedger: each script's keys, arguments and reply are stated at the top of its .lua file. */
import { composeLua } from './lua-source.js';

export const SPEND_CREDITS_LUA = composeLua('credit-spend.lua', {});

export const REFUND_CREDITS_LUA = composeLua('credit-refund.lua', {});

export const CHANGE_CREDITS_LUA = composeLua('credit-change.lua', {});

export const CREDIT_USAGE_LUA = composeLua('credit-usage.lua', {});
