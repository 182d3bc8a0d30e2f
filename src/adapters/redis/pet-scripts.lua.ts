/* The Lua of RedisPetRepository: each script's keys, arguments and reply are stated at the top of its .lua file. */
import { MAX_ID, PET_STATUSES } from '../../domain/pets/pet.js';
import { composeLua } from './lua-source.js';

export const CREATE_PET_LUA = composeLua('pet-create.lua', { MAX_ID });

export const COUNT_PETS_LUA = composeLua('pets-count.lua', {});

export const UPDATE_PET_STATUS_LUA = composeLua('pet-update-status.lua', { PET_STATUSES });
