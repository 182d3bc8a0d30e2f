import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PET_STORE_OPERATION_IDS } from '../../src/adapters/http/contract/pet-store-routes.js';
import { parsePlansFile } from '../../src/app/config/plans-file.js';
import { startPetStore, type RunningPetStore } from '../../src/app/start-pet-store.js';
import { ManualClock } from '../support/manual-clock.js';

/*
 * docs/plans.md holds to the code: its example plans are the files of examples/plans/ byte for
 * byte, its list of operationIds is the API's, its window examples are the validator's, and its
 * session replays, command for command and line for line, against a server on the GitHub-like
 * file (a manual clock makes every time exact).
 */

const repo = new URL('../../', import.meta.url);
const guide = readFileSync(new URL('docs/plans.md', repo), 'utf8');
const SESSION = '## A session on the GitHub-like plans';

/** The section of the guide under `heading`, to the next heading of its level. */
const section = (heading: string): string => {
  const start = guide.indexOf(heading);
  expect(start, heading).toBeGreaterThan(-1);
  const end = guide.indexOf('\n## ', start + heading.length);
  return guide.slice(start, end === -1 ? undefined : end);
};

interface Step {
  readonly command: string;
  /** The lines shown under the command: status line, the header fields shown, the body. */
  readonly shown: readonly string[];
}

/** The `$ ` commands of the session's code blocks, each with the lines printed under it. */
const sessionSteps = (): Step[] => {
  const steps: { command: string; shown: string[] }[] = [];
  for (const block of section(SESSION).matchAll(/^```\n([\s\S]*?)^```$/gm)) {
    for (const line of (block[1] ?? '').split('\n')) {
      if (line.startsWith('$ ')) steps.push({ command: line.slice(2), shown: [] });
      else if (line !== '') steps.at(-1)?.shown.push(line);
    }
  }
  return steps;
};

interface Call {
  readonly method: string;
  readonly path: string;
  readonly body: string | undefined;
}

/** The one request a `curl` command of the session makes: `-X METHOD`, `-d 'BODY'` (a POST), `"$B/PATH"`. */
const callOf = (command: string): Call => {
  const path = /"\$B(\/[^"]*)"/.exec(command)?.[1];
  expect(path, command).toBeDefined();
  const body = /-d '([^']*)'/.exec(command)?.[1];
  const method = /-X ([A-Z]+)/.exec(command)?.[1] ?? (body === undefined ? 'GET' : 'POST');
  return { method, path: path!, body };
};

describe('docs/plans.md', () => {
  it('shows each example plans file as it is', () => {
    for (const file of ['github-like.json', 'stripe-like.json', 'mobile.json', 'concurrency.json', 'credits.json']) {
      const text = readFileSync(new URL(`examples/plans/${file}`, repo), 'utf8');
      expect(guide, file).toContain(`[examples/plans/${file}](../examples/plans/${file})`);
      expect(guide, file).toContain(`\`\`\`json\n${text}\`\`\``);
    }
  });

  it('lists every operationId a rule may match, and no other', () => {
    const listed = [...section('### The operations').matchAll(/^\| `([A-Za-z]+)` \|/gm)].map((match) => match[1]);
    expect(listed).toEqual(PET_STORE_OPERATION_IDS);
  });

  it('tells the windows a file accepts from those it refuses as the validator does', () => {
    const accepts = (window: string | number): boolean =>
      parsePlansFile(JSON.stringify({ plans: { p: { rules: [{ name: 'w', limit: 1, window }] } } }), { operations: [], reservedRuleNames: [] }).ok;
    for (const window of ['3s', '15s', '30s', '90s', '9s', '12s', '21s', '1m', '1h', '1d', '366d', 1_020]) expect(accepts(window), String(window)).toBe(true);
    for (const window of ['1s', '10s', '20s', '367d', 960]) expect(accepts(window), String(window)).toBe(false);
  });

  it('tells the burst rules a file accepts from those it refuses as the validator does, with the refill times it gives', () => {
    const read = (burst: number, rate: number, per: string | number) => {
      const parsed = parsePlansFile(JSON.stringify({ plans: { p: { rules: [{ name: 'b', burst, rate, per }] } } }), { operations: [], reservedRuleNames: [] });
      return parsed.ok ? parsed.value.get('p')?.rules[0]?.windowMs : undefined;
    };
    const burstRules = section('### Burst rules');
    expect(burstRules).toContain('`50` at `10` per `"1s"` refills in 5000 ms, `5` at `2` per `"1s"` in\n  2500 ms');
    expect([read(50, 10, '1s'), read(5, 2, '1s'), read(10, 3, '1s')]).toEqual([5_000, 2_500, undefined]);
    expect(burstRules).toContain('burst of `9` or `12`, or `10` at `1` per `300` milliseconds');
    expect([read(9, 3, '1s'), read(12, 3, '1s'), read(10, 1, 300)]).toEqual([3_000, 4_000, 3_000]);
  });

  describe('its session', () => {
    const KEY = 'gh-trial-key-1';
    let store: RunningPetStore;
    beforeAll(async () => {
      // Aligned to a minute, so the session's times read as round numbers.
      const clock = new ManualClock(1_800_000_000_000);
      store = await startPetStore(
        { PETSTORE_ENV: 'test', PETSTORE_LOG_LEVEL: 'silent', HOST: '127.0.0.1', PORT: '0', PETSTORE_PLANS: new URL('examples/plans/github-like.json', repo).pathname, PETSTORE_API_KEYS: `${KEY}:trial` },
        { clock },
      );
    });
    afterAll(async () => {
      await store.close(0, 0);
    });

    const send = async ({ method, path, body }: Call): Promise<Response> =>
      fetch(`${store.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body }),
      });

    it('replays, every line shown as the server answers it', async () => {
      const steps = sessionSteps();
      expect(steps.length).toBeGreaterThanOrEqual(5);
      for (const { command, shown } of steps) {
        const loop = /^for i in \$\(seq (\d+)\); do (curl .*); done$/.exec(command);
        if (loop !== null) {
          // A loop prints nothing: it only spends.
          expect(shown, command).toEqual([]);
          for (let i = 0; i < Number(loop[1]); i++) await (await send(callOf(loop[2]!))).arrayBuffer();
          continue;
        }
        expect(command, 'a curl that shows the answer').toMatch(/^curl -si /);
        const response = await send(callOf(command));
        const text = await response.text();
        const [status = '', ...rest] = shown;
        expect(status, command).toBe(`HTTP/1.1 ${response.status} ${response.statusText}`);
        for (const line of rest) {
          const field = /^([a-z-]+): (.*)$/.exec(line);
          if (field === null) expect(line, `${command}: its body`).toBe(text);
          else expect(`${field[1]}: ${response.headers.get(field[1]!) ?? '(absent)'}`, command).toBe(line);
        }
      }
    });
  });
});
