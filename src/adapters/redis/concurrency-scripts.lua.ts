/* The Lua of RedisConcurrencySlots: each script's keys, arguments and reply are stated at the top of its .lua file. */
import { composeLua } from './lua-source.js';

export const ACQUIRE_SLOT_LUA = composeLua('concurrency-acquire.lua', {});

export const COUNT_SLOTS_LUA = composeLua('concurrency-count.lua', {});

export const RENEW_SLOTS_LUA = composeLua('concurrency-renew.lua', {});
