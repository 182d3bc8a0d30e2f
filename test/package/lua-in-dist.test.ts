import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { QUOTA_CALLS_LUA } from '../../src/adapters/redis/quota-script.lua.js';

const SOURCES = 'src/adapters/redis/lua/';
const BUILT = 'dist/src/adapters/redis/lua/';

/* What runs from the build is what the sources say: the .lua files shipped and the scripts composed of them. */
describe('the Lua in the build', () => {
  it('is every .lua source byte for byte, and the built module composes the same quota script as the sources', async () => {
    const files = readdirSync(SOURCES).sort();
    expect(readdirSync(BUILT).sort()).toEqual(files);
    for (const file of files) expect(readFileSync(`${BUILT}${file}`, 'utf8'), file).toBe(readFileSync(`${SOURCES}${file}`, 'utf8'));
    const built = (await import(`${process.cwd()}/dist/src/adapters/redis/quota-script.lua.js`)) as { QUOTA_CALLS_LUA: string };
    expect(built.QUOTA_CALLS_LUA).toBe(QUOTA_CALLS_LUA);
  });

  it('is in the packed package', () => {
    const [pack] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { encoding: 'utf8' })) as { files: { path: string }[] }[];
    const packed = pack!.files.map(({ path }) => path).filter((path) => path.startsWith(BUILT));
    expect(packed.sort()).toEqual(readdirSync(SOURCES).map((file) => `${BUILT}${file}`).sort());
  });
});
