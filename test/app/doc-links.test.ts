import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/*
 * Every link of the README and the guides is relative and reaches a file of the repository, and
 * every `#anchor` names a heading of its target: the package ships README.md and docs/, so a link
 * that leaves the repository (`](../` from the README) or names a file that moved is broken for
 * its readers on npm and on GitHub alike.
 */

const REPO = fileURLToPath(new URL('../../', import.meta.url));

const documents = [
  'README.md',
  'bench/README.md',
  ...readdirSync(join(REPO, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The text outside fenced code blocks and inline code, where a `](...)` is a link. */
function prose(markdown: string): string {
  return markdown.replaceAll(/^```[\s\S]*?^```/gm, '').replaceAll(/`[^`\n]*`/g, '');
}

/** `[text](target)` and `![alt](target)` links, with an optional title after the target. */
function links(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => match[1] ?? '');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replaceAll(/[^\p{L}\p{N}\s_-]/gu, '')
    .replaceAll(' ', '-');
}

function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const match of markdown.replaceAll(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6} (.+)$/gm)) {
    const base = slug(match[1] ?? '');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

describe('links of the README and the guides', () => {
  it('finds the documents and their links', () => {
    expect(documents).toEqual(expect.arrayContaining(['README.md', 'bench/README.md', 'docs/operating.md', 'docs/keys.md']));
    expect(links(readFileSync(join(REPO, 'README.md'), 'utf8')).length).toBeGreaterThan(10);
  });

  it.each(documents)('%s: every link is relative, stays in the repository and reaches a file (and its heading)', (document) => {
    const path = join(REPO, document);
    const markdown = readFileSync(path, 'utf8');
    const broken: string[] = [];
    for (const link of links(markdown)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(link) || link.startsWith('//') || link.startsWith('/')) {
        broken.push(`${link}: not a relative link`);
        continue;
      }
      if (document === 'README.md' && link.startsWith('../')) {
        broken.push(`${link}: leaves the repository`);
        continue;
      }
      const [file = '', anchor] = link.split('#', 2);
      const target = file === '' ? path : resolve(dirname(path), decodeURI(file));
      const inside = relative(REPO, target);
      if (inside.startsWith(`..${sep}`) || inside === '..') {
        broken.push(`${link}: leaves the repository`);
        continue;
      }
      if (!existsSync(target)) {
        broken.push(`${link}: no such file`);
        continue;
      }
      if (anchor !== undefined && anchor !== '' && target.endsWith('.md') && statSync(target).isFile()) {
        if (!anchors(readFileSync(target, 'utf8')).has(anchor)) broken.push(`${link}: no such heading`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('keeps the blocks the system tier runs where its tests read them (the one-line setup in docs/embedding.md)', () => {
    const guide = readFileSync(join(REPO, 'docs', 'embedding.md'), 'utf8');
    const block = /\*\*One-line setup\*\*[\s\S]*?```js\n([\s\S]*?)```/.exec(guide)?.[1];
    expect(block).toContain('createPetStore(');
    expect(block).toContain('createRequestHandler(');
  });
});
