import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/app/config/config.js';

/*
 * examples/systemd/: the unit under `systemd-analyze verify` (which needs no running systemd: it
 * reads the unit from a directory of this test's own, its ExecStart pointed at this machine's
 * node), and its environment file read as the server reads its settings. systemd-analyze comes
 * with Debian's systemd package; without it the verification is skipped, saying so.
 */

const read = (name: string): string => readFileSync(new URL(`../../examples/systemd/${name}`, import.meta.url), 'utf8');
const UNIT = read('petstore.service');
const ENV_FILE = read('petstore.env');
const systemdAnalyze = spawnSync('systemd-analyze', ['--version']).status === 0;
const SKIPPED = '(skipped without systemd-analyze on PATH: apt-get install systemd)';

const dir = mkdtempSync(join(tmpdir(), 'petstore-systemd-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The unit with its ExecStart's executable replaced by this machine's node, which verify requires to exist. */
const HERE = UNIT.replace(/^ExecStart=\S+/m, `ExecStart=${process.execPath}`);

/**
 * `systemd-analyze verify` of a unit: what it printed, '' when it has nothing to say. It reports an
 * unknown key or a value it cannot parse as a warning and exits 0, so anything printed is a problem.
 */
function verify(unit: string, name: string): string {
  const path = join(dir, name);
  writeFileSync(path, unit);
  const run = spawnSync('systemd-analyze', ['verify', '--man=no', '--generators=no', path], { encoding: 'utf8' });
  return `${run.stdout}${run.stderr}`.trim() + (run.status === 0 ? '' : `\n(exit ${run.status})`);
}

/** The environment file as systemd reads it: VARIABLE=value lines, comments and blank lines skipped. */
const environOf = (text: string): Record<string, string> =>
  Object.fromEntries(
    text
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.startsWith('#'))
      .map((line) => {
        const at = line.indexOf('=');
        if (at < 1) throw new Error(`not VARIABLE=value: ${line}`);
        return [line.slice(0, at), line.slice(at + 1)];
      }),
  );

/** A unit's setting, the last one given (as systemd takes it). */
const directive = (unit: string, key: string): string | undefined => [...unit.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].at(-1)?.[1];

describe('the systemd unit example', () => {
  it.skipIf(!systemdAnalyze)(`passes systemd-analyze verify with nothing to say ${SKIPPED}`, () => {
    expect(verify(HERE, 'petstore.service')).toBe('');
  });

  it.skipIf(!systemdAnalyze)(`fails a broken unit: an unknown key, a bad value, an executable missing, no ExecStart ${SKIPPED}`, () => {
    expect(verify(HERE.replace('Restart=on-failure', 'Restrt=on-failure'), 'typo.service')).toContain("Unknown key 'Restrt'");
    expect(verify(HERE.replace('KillMode=mixed', 'KillMode=gentle'), 'bad-value.service')).toContain('Failed to parse kill mode');
    expect(verify(UNIT.replace(/^ExecStart=\S+/m, 'ExecStart=/nonexistent/node'), 'missing.service')).toContain('is not executable');
    expect(verify(HERE.replace(/^ExecStart=.*$/m, ''), 'no-exec.service')).toContain('no ExecStart=');
  });

  it('runs the CLI, restarts it on failure and stops it with SIGTERM, waiting longer than the shutdown its settings allow', () => {
    const { name, bin } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { name: string; bin: Record<string, string> };
    expect(directive(UNIT, 'ExecStart')).toMatch(new RegExp(`^/\\S+/node /\\S+/node_modules/${name}/${bin['petstore']!.replace(/^\.\//, '')}$`));
    expect(directive(UNIT, 'Restart')).toBe('on-failure');
    expect(directive(UNIT, 'KillSignal')).toBe('SIGTERM');
    expect(directive(UNIT, 'EnvironmentFile')).toBe('/etc/petstore/petstore.env');
    const config = loadConfig(environOf(ENV_FILE));
    if (!config.ok) throw new Error(`examples/systemd/petstore.env: ${config.error.join('; ')}`);
    const shutdownSeconds = config.value.drainSeconds + config.value.shutdownGraceMs / 1_000;
    const timeout = /^([0-9]+)s$/.exec(directive(UNIT, 'TimeoutStopSec') ?? '');
    expect(Number(timeout?.[1])).toBeGreaterThan(shutdownSeconds);
  });

  it('is hardened: no new privileges, no capabilities, the file system read-only to it', () => {
    for (const [key, value] of Object.entries({ NoNewPrivileges: 'yes', ProtectSystem: 'strict', ProtectHome: 'yes', PrivateTmp: 'yes', CapabilityBoundingSet: '' })) {
      expect(directive(UNIT, key), key).toBe(value);
    }
    // V8 writes the code it compiles into memory it then executes.
    expect(directive(UNIT, 'MemoryDenyWriteExecute')).toBeUndefined();
  });
});
