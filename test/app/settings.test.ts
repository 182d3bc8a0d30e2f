import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { describe, expect, it } from 'vitest';
import { KEYS_USAGE, parseKeysArgs } from '../../src/app/cli/keys-command.js';
import { MIGRATE_USAGE, parseMigrateArgs } from '../../src/app/cli/migrate-command.js';
import { SERVER_FLAGS, USAGE } from '../../src/app/cli/server-usage.js';
import { flagOptions, withFlags } from '../../src/app/cli/setting-flags.js';
import { ALL_SECTIONS, DATABASE_SECTIONS, loadConfig, loadSettings, loadStoreSettings, SETTINGS, STORE_SECTIONS } from '../../src/app/config/config.js';
import type { SectionName, Setting } from '../../src/app/config/setting.js';
import { SETTINGS_TABLE_END, SETTINGS_TABLE_START, withSettingsTable } from '../../src/app/config/settings-markdown.js';

const ALL: readonly Setting<unknown>[] = Object.values(SETTINGS);
const flagged = (sections: readonly SectionName[]): Setting<unknown>[] =>
  ALL.filter((setting) => setting.flag !== undefined && (setting.section === 'environment' || sections.includes(setting.section)));

describe('the settings table', () => {
  it('names each variable and each flag once', () => {
    const variables = ALL.map(({ variable }) => variable);
    const flags = ALL.flatMap(({ flag }) => (flag === undefined ? [] : [flag]));
    expect(new Set(variables).size).toBe(variables.length);
    expect(new Set(flags).size).toBe(flags.length);
  });

  it('gives secrets no flag: a command line shows in the process list', () => {
    expect(ALL.filter((setting) => setting.secret && setting.flag !== undefined).map(({ variable }) => variable)).toEqual(['PETSTORE_API_KEYS']);
  });

  it('is the table of docs/configuration.md (npm run docs:settings), every setting in it', async () => {
    const doc = await readFile(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    expect(doc).toContain(SETTINGS_TABLE_START);
    expect(doc).toContain(SETTINGS_TABLE_END);
    expect(withSettingsTable(doc)).toBe(doc);
    for (const { variable } of ALL) expect(doc, variable).toContain(`| \`${variable}\` |`);
  });
});

describe('the flags of every command come from the table', () => {
  it('petstore: every setting with a flag is accepted, wins over its variable and is in the usage', () => {
    const settings = flagged(ALL_SECTIONS);
    expect(SERVER_FLAGS).toEqual(settings);
    for (const { flag, variable, metavar } of settings) {
      const { values } = parseArgs({ args: [`--${flag}`, 'given'], options: flagOptions(SERVER_FLAGS), strict: true });
      expect(withFlags({ [variable]: 'set' }, values, SERVER_FLAGS)[variable], variable).toBe('given');
      expect(USAGE).toContain(`[--${flag} ${metavar}]`);
    }
  });

  it('petstore keys: every setting with a flag of the store sections', () => {
    const settings = flagged(STORE_SECTIONS);
    expect(settings.map(({ flag }) => flag)).toEqual(expect.arrayContaining(['env', 'store', 'redis-url', 'redis-cluster-nodes', 'redis-prefix', 'database-url']));
    for (const { flag, variable, metavar } of settings) {
      const parsed = parseKeysArgs(['list', `--${flag}`, 'given'], { [variable]: 'set' });
      expect(parsed.ok && parsed.value.environ[variable], variable).toBe('given');
      expect(KEYS_USAGE).toContain(`[--${flag} ${metavar}]`);
    }
    expect(parseKeysArgs(['list', '--port', '1'], {}).ok, 'a flag of a section it does not read').toBe(false);
  });

  it('petstore migrate: every setting with a flag of the database sections', () => {
    const settings = flagged(DATABASE_SECTIONS);
    expect(settings.map(({ flag }) => flag)).toContain('database-url');
    for (const { flag, variable, metavar } of settings) {
      const parsed = parseMigrateArgs([`--${flag}`, 'given'], { [variable]: 'set' });
      expect(parsed.ok && parsed.value.environ[variable], variable).toBe('given');
      expect(MIGRATE_USAGE).toContain(`[--${flag} ${metavar}]`);
    }
    expect(parseMigrateArgs(['--store', 'redis'], {}).ok, 'a flag of a section it does not read').toBe(false);
  });
});

describe('commands read the sections they need', () => {
  it('reads only the sections named: a mistake elsewhere is not theirs', () => {
    const environ = { PORT: 'eighty', PETSTORE_STORE: 'redis', PETSTORE_REDIS_PREFIX: 'shop:' };
    expect(loadSettings(environ, ['store', 'redis'])).toMatchObject({ ok: true, value: { environment: 'development', store: 'redis', redisPrefix: 'shop:' } });
    expect(loadSettings(environ, ['http'])).toEqual({ ok: false, error: ['PORT="eighty": must be a whole number from 0 to 65535'] });
  });

  it('reads the store settings of production without PETSTORE_API_KEYS, which only a server needs', () => {
    const environ = { PETSTORE_ENV: 'production', REDIS_URL: 'redis://10.0.0.1:6379', PETSTORE_BAN_STRIKES: '5' };
    expect(loadConfig({ ...environ, PETSTORE_STORE: 'memory' })).toEqual({ ok: false, error: ['PETSTORE_API_KEYS is required in production: comma-separated KEY:PLAN entries'] });
    expect(loadStoreSettings(environ)).toMatchObject({ ok: true, value: { store: 'redis', redisUrl: 'redis://10.0.0.1:6379', ban: { strikes: 5 } } });
  });

  it('reports an invalid PETSTORE_API_KEYS entry once, not also as missing', () => {
    const loaded = loadConfig({ PETSTORE_ENV: 'production', PETSTORE_STORE: 'memory', PETSTORE_API_KEYS: 'short:pro' });
    expect(loaded).toEqual({ ok: false, error: ['PETSTORE_API_KEYS: entry 1: the key must be 8 to 256 characters of letters, digits or ._~+/=-'] });
  });

  it('applies the rules of a section wherever it is read: REDIS_URL beside REDIS_CLUSTER_NODES', () => {
    const environ = { REDIS_URL: 'redis://10.0.0.1:6379', REDIS_CLUSTER_NODES: '10.0.0.1:7000' };
    for (const loaded of [loadConfig(environ), loadStoreSettings(environ)]) {
      expect(loaded).toEqual({ ok: false, error: [expect.stringMatching(/^REDIS_URL and REDIS_CLUSTER_NODES are both set/)] });
    }
  });
});
