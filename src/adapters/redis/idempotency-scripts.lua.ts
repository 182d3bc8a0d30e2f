/* The Lua of RedisIdempotencyStore: each script's keys, arguments and reply are stated at the top of its .lua file. */
import { composeLua } from './lua-source.js';

export const BEGIN_IDEMPOTENT_LUA = composeLua('idempotency-begin.lua', {});

export const RELEASE_IDEMPOTENT_LUA = composeLua('idempotency-release.lua', {});
