/* The Lua of RedisApiKeyRegistry: each script's keys, arguments and reply are stated at the top of its .lua file. */
import { composeLua } from './lua-source.js';

export const REVOKE_API_KEY_LUA = composeLua('api-key-revoke.lua', {});

export const CREATE_API_KEY_LUA = composeLua('api-key-create.lua', {});

export const UPDATE_API_KEY_LUA = composeLua('api-key-update.lua', {});

export const ROLL_API_KEY_LUA = composeLua('api-key-roll.lua', {});
