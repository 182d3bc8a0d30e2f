import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, startCli } from '../support/cli-process.js';

describe('the standalone server (CLI)', () => {
  it('starts with no configuration, prints a demo key per plan, a staff key and a curl line that works', async () => {
    const cli = startCli({ PORT: '0' });
    try {
      const [, curlKey = '', url = ''] = await cli.waitFor(/curl -i -H 'Authorization: Bearer (\S+)' '(\S+)'/);
      for (const plan of ['free', 'pro', 'business', 'enterprise']) expect(cli.output()).toMatch(new RegExp(`${plan}\\s+demo-${plan}-`));
      expect(cli.output(), 'and one staff key, to try what only staff may do').toMatch(/pro staff\s+demo-staff-/);
      const response = await fetch(url, { headers: { authorization: `Bearer ${curlKey}` } });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual([]);
    } finally {
      cli.kill();
    }
    expect(await cli.exited()).toBe(0);
  });

  it('prints a demo key per plan of the plans file too, with its rules, and the key is limited by them', async () => {
    const cli = startCli({ PORT: '0', PETSTORE_PLANS: 'examples/plans/github-like.json' });
    try {
      const [, url = ''] = await cli.waitFor(/listening on (\S+)/);
      const [, trialKey = ''] = await cli.waitFor(/trial\s+(demo-trial-\S+) {2}\(hour 60\/1h; search 10\/1m on listPets\)/);
      expect(cli.output()).toMatch(/developer\s+demo-developer-\S+ {2}\(hour 5000\/1h; search 30\/1m on listPets; writes 80\/1m on /);
      const response = await fetch(`${url}/pets`, { headers: { authorization: `Bearer ${trialKey}` } });
      expect(response.headers.get('ratelimit-policy')).toBe('"hour";q=60;w=3600, "search";q=10;w=60');
    } finally {
      cli.kill();
    }
    expect(await cli.exited()).toBe(0);
  });

  it('keeps stdout to JSON log lines: the start banner (listening on, admin, demo keys) goes to stderr', async () => {
    const cli = startCli({ PORT: '0', PETSTORE_ENV: 'production', PETSTORE_STORE: 'memory', PETSTORE_API_KEYS: 'prod-key-123:pro', PETSTORE_ADMIN_PORT: '0' });
    try {
      await cli.waitFor(/Admin listening on/);
      await cli.waitFor(/"msg":"started"/);
    } finally {
      cli.kill();
    }
    await cli.exited();
    const lines = cli.stdout().split('\n').filter((line) => line !== '');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(() => JSON.parse(line) as unknown, line).not.toThrow();
  });

  it('refuses to start with one clear line per configuration mistake', async () => {
    const cli = startCli({ PORT: 'eighty', PETSTORE_ENV: 'production', PETSTORE_STORE: 'disk', PETSTORE_QUOTA_FALLBACK: 'maybe' });
    expect(await cli.exited()).toBe(1);
    const lines = cli.output().trim().split('\n');
    expect(lines).toEqual([
      'petstore: PORT="eighty": must be a whole number from 0 to 65535',
      'petstore: PETSTORE_STORE="disk": must be one of memory, redis, postgres, pglite',
      'petstore: PETSTORE_QUOTA_FALLBACK="maybe": must be one of local, allow, deny',
    ]);
  });

  it('refuses to start in production, in one line, when its Redis cannot be reached', async () => {
    const cli = startCli({ PORT: '0', PETSTORE_ENV: 'production', PETSTORE_API_KEYS: 'prod-key-123:pro', REDIS_URL: 'redis://127.0.0.1:1' });
    expect(await cli.exited()).toBe(1);
    expect(cli.output().trim()).toBe('petstore: Redis at redis://127.0.0.1:1 is unavailable (connection refused)');
  });

  it('refuses each whole-number flag past its range before starting, one line naming its variable and the range', async () => {
    const cli = startCli({ PETSTORE_STORE: 'redis' }, [
      ...['--port', '65536', '--pg-pool', '0', '--pg-timeout-ms', '60001', '--admin-port', '70000'],
      ...['--shutdown-grace-ms', '600001', '--drain-seconds', '601', '--workers', '257'],
    ]);
    expect(await cli.exited()).toBe(1);
    expect(cli.output().trim().split('\n')).toEqual([
      'petstore: PORT="65536": must be a whole number from 0 to 65535',
      'petstore: PETSTORE_PG_POOL="0": must be a whole number from 1 to 1000',
      'petstore: PETSTORE_PG_TIMEOUT_MS="60001": must be a whole number from 100 to 60000',
      'petstore: PETSTORE_ADMIN_PORT="70000": must be a whole number from 0 to 65535',
      'petstore: PETSTORE_SHUTDOWN_GRACE_MS="600001": must be a whole number from 0 to 600000',
      'petstore: PETSTORE_DRAIN_SECONDS="601": must be a whole number from 0 to 600',
      'petstore: PETSTORE_WORKERS="257": must be auto or a whole number from 1 to 256',
    ]);
  });

  it('takes flags that mirror the environment variables', async () => {
    const cli = startCli({}, ['--port', '0', '--api-keys', 'flag-key-123:pro', '--env', 'test']);
    try {
      const [, url = ''] = await cli.waitFor(/listening on (\S+)/);
      expect(cli.output()).toContain('(test, memory store)');
      const response = await fetch(`${url}/pets`, { headers: { authorization: 'Bearer flag-key-123' } });
      expect(response.headers.get('x-ratelimit-limit')).toBe('300');
    } finally {
      cli.kill();
    }
    expect(await cli.exited()).toBe(0);
  });

  it('on SIGTERM stops accepting, finishes the request in flight, and exits 0', async () => {
    const cli = startCli({ PORT: '0', PETSTORE_ENV: 'test', PETSTORE_API_KEYS: 'slow-key-123:pro' });
    const [, url = ''] = await cli.waitFor(/listening on (\S+)/);
    const { hostname, port } = new URL(url);
    // A create whose body is still arriving when the signal comes.
    const answered = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        { hostname, port, method: 'POST', path: '/v1/pets', headers: { authorization: 'Bearer slow-key-123', 'content-type': 'application/json' } },
        (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.write('{"name":"Late",');
      setTimeout(() => {
        cli.kill('SIGTERM');
        setTimeout(() => req.end('"categoryId":7}'), 300);
      }, 200);
    });
    const response = await answered;
    expect(response.status).toBe(201);
    expect(JSON.parse(response.body)).toMatchObject({ name: 'Late', categoryId: 7 });
    expect(await cli.exited()).toBe(0);
    await expect(fetch(`${url}/pets`)).rejects.toThrow();
  });

  it('prints its usage on --help (exit 0), and on an unknown flag with the reason (exit 2), as petstore keys does', async () => {
    const help = startCli({}, ['--help']);
    expect(await help.exited()).toBe(0);
    expect(help.output()).toMatch(/^Usage: petstore \[--env development\|test\|staging\|production\]/);
    expect(help.output()).toContain('petstore keys create|update|show|unban|reset|roll|list|revoke|credits|usage');

    const unknown = startCli({}, ['--port', '0', '--colour', 'red']);
    expect(await unknown.exited()).toBe(2);
    expect(unknown.output()).toMatch(/^petstore: Unknown option '--colour'.*\nUsage: petstore \[--env development\|test\|staging\|production\]/s);

    const keysHelp = startCli({}, ['keys', '--help']);
    expect(await keysHelp.exited()).toBe(0);
    expect(keysHelp.output()).toMatch(/^Usage: petstore keys create --plan/);

    const keysUnknown = startCli({}, ['keys', 'list', '--colour', 'red']);
    expect(await keysUnknown.exited()).toBe(2);
    expect(keysUnknown.output()).toMatch(/^petstore keys: Unknown option '--colour'.*\nUsage: petstore keys create/s);
  });

  it('answers its usages and the keys refusal without loading the server, the container or its packages', async () => {
    // A load hook logs every module the command loads (not those it only resolves, as its check of the installed packages does).
    const dir = mkdtempSync(join(tmpdir(), 'petstore-cli-loads-'));
    try {
      writeFileSync(
        join(dir, 'hooks.mjs'),
        "import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) {\n" +
          '  appendFileSync(process.env.LOAD_LOG, url + "\\n");\n  return next(url, context);\n}\n',
      );
      writeFileSync(join(dir, 'register.mjs'), "import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\n");
      for (const args of [['--help'], ['keys', '--help'], ['migrate', '--help'], ['keys', 'list']]) {
        const log = join(dir, `${args.join('-')}.log`);
        writeFileSync(log, '');
        const { code } = await runCli({ NODE_OPTIONS: `--import=${join(dir, 'register.mjs')}`, LOAD_LOG: log }, args);
        expect(code, args.join(' ')).toBe(args[1] === 'list' ? 1 : 0);
        const loaded = readFileSync(log, 'utf8').split('\n');
        expect(loaded.some((url) => /\/cli\/(keys-command|migrate-command|server-usage)\.js$/.test(url)), 'the hook saw the command').toBe(true);
        const heavy = loaded.filter((url) => /\/node_modules\/(typebox|find-my-way|inversify|ioredis|postgres|pino|prom-client)\/|\/(pet-store-app|request-handler)\.js$/.test(url));
        expect(heavy, args.join(' ')).toEqual([]);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses petstore keys with the memory store, saying why, exit 1', async () => {
    const cli = startCli({}, ['keys', 'list']);
    expect(await cli.exited()).toBe(1);
    expect(cli.output()).toMatch(/^petstore keys: the memory store lives inside each server process.*PETSTORE_STORE=redis/);
  });
});
