import { readFile } from 'node:fs/promises';
import { get, type IncomingHttpHeaders } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureDocsPageLoad } from '../../bench/http/docs-page-load.js';
import { startTestPetStore, type TestPetStore } from '../support/test-pet-store.js';

/*
 * What a load of the docs page costs a browser: its files compressed once and sent in the
 * smallest coding the request accepts, and kept by the browser under URLs that name their
 * version. The numbers before and after are in bench/README.md (`npm run bench:docs-page`).
 */

const swaggerUiDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

interface RawAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** As sent: not decoded. */
  readonly body: Buffer;
}

/** A GET whose body is kept as it crossed the wire (fetch would ask for and decode a coding itself). */
const getRaw = (url: string, headers: Readonly<Record<string, string>> = {}): Promise<RawAnswer> =>
  new Promise((resolve, reject) => {
    get(url, { headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    }).on('error', reject);
  });

const decoded = ({ headers, body }: RawAnswer): Buffer =>
  headers['content-encoding'] === 'br' ? brotliDecompressSync(body) : headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body;

let store: TestPetStore;
let page: string;
beforeAll(async () => {
  store = await startTestPetStore();
  page = (await getRaw(`${store.baseUrl}/docs`)).body.toString('utf8');
});
afterAll(() => store.close());

/** The URL the page links `name` by. */
const linkOf = (name: string): string => {
  const path = new RegExp(`"(/v1/docs/${name.replaceAll('.', '\\.')}[^"]*)"`).exec(page)?.[1];
  if (path === undefined) throw new Error(`the page does not link ${name}`);
  return new URL(path, store.baseUrl).href;
};

describe('the docs page, its files and its document, compressed', () => {
  it.each([
    ['swagger-ui-bundle.js', 'br, gzip', 'br'],
    ['swagger-ui-bundle.js', 'gzip, deflate, br, zstd', 'br'],
    ['swagger-ui-bundle.js', 'gzip', 'gzip'],
    ['swagger-ui-bundle.js', 'br;q=0, *', 'gzip'],
    ['swagger-ui-bundle.js', 'identity', undefined],
    ['swagger-ui-bundle.js', '', undefined],
    ['swagger-ui.css', 'br', 'br'],
    ['favicon-32x32.png', 'br, gzip', undefined],
  ])('sends %s to Accept-Encoding %j in the coding %s, with its own ETag, decoding to the installed bytes', async (name, acceptEncoding, coding) => {
    const answer = await getRaw(linkOf(name), acceptEncoding === '' ? {} : { 'accept-encoding': acceptEncoding });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBe(coding);
    expect(answer.headers['content-length']).toBe(String(answer.body.length));
    expect(decoded(answer).equals(await readFile(join(swaggerUiDir, name)))).toBe(true);
    if (name === 'favicon-32x32.png') expect(answer.headers.vary, 'a PNG has no smaller coding').toBeUndefined();
    else expect(answer.headers.vary).toBe('Accept-Encoding');
    const asStored = await getRaw(linkOf(name));
    expect(answer.headers.etag === asStored.headers.etag, 'one ETag per representation').toBe(coding === undefined);
  });

  it('sends the bundle in brotli at under a quarter of its size', async () => {
    const answer = await getRaw(linkOf('swagger-ui-bundle.js'), { 'accept-encoding': 'br' });
    const installed = await readFile(join(swaggerUiDir, 'swagger-ui-bundle.js'));
    expect(answer.body.length).toBeLessThan(installed.length / 4);
  });

  it("answers the representation's ETag in If-None-Match with 304, and another coding's with 200", async () => {
    const url = linkOf('swagger-ui.css');
    const br = await getRaw(url, { 'accept-encoding': 'br' });
    expect((await getRaw(url, { 'accept-encoding': 'br', 'if-none-match': br.headers.etag! })).status).toBe(304);
    expect((await getRaw(url, { 'accept-encoding': 'gzip', 'if-none-match': br.headers.etag! })).status).toBe(200);
  });

  it('compresses the page and the document too', async () => {
    for (const url of [`${store.baseUrl}/docs`, `${store.baseUrl}/openapi.json`]) {
      const answer = await getRaw(url, { 'accept-encoding': 'br' });
      expect(answer.headers['content-encoding'], url).toBe('br');
      expect(decoded(answer).equals((await getRaw(url)).body), url).toBe(true);
    }
  });
});

describe('the docs page, its files and its document, cached', () => {
  it('links every file by a URL naming its version, cacheable for a year; the same file without it, or with another, is revalidated', async () => {
    for (const name of ['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-32x32.png', 'petstore-docs.js']) {
      const versioned = await getRaw(linkOf(name));
      expect(versioned.headers['cache-control'], name).toBe('public, max-age=31536000, immutable');
      expect(linkOf(name)).toMatch(/\?v=[A-Za-z0-9_-]{43}$/);
      for (const other of [`${store.baseUrl}/docs/${name}`, `${store.baseUrl}/docs/${name}?v=stale`]) {
        expect((await getRaw(other)).headers['cache-control'], other).toBe('no-cache');
      }
    }
    for (const url of [`${store.baseUrl}/docs`, `${store.baseUrl}/openapi.json`]) {
      const answer = await getRaw(url);
      expect(answer.headers['cache-control'], url).toBe('no-cache');
      expect(answer.headers.etag, url).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    }
  });

  it('moves under a quarter of the files as stored on a first load, and on the next asks only for the page and the document, answered 304', async () => {
    const { cold, warm } = await measureDocsPageLoad(`${store.baseUrl}/docs`);
    expect(cold.requests).toBe(6);
    // The page, its four files and openapi.json, as stored: about 2 MB.
    expect(cold.bytes).toBeLessThan(500_000);
    expect(warm.requests).toBe(2);
    expect(warm.bytes).toBeLessThan(5_000);
  });
});
