import { readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
import { HEADLINE_END, HEADLINE_START, withHeadline, type BenchResults } from '../../bench/http/report.js';

const repo = new URL('../../', import.meta.url);

it("the README's headline benchmark table is the one the last full run wrote (npm run bench), not typed", async () => {
  const readme = await readFile(new URL('README.md', repo), 'utf8');
  const results = JSON.parse(await readFile(new URL('bench/results/latest.json', repo), 'utf8')) as BenchResults;
  expect(readme).toContain(HEADLINE_START);
  expect(readme).toContain(HEADLINE_END);
  expect(withHeadline(readme, results)).toBe(readme);
});
