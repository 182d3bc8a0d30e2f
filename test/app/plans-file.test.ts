import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseKeysArgs } from '../../src/app/cli/keys-command.js';
import { loadConfig } from '../../src/app/config/config.js';
import { parsePlansFile, type PlansFileContext } from '../../src/app/config/plans-file.js';
import { PET_STORE_OPERATION_IDS } from '../../src/adapters/http/contract/pet-store-routes.js';
import { readKeyChanges, readNewKey } from '../../src/domain/keys/key-fields.js';
import { STANDARD_PLANS } from '../../src/domain/quota/plan.js';

const CONTEXT: PlansFileContext = {
  operations: ['listPets', 'createPet', 'placeOrder'],
  routes: new Map([
    ['GET /pets', 'listPets'],
    ['POST /pets', 'createPet'],
    ['POST /store/orders', 'placeOrder'],
  ]),
  reservedRuleNames: ['rate_limit'],
};

const problemsOf = (file: unknown): readonly string[] => {
  const parsed = parsePlansFile(typeof file === 'string' ? file : JSON.stringify(file, null, 2), CONTEXT);
  return parsed.ok ? [] : parsed.error;
};

const minute = { name: 'minute', limit: 100, window: '1m' };
const SEARCH = {
  plans: {
    search: {
      rules: [minute, { name: 'search', limit: 10, window: '60s', match: ['listPets'], cost: 2 }],
    },
  },
};

const dir = mkdtempSync(join(tmpdir(), 'plans-'));
const fileOf = (name: string, content: unknown): string => {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return path;
};

