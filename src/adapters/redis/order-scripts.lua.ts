/* The Lua of RedisOrderRepository: each script's keys, arguments and reply are stated at the top of its .lua file. */
import { ORDER_STATUSES } from '../../domain/orders/order.js';
import { MAX_ID, PET_STATUSES } from '../../domain/pets/pet.js';
import { composeLua } from './lua-source.js';

export const PLACE_ORDER_LUA = composeLua('order-place.lua', { MAX_ID });

export const TRANSITION_ORDER_LUA = composeLua('order-transition.lua', { ORDER_STATUSES, PET_STATUSES });
