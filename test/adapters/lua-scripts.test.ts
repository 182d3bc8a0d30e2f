import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import * as apiKeyScripts from '../../src/adapters/redis/api-key-scripts.lua.js';
import * as concurrencyScripts from '../../src/adapters/redis/concurrency-scripts.lua.js';
import * as creditScripts from '../../src/adapters/redis/credit-scripts.lua.js';
import * as idempotencyScripts from '../../src/adapters/redis/idempotency-scripts.lua.js';
import { composeLua, LUA_DIR } from '../../src/adapters/redis/lua-source.js';
import * as orderScripts from '../../src/adapters/redis/order-scripts.lua.js';
import * as pageScripts from '../../src/adapters/redis/page-script.lua.js';
import * as petScripts from '../../src/adapters/redis/pet-scripts.lua.js';
import { QUOTA_CALLS_LUA, QUOTA_LAYOUT, QUOTA_LAYOUT_ERROR } from '../../src/adapters/redis/quota-script.lua.js';
import { GRANULES_PER_WINDOW, RING } from '../../src/domain/quota/sliding-window-counter.js';

const fixtures = mkdtempSync(join(tmpdir(), 'petstore-lua-'));
const dir = pathToFileURL(`${fixtures}/`);
afterAll(() => rmSync(fixtures, { recursive: true, force: true }));
const fixture = (files: Record<string, string>): void => {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(fixtures, name), text);
};

describe('composeLua', () => {
  it('puts each included file in once, where it is first included, and each value as a Lua literal', () => {
    fixture({
      'shared.lua': 'local function shared() return __N__ end\n',
      'middle.lua': '--#include "shared.lua"\nlocal function middle() return shared() end\n',
      'main.lua': '--#include "middle.lua"\n--#include "shared.lua"\nreturn { middle(), __MODE__, __LIST__ }\n',
    });
    expect(composeLua('main.lua', { N: -2, MODE: 'p', LIST: ['a', 'b'] }, dir)).toBe(
      "local function shared() return -2 end\n\nlocal function middle() return shared() end\n\n\nreturn { middle(), 'p', { 'a', 'b' } }\n",
    );
  });

  it('fails on a placeholder without a value, a value without a placeholder, a cycle, a missing file and a value Lua would not read back', () => {
    fixture({ 'uses.lua': 'return __MISSING__\n', 'a.lua': '--#include "b.lua"\n', 'b.lua': '--#include "a.lua"\n', 'plain.lua': 'return __X__\n' });
    expect(() => composeLua('uses.lua', {}, dir)).toThrow('placeholder __MISSING__ has no value');
    expect(() => composeLua('plain.lua', { X: 1, EXTRA: 2 }, dir)).toThrow('no placeholder for EXTRA');
    expect(() => composeLua('a.lua', {}, dir)).toThrow('Lua include cycle: a.lua -> b.lua -> a.lua');
    expect(() => composeLua('absent.lua', {}, dir)).toThrow(/ENOENT/);
    expect(() => composeLua('plain.lua', { X: 0.5 }, dir)).toThrow('not a safe integer');
    expect(() => composeLua('plain.lua', { X: "it's" }, dir)).toThrow('needs escaping');
  });
});

describe('the shipped scripts', () => {
  const scripts = {
    ...apiKeyScripts,
    ...concurrencyScripts,
    ...creditScripts,
    ...idempotencyScripts,
    ...orderScripts,
    ...pageScripts,
    ...petScripts,
    QUOTA_CALLS_LUA,
  };

  it('keep no placeholder or include unresolved, and every .lua file is in some script', () => {
    const texts = Object.values(scripts);
    for (const text of texts) {
      expect(text).not.toMatch(/\b__[A-Z][A-Z0-9_]*__\b/);
      expect(text).not.toMatch(/^--#include/m);
    }
    for (const file of readdirSync(LUA_DIR)) {
      // A file's first line is in every script made of it.
      const firstLine = readFileSync(new URL(file, LUA_DIR), 'utf8').split('\n')[0]!;
      expect(texts.some((text) => text.includes(firstLine)), file).toBe(true);
    }
  });

  it('state the granule count only through the domain: quota.lua types neither it nor the ring size, the script runs with them', () => {
    const source = readFileSync(new URL('quota.lua', LUA_DIR), 'utf8');
    expect(source).not.toMatch(new RegExp(`\\b(${GRANULES_PER_WINDOW}|${RING})\\b`));
    expect(QUOTA_CALLS_LUA).toContain(`policy.g[i] = tonumber(windowArgs[i]) / ${GRANULES_PER_WINDOW}\n`);
    expect(QUOTA_CALLS_LUA).toContain(`if b > c - ${RING} then break end`);
    expect(QUOTA_CALLS_LUA).toContain(`writes = { 'w', policy.signature, 'v', ${QUOTA_LAYOUT}, 'sa', num(t) }`);
    expect(QUOTA_CALLS_LUA).toContain(`error({ err = '${QUOTA_LAYOUT_ERROR}' .. ' ' ..`);
  });
});
