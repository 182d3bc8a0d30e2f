import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

/*
 * The README's curl session replays by hand exactly as printed: its commands are, in order, the
 * ones scripts/curl-session.sh runs against a fresh server (which shows every request it makes).
 */

const repo = new URL('../../', import.meta.url);

/** One spelling of a command: the script's shell variables written out, quotes and spacing dropped. */
const normalized = (command: string): string =>
  command
    .replaceAll('"$H"', '"Authorization: Bearer $KEY"')
    .replaceAll('"$J"', "'Content-Type: application/json'")
    .replaceAll('for _ in', 'for i in')
    .replaceAll(/["']/g, '')
    .replaceAll(/\s+/g, ' ')
    .trim();

async function readmeCommands(): Promise<string[]> {
  const readme = await readFile(new URL('README.md', repo), 'utf8');
  const start = readme.indexOf('## A curl session');
  expect(start).toBeGreaterThan(-1);
  // The section runs to the next heading of its level.
  const end = readme.indexOf('\n## ', start);
  const section = readme.slice(start, end === -1 ? undefined : end);
  const commands: string[] = [];
  let pending: string | undefined;
  for (const line of section.split('\n')) {
    if (pending !== undefined) {
      pending += ` ${line.trim()}`;
    } else if (line.startsWith('$ ')) {
      pending = line.slice(2);
    } else {
      continue;
    }
    if (pending.endsWith('\\')) {
      pending = pending.slice(0, -1);
      continue;
    }
    // `... the same again` repeats the command before it; a trailing `# comment` is for the reader.
    const command = pending.includes('... the same again') ? (commands.at(-1) ?? '') : pending.replace(/\s{2,}#.*$/, '');
    commands.push(normalized(command));
    pending = undefined;
  }
  return commands;
}

async function scriptCommands(): Promise<string[]> {
  const script = await readFile(new URL('scripts/curl-session.sh', repo), 'utf8');
  return script
    .split('\n')
    .filter((line) => line.startsWith('show curl') || (line.startsWith('for _ in') && line.includes('curl')))
    .map((line) => normalized(line.replace(/^show /, '').replace(/; echo; echo$/, '')));
}

describe("the README's curl session", () => {
  it('is, command for command, what scripts/curl-session.sh runs', async () => {
    const [readme, script] = await Promise.all([readmeCommands(), scriptCommands()]);
    expect(readme.length).toBeGreaterThan(20);
    expect(readme).toEqual(script);
  });
});