describe('a plans file', () => {
  it('reads each plan into frozen rules: windows in units or milliseconds, match, cost and mode as written', () => {
    const parsed = parsePlansFile(
      JSON.stringify({
        plans: {
          search: SEARCH.plans.search,
          writes: { rules: [{ name: 'hour', limit: 1000, window: 3_600_000, cost: { placeOrder: 5, default: 1 }, mode: 'shadow' }, { ...minute, window: '1d', mode: 'enforce' }] },
        },
      }),
      CONTEXT,
    );
    if (!parsed.ok) throw new Error(parsed.error.join('\n'));
    expect(parsed.value.get('search')).toEqual({
      name: 'search',
      rules: [
        { name: 'minute', limit: 100, windowMs: 60_000 },
        { name: 'search', limit: 10, windowMs: 60_000, match: ['listPets'], cost: 2 },
      ],
    });
    expect(parsed.value.get('writes')?.rules).toEqual([
      { name: 'hour', limit: 1000, windowMs: 3_600_000, cost: { placeOrder: 5, default: 1 }, mode: 'shadow' },
      { name: 'minute', limit: 100, windowMs: 86_400_000, mode: 'enforce' },
    ]);
    expect(Object.isFrozen(parsed.value.get('search')?.rules[1])).toBe(true);
  });

  it('reports every mistake, one line each, naming its JSON path', () => {
    expect(
      problemsOf({
        plans: {
          free: { rules: [minute] },
          'Big Plan': { rules: [minute] },
          search: {
            rules: [
              { name: 'minute', limit: 0, window: '90x' },
              { name: 'search', limit: 4_294_967_296, window: 90, match: ['searchPets', 'listPets', 'listPets'], mode: 'dry' },
              { name: 'Search!', limit: 5, window: '1m', cost: { createPet: 2, listPets: 6, getThing: 1 }, match: ['listPets'], limits: 3 },
              { name: 'rate_limit', limit: 5 },
            ],
          },
          empty: { rules: [] },
          'shadow-only': { rules: [{ ...minute, mode: 'shadow' }], note: 'x' },
          twice: { rules: [minute, minute] },
        },
        version: 2,
      }),
    ).toEqual([
      'version: unknown field; the file has plans',
      'plans.free: free is a built-in plan; give the file\'s plan another name',
      'plans["Big Plan"]: a plan\'s name must be 1 to 32 lower-case letters, digits, _ or -, starting with a letter',
      'plans.search.rules[0].limit: must be a whole number from 1 to 4294967295',
      'plans.search.rules[0].window: must be a duration such as "60s", "1m", "1h", "1d" or whole milliseconds, from 1s to 366d, a multiple of 60 ms',
      'plans.search.rules[1].limit: must be a whole number from 1 to 4294967295',
      'plans.search.rules[1].window: must be a duration such as "60s", "1m", "1h", "1d" or whole milliseconds, from 1s to 366d, a multiple of 60 ms',
      'plans.search.rules[1].match[0]: "searchPets" is not an operationId of the API; expected one of listPets, createPet, placeOrder',
      'plans.search.rules[1].match: names an operation twice',
      'plans.search.rules[1].mode: must be one of enforce, shadow',
      'plans.search.rules[2].limits: unknown field; a rule has name, limit and window (a window) or burst, rate and per (a burst) or concurrency (a cap) or credits, initial and refill (credits), match, cost, mode, refund',
      'plans.search.rules[2].name: must be 1 to 32 lower-case letters, digits, _ or -, starting with a letter',
      'plans.search.rules[2].cost.createPet: createPet is not in the rule\'s match: the rule never counts it',
      'plans.search.rules[2].cost.listPets: must be a whole number from 1 to 5, the rule\'s limit',
      'plans.search.rules[2].cost.getThing: "getThing" is not an operationId of the API; expected one of listPets, createPet, placeOrder',
      'plans.search.rules[3].name: rate_limit is the name of a rule of the service\'s own',
      'plans.search.rules[3].window: is required: a duration such as "60s", "1m", "1h", "1d" or whole milliseconds, from 1s to 366d, a multiple of 60 ms',
      'plans.empty.rules: must be a list of 1 to 16 rules',
      'plans["shadow-only"].note: unknown field; a plan has rules',
      'plans["shadow-only"].rules: needs an enforced rule without "match", one that limits every request',
      'plans.twice.rules[1].name: minute names another rule of the plan',
    ]);
  });

  it('reads a rule\'s refund, answer classes and statuses as written, and reports each mistake in it naming its path', () => {
    const refunding = (refund: unknown) => ({ plans: { p: { rules: [{ ...minute, refund }] } } });
    const parsed = parsePlansFile(JSON.stringify(refunding(['5xx', '404', '429'])), CONTEXT);
    if (!parsed.ok) throw new Error(parsed.error.join('\n'));
    expect(parsed.value.get('p')?.rules[0]).toEqual({ name: 'minute', limit: 100, windowMs: 60_000, refund: ['5xx', '404', '429'] });
    expect(Object.isFrozen(parsed.value.get('p')?.rules[0]?.refund)).toBe(true);
    expect(problemsOf(refunding(['6xx', '5XX', 404, '42', '1000', '5xx', '503', '5xx']))).toEqual([
      'plans.p.rules[0].refund[0]: "6xx" is not an answer class; expected "1xx" to "5xx", or a status from "100" to "599"',
      'plans.p.rules[0].refund[1]: "5XX" is not an answer class; expected "1xx" to "5xx", or a status from "100" to "599"',
      'plans.p.rules[0].refund[2]: 404 is not an answer class; expected "1xx" to "5xx", or a status from "100" to "599"',
      'plans.p.rules[0].refund[3]: "42" is not an answer class; expected "1xx" to "5xx", or a status from "100" to "599"',
      'plans.p.rules[0].refund[4]: "1000" is not an answer class; expected "1xx" to "5xx", or a status from "100" to "599"',
      'plans.p.rules[0].refund[6]: 503 overlaps 5xx, given before',
      'plans.p.rules[0].refund[7]: 5xx overlaps 5xx, given before',
    ]);
    for (const refund of [[], '5xx', { '5xx': true }]) {
      expect(problemsOf(refunding(refund))).toEqual(['plans.p.rules[0].refund: must be a list of answer classes, at least one: "1xx" to "5xx", or a status from "100" to "599"']);
    }
  });

  it('reads a burst rule as a bucket of `burst` units refilled completely in burst * per / rate ms, with match, cost and mode as a window’s', () => {
    const parsed = parsePlansFile(
      JSON.stringify({
        plans: {
          mobile: {
            rules: [
              minute,
              { name: 'burst', burst: 50, rate: 10, per: '1s' },
              { name: 'orders', burst: 3, rate: 1, per: 20_000, match: ['placeOrder'], cost: 2, mode: 'shadow' },
              { name: 'slow', burst: 5, rate: 2, per: '1s' },
            ],
          },
        },
      }),
      CONTEXT,
    );
    if (!parsed.ok) throw new Error(parsed.error.join('\n'));
    expect(parsed.value.get('mobile')?.rules).toEqual([
      { name: 'minute', limit: 100, windowMs: 60_000 },
      { name: 'burst', limit: 50, windowMs: 5_000, kind: 'burst' },
      { name: 'orders', limit: 3, windowMs: 60_000, kind: 'burst', mode: 'shadow', match: ['placeOrder'], cost: 2 },
      // A burst rule's refill need not be a multiple of 60 ms as a window is.
      { name: 'slow', limit: 5, windowMs: 2_500, kind: 'burst' },
    ]);
  });

  it('reports each mistake of a burst rule, naming its path: each field, a refill of no whole millisecond or over 366 days, a level past 2^53, window fields beside burst ones', () => {
    const burstPlan = (...rules: unknown[]) => ({ plans: { mobile: { rules: [minute, ...rules] } } });
    expect(
      problemsOf(
        burstPlan(
          { name: 'a', burst: 0, rate: 1.5, per: '1x' },
          { name: 'b', burst: 10, rate: 3 },
          { name: 'c', burst: 10, rate: 3, per: '1s' },
          { name: 'd', burst: 1_000_000, rate: 1, per: '1d' },
          { name: 'e', burst: 4_000_000_000, rate: 1_000_000, per: '1h' },
          { name: 'f', burst: 10, rate: 1, per: '1s', limit: 10, window: '1m' },
          { name: 'g', burst: 5, rate: 1, per: 0, cost: 6 },
        ),
      ),
    ).toEqual([
      'plans.mobile.rules[1].burst: must be a whole number from 1 to 4294967295, the units the bucket holds',
      'plans.mobile.rules[1].rate: must be a whole number from 1 to 4294967295, the units refilled every `per`',
      'plans.mobile.rules[1].per: must be a duration such as "1s", "1m", "1h", "1d" or whole milliseconds, from 1 ms to 366d',
      'plans.mobile.rules[2].per: is required: a duration such as "1s", "1m", "1h", "1d" or whole milliseconds, from 1 ms to 366d',
      'plans.mobile.rules[3]: a bucket of 10 refilling 3 every 1000 ms refills completely in 10 * 1000 / 3 ms, which must be whole milliseconds',
      'plans.mobile.rules[4]: a bucket of 1000000 refilling 1 every 86400000 ms refills completely in 1000000 * 86400000 / 1 ms = 86400000000000 ms, which must be at most 366d',
      'plans.mobile.rules[5]: a bucket of 4000000000 refilling 1000000 every 3600000 ms refills completely in 4000000000 * 3600000 / 1000000 ms = 14400000000 ms; 4000000000 * 14400000000 must be at most 9007199254740991: a smaller burst, or a faster rate',
      'plans.mobile.rules[6].limit: not a field of a burst rule, which has burst, rate and per',
      'plans.mobile.rules[6].window: not a field of a burst rule, which has burst, rate and per',
      'plans.mobile.rules[7].per: must be a duration such as "1s", "1m", "1h", "1d" or whole milliseconds, from 1 ms to 366d',
      "plans.mobile.rules[7].cost: must be a whole number from 1 to 5, the rule's limit",
    ]);
  });

  it('reads a concurrency cap beside the plan\'s rules, never among them, with its match', () => {
    const parsed = parsePlansFile(
      JSON.stringify({ plans: { capped: { rules: [minute, { name: 'inflight', concurrency: 10, match: ['createPet'] }] } } }),
      CONTEXT,
    );
    expect(parsed.ok && parsed.value.get('capped')).toEqual({
      name: 'capped',
      rules: [{ name: 'minute', limit: 100, windowMs: 60_000 }],
      concurrency: { name: 'inflight', limit: 10, match: ['createPet'] },
    });
  });

  it('reports each mistake of a concurrency cap: its number, window fields beside it, a second cap, a plan of caps alone', () => {
    expect(
      problemsOf({
        plans: {
          a: { rules: [minute, { name: 'inflight', concurrency: 0, cost: 2 }] },
          b: { rules: [minute, { name: 'one', concurrency: 2 }, { name: 'two', concurrency: 3 }] },
          c: { rules: [{ name: 'inflight', concurrency: 2 }] },
        },
      }),
    ).toEqual([
      'plans.a.rules[1].cost: not a field of a concurrency cap, which has name, concurrency and match',
      'plans.a.rules[1].concurrency: must be a whole number from 1 to 100000',
      'plans.b.rules: has more than one concurrency cap; a plan has at most one',
      'plans.c.rules: needs an enforced rule without "match", one that limits every request',
    ]);
  });

  it('reads credits beside the plan\'s rules: refilled monthly or every fixed period, or never, with an initial balance, match, cost and refund', () => {
    const parsed = parsePlansFile(
      JSON.stringify({
        plans: {
          metered: { rules: [minute, { name: 'monthly', credits: 10_000, refill: 'month', cost: { createPet: 10, default: 1 }, refund: ['5xx'] }] },
          trial: { rules: [minute, { name: 'trial', credits: 500, initial: 50, refill: '7d', match: ['listPets'] }] },
          prepaid: { rules: [minute, { name: 'prepaid', credits: 1_000 }] },
        },
      }),
      CONTEXT,
    );
    if (!parsed.ok) throw new Error(parsed.error.join('\n'));
    expect(parsed.value.get('metered')).toEqual({
      name: 'metered',
      rules: [{ name: 'minute', limit: 100, windowMs: 60_000 }],
      credits: { name: 'monthly', credits: 10_000, refill: 'month', cost: { createPet: 10, default: 1 }, refund: ['5xx'] },
    });
    expect(parsed.value.get('trial')?.credits).toEqual({ name: 'trial', credits: 500, initial: 50, refill: 604_800_000, match: ['listPets'] });
    expect(parsed.value.get('prepaid')?.credits).toEqual({ name: 'prepaid', credits: 1_000 });
  });

  it('reports each mistake of credits: amount, initial, refill, a mode or window beside them, a second balance', () => {
    expect(
      problemsOf({
        plans: {
          a: { rules: [minute, { name: 'c', credits: 0, initial: -1, refill: 'week', mode: 'shadow', window: '1m' }] },
          b: { rules: [minute, { name: 'one', credits: 2 }, { name: 'two', credits: 3 }] },
          c: { rules: [minute, { name: 'c', credits: 5, refill: '10s', cost: 6 }] },
        },
      }),
    ).toEqual([
      'plans.a.rules[1].mode: not a field of credits, which have name, credits, initial, refill, match, cost and refund',
      'plans.a.rules[1].window: not a field of credits, which have name, credits, initial, refill, match, cost and refund',
      'plans.a.rules[1].credits: must be a whole number from 1 to 1000000000000, what each refill brings the balance up to',
      'plans.a.rules[1].initial: must be a whole number from 0 to 1000000000000, a key\'s first balance',
      'plans.a.rules[1].refill: must be "month" (the first of each calendar month, UTC) or a duration such as "1h", "1d", "30d" or whole milliseconds, from 1m to 366d',
      'plans.b.rules: has more than one credits rule; a plan has at most one',
      'plans.c.rules[1].refill: must be "month" (the first of each calendar month, UTC) or a duration such as "1h", "1d", "30d" or whole milliseconds, from 1m to 366d',
      "plans.c.rules[1].cost: must be a whole number from 1 to 5, the rule's limit",
    ]);
  });

  it('names the line and column of a JSON syntax error', () => {
    expect(problemsOf('{\n  "plans": {\n    "search": { "rules": [], }\n  }\n}')).toEqual([expect.stringMatching(/^line 3, column 30: not JSON: /)]);
    expect(problemsOf('{\n  "plans": {')).toEqual(["line 2, column 13: not JSON: Expected property name or '}'"]);
    expect(problemsOf('[]')).toEqual(['the file must be an object with "plans": {"NAME": {"rules": [...]}}']);
    expect(problemsOf({ plans: {} })).toEqual(['plans: names no plan']);
  });
});

