import { readFileSync } from 'node:fs';

/*
 * The Lua the Redis adapters run lives in `.lua` files under ./lua/ (copied next to the
 * compiled modules by `npm run build`), composed into a script's text once, when its module
 * loads, by two rules:
 * - a line `--#include "name.lua"` is replaced by that file of the same folder (once per
 *   script: a second include of it is dropped, a cycle fails), so scripts share functions;
 * - a placeholder `__NAME__` (capitals, digits, `_`) is replaced by the value the TypeScript
 *   that names the constant gives, so a number the domain states is never typed again in Lua.
 *   A placeholder is an identifier to Lua, so a .lua file stays Lua a checker can parse.
 * A placeholder without a value, or a value no placeholder uses, fails the module's load:
 * what runs is the sources' text with the constants in, or nothing.
 */

/** What a placeholder can stand for: an integer, a string or a list of strings (as Lua literals). */
export type LuaValue = number | string | readonly string[];

/** The folder of the shipped .lua files, beside this module in src/ (Vitest) and dist/src/ (the build). */
export const LUA_DIR = new URL('./lua/', import.meta.url);

const INCLUDE = /^--#include "([\w.-]+\.lua)"[ \t]*$/gm;
const PLACEHOLDER = /\b__([A-Z][A-Z0-9_]*)__\b/g;

/** The script `file` of `dir` with its includes in and its placeholders replaced by `values`. */
export const composeLua = (file: string, values: Readonly<Record<string, LuaValue>>, dir: URL = LUA_DIR): string => {
  const text = withIncludes(dir, file, [], new Set());
  const unused = new Set(Object.keys(values));
  const composed = text.replace(PLACEHOLDER, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`${file}: placeholder __${name}__ has no value`);
    unused.delete(name);
    return luaLiteral(name, value);
  });
  if (unused.size > 0) throw new Error(`${file}: no placeholder for ${[...unused].join(', ')}`);
  return composed;
};

/** `file`'s text with its includes in, depth first; `included` holds the files already in the script. */
const withIncludes = (dir: URL, file: string, chain: readonly string[], included: Set<string>): string => {
  const path = [...chain, file];
  included.add(file);
  return readFileSync(new URL(file, dir), 'utf8').replace(INCLUDE, (_, name: string) => {
    if (path.includes(name)) throw new Error(`Lua include cycle: ${[...path, name].join(' -> ')}`);
    return included.has(name) ? '' : withIncludes(dir, name, path, included);
  });
};

const luaString = (name: string, value: string): string => {
  // Only the values the adapters inject (modes, statuses, codes): nothing needing an escape.
  if (!/^[\w .:,-]*$/.test(value)) throw new Error(`Lua value ${name}: ${JSON.stringify(value)} needs escaping`);
  return `'${value}'`;
};

const luaLiteral = (name: string, value: LuaValue): string => {
  if (typeof value === 'string') return luaString(name, value);
  if (typeof value !== 'number') return `{ ${value.map((item) => luaString(name, item)).join(', ')} }`;
  // Integers only: Lua 5.1 writes and reads them exactly below 2^53, with no exponent to agree on.
  if (!Number.isSafeInteger(value)) throw new Error(`Lua value ${name}: ${value} is not a safe integer`);
  return String(value);
};
