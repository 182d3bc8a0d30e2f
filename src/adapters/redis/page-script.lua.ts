/* The paging Lua of the pet and order repositories: keys, arguments and reply are stated at the top of each .lua file. */
import { composeLua } from './lua-source.js';

export const PAGE_LUA = composeLua('page.lua', {});

export const PET_PAGES_JSON_LUA = composeLua('pet-pages-json.lua', {});