describe('PETSTORE_PLANS', () => {
  it('loads the file beside the built-in plans, and PETSTORE_API_KEYS entries name its plans', () => {
    const loaded = loadConfig({ PETSTORE_PLANS: fileOf('search.json', SEARCH), PETSTORE_API_KEYS: 'search-key-1:search:staff,free-key-12:free' });
    if (!loaded.ok) throw new Error(loaded.error.join('\n'));
    const search = loaded.value.plans.get('search');
    expect(search?.rules.map((rule) => rule.name)).toEqual(['minute', 'search']);
    expect(loaded.value.apiKeys).toEqual([
      { key: 'search-key-1', plan: search, role: 'staff' },
      { key: 'free-key-12', plan: STANDARD_PLANS.free, role: 'customer' },
    ]);
  });

  it('reports each mistake of the file as a problem of its own, and an entry naming no plan with the plans it may name', () => {
    const path = fileOf('bad.json', { plans: { search: { rules: [{ ...minute, limit: -1 }, { name: 'x', limit: 1, window: '30s', match: ['nope'] }] } } });
    const loaded = loadConfig({ PETSTORE_PLANS: path, PETSTORE_API_KEYS: 'some-key-1:search' });
    expect(loaded.ok ? [] : loaded.error).toEqual([
      `PETSTORE_PLANS=${JSON.stringify(path)}: plans.search.rules[0].limit: must be a whole number from 1 to 4294967295`,
      `PETSTORE_PLANS=${JSON.stringify(path)}: plans.search.rules[1].match[0]: "nope" is not an operationId of the API; expected one of ${PET_STORE_OPERATION_IDS.join(', ')}`,
      'PETSTORE_API_KEYS: entry 1: expected KEY:PLAN[:ROLE] with PLAN one of free, pro, business, or KEY:enterprise:PER_MINUTE:PER_DAY[:ROLE]',
    ]);
    const good = loadConfig({ PETSTORE_PLANS: fileOf('good.json', SEARCH), PETSTORE_API_KEYS: 'some-key-1:gold' });
    expect(good.ok ? [] : good.error).toEqual(['PETSTORE_API_KEYS: entry 1: expected KEY:PLAN[:ROLE] with PLAN one of free, pro, business, search, or KEY:enterprise:PER_MINUTE:PER_DAY[:ROLE]']);
    const missing = loadConfig({ PETSTORE_PLANS: join(dir, 'missing.json') });
    expect(missing.ok ? [] : missing.error).toEqual([`PETSTORE_PLANS=${JSON.stringify(join(dir, 'missing.json'))}: cannot read the file: ENOENT`]);
  });

  it('lets petstore keys and the admin API name a plan of the file', () => {
    const loaded = loadConfig({ PETSTORE_PLANS: fileOf('keys.json', SEARCH) });
    if (!loaded.ok) throw new Error(loaded.error.join('\n'));
    const { plans } = loaded.value;
    const names = (field: string) => field;
    expect(readNewKey({ plan: 'search' }, names, plans)).toEqual({ ok: true, value: { plan: plans.get('search'), role: 'customer', label: '' } });
    expect(readKeyChanges({ plan: 'search' }, names, plans)).toEqual({ ok: true, value: { plan: plans.get('search') } });
    expect(readKeyChanges({ plan: 'search', perDay: '5' }, names, plans)).toEqual({ ok: false, error: 'perMinute and perDay are for plan enterprise; search has its own limits' });
    expect(readNewKey({ plan: 'gold' }, names, plans)).toEqual({ ok: false, error: 'plan "gold": must be one of free, pro, business, enterprise, search' });
    expect(readNewKey({ plan: 'search' }, names)).toEqual({ ok: false, error: 'plan "search": must be one of free, pro, business, enterprise' });
  });

  it('lets petstore keys create --plan name a plan of the file given by --plans or PETSTORE_PLANS', () => {
    const path = fileOf('cli.json', SEARCH);
    const created = parseKeysArgs(['create', '--plan', 'search', '--plans', path], {});
    expect(created.ok && created.value.action).toMatchObject({ kind: 'create', key: { plan: { name: 'search' }, role: 'customer' } });
    expect(parseKeysArgs(['update', 'key_1', '--plan', 'search'], { PETSTORE_PLANS: path }).ok).toBe(true);
    expect(parseKeysArgs(['create', '--plan', 'search'], {})).toEqual({ ok: false, error: '--plan "search": must be one of free, pro, business, enterprise' });
  });
  it("reads a match's routes, `METHOD /path`, as the operationIds they name, and refuses a route the API has not, naming its path", () => {
    const parsed = parsePlansFile(JSON.stringify({ plans: { p: { rules: [minute, { name: 'writes', limit: 5, window: '1m', match: ['POST /pets', 'placeOrder'] }] } } }), CONTEXT);
    if (!parsed.ok) throw new Error(parsed.error.join('\n'));
    expect(parsed.value.get('p')?.rules[1]?.match).toEqual(['createPet', 'placeOrder']);
    expect(problemsOf({ plans: { p: { rules: [minute, { name: 'w', limit: 5, window: '1m', match: ['DELETE /pets', 'POST /pets', 'createPet'] }] } } })).toEqual([
      'plans.p.rules[1].match[0]: "DELETE /pets" is not a route of the API; expected one of GET /pets, POST /pets, POST /store/orders',
      'plans.p.rules[1].match: names an operation twice',
    ]);
  });
});
