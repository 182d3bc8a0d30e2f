import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { KEYS_USAGE } from '../../src/app/cli/keys-command.js';

/*
 * The "Operating keys" walk-through of docs/keys.md and its admin API session replay by hand exactly
 * as printed: scripts/operating-keys.sh prints each step as written in it (a here-document),
 * then runs it, and the guide's commands are, in order and character for character, those steps.
 */

const repo = new URL('../../', import.meta.url);
const GUIDE = 'docs/keys.md';
const WALK_THROUGH = '## Operating keys: a walk-through';

/**
 * The commands of the guide's walk-through (to the end of the guide: the admin API's session follows it):
 * each `$ ` line, with the lines a trailing backslash continues.
 */
async function readmeCommands(): Promise<string[]> {
  const readme = await readFile(new URL(GUIDE, repo), 'utf8');
  const start = readme.indexOf(WALK_THROUGH);
  expect(start).toBeGreaterThan(-1);
  const section = readme.slice(start);
  const commands: string[] = [];
  let pending: string[] | undefined;
  for (const line of section.split('\n')) {
    if (pending !== undefined) pending.push(line);
    else if (line.startsWith('$ ')) pending = [line.slice(2)];
    else continue;
    if (!line.endsWith('\\')) {
      commands.push(pending.join('\n'));
      pending = undefined;
    }
  }
  return commands;
}

/** The steps the script shows: the body of each `show <<'EOF'` here-document. */
async function scriptCommands(): Promise<string[]> {
  const script = await readFile(new URL('scripts/operating-keys.sh', repo), 'utf8');
  return [...script.matchAll(/^show <<'EOF'\n([\s\S]*?)\nEOF$/gm)].map((match) => match[1] ?? '');
}

describe("docs/keys.md's Operating keys walk-through", () => {
  it('is, command for command, what scripts/operating-keys.sh shows and runs', async () => {
    const [readme, script] = await Promise.all([readmeCommands(), scriptCommands()]);
    expect(script.length).toBeGreaterThan(30);
    expect(readme).toEqual(script);
  });

  it('covers every verb, through petstore keys and through the admin API', async () => {
    const commands = await scriptCommands();
    for (const verb of ['create', 'update', 'show', 'unban', 'roll', 'revoke', 'list']) {
      expect(commands.some((command) => command.startsWith(`petstore keys ${verb} `) || command === `petstore keys ${verb}`)).toBe(true);
    }
    const calls = (method: string, path: string): boolean =>
      commands.some((command) => command.startsWith('curl ') && (method === 'GET' ? !command.includes(' -X ') : command.includes(` -X ${method} `)) && command.endsWith(` ${path}`));
    for (const [method, path] of [
      ['POST', '$ADMIN/keys'],
      ['GET', '$ADMIN/keys'],
      ['GET', '$ADMIN/keys/$ID'],
      ['PATCH', '$ADMIN/keys/$ID'],
      ['POST', '$ADMIN/keys/$ID/unban'],
      ['POST', '$ADMIN/keys/$ID/roll'],
      ['POST', '$ADMIN/keys/$ID/revoke'],
    ] as const) {
      expect(calls(method, path), `${method} ${path}`).toBe(true);
    }
  });

  it('prints `petstore keys --help` as the command prints it', async () => {
    const readme = await readFile(new URL(GUIDE, repo), 'utf8');
    expect(readme).toContain(`\`\`\`\n${KEYS_USAGE}\n\`\`\``);
  });
});
