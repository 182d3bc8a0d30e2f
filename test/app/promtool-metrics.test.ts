import { execFileSync, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { startPetStore } from '../../src/app/start-pet-store.js';

/*
 * A scrape of /metrics as Prometheus's own linter reads it (`promtool check metrics`: counters
 * end in _total, unit suffixes, help text). promtool comes with Debian's prometheus package;
 * without it the test is skipped, saying so.
 */

const promtool = spawnSync('promtool', ['--version']).status === 0;

describe('the metrics scrape under promtool check metrics', () => {
  it.skipIf(!promtool)('has no problem (skipped without promtool on PATH: apt-get install prometheus)', async () => {
    const server = await startPetStore({ PETSTORE_ENV: 'test', PORT: '0', PETSTORE_ADMIN_PORT: '0', PETSTORE_API_KEYS: 'promtool-key-1:pro' });
    try {
      await fetch(`${server.baseUrl}/pets`, { headers: { authorization: 'Bearer promtool-key-1' } });
      await fetch(`${server.baseUrl}/pets`);
      const scrape = await (await fetch(`${server.adminUrl}/metrics`)).text();
      let problems = '';
      try {
        execFileSync('promtool', ['check', 'metrics'], { input: scrape, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
      } catch (error) {
        const failed = error as { stdout?: string; stderr?: string };
        problems = `${failed.stdout ?? ''}${failed.stderr ?? ''}`;
      }
      expect(problems).toBe('');
    } finally {
      await server.close(0, 0);
    }
  });
});
