import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCS_CONTENT_SECURITY_POLICY } from '../../src/adapters/http/docs/docs-content-security-policy.js';
import { createRequestHandler } from '../../src/adapters/http/request-handler.js';
import { MemoryApiKeyRegistry } from '../../src/adapters/memory/memory-api-key-registry.js';
import { MemoryQuotaStore } from '../../src/adapters/memory/memory-quota-store.js';
import { SystemClock } from '../../src/adapters/system/system-clock.js';
import { DEFAULT_BAN_POLICY } from '../../src/domain/quota/ban-policy.js';
import { RequestAdmission } from '../../src/domain/quota/request-admission.js';
import { memoryServices } from '../support/memory-services.js';
import { requestWithHeaders, startTestPetStore, type TestPetStore } from '../support/test-pet-store.js';

/*
 * The docs page over HTTP: what the browser test cannot see (the exact headers, HEAD, 304,
 * refused names) and the page mounted under another base path. Every answer through
 * `store.anonymous` or requestWithHeaders is also checked against the OpenAPI document.
 */

const swaggerUiDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** The URLs of the page's scripts, styles and icon, and the document it points Swagger UI at. */
const referencesOf = (html: string): { readonly assets: string[]; readonly openApiUrl: string | undefined } => ({
  assets: [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!),
  openApiUrl: /data-openapi-url="([^"]+)"/.exec(html)?.[1],
});

let store: TestPetStore;
beforeAll(async () => {
  store = await startTestPetStore();
});
afterAll(() => store.close());

describe('GET /v1/docs', () => {
  it('is an HTML page without a key, under a strict Content-Security-Policy, loading only files of /v1/docs/ and pointing at /v1/openapi.json', async () => {
    const page = await store.anonymous.get('/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toBe(DOCS_CONTENT_SECURITY_POLICY);
    expect(DOCS_CONTENT_SECURITY_POLICY).toMatch(/^default-src 'self';/);
    expect(DOCS_CONTENT_SECURITY_POLICY).toContain("script-src 'self';");
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.headers.get('ratelimit-policy')).toBe('"minute";q=60;w=60');
    expect(page.text).not.toMatch(/<script>|<script [^>]*>[^<]/);
    const { assets, openApiUrl } = referencesOf(page.text);
    expect(openApiUrl).toBe('/v1/openapi.json');
    // Each file's URL names its version, the base64url SHA-256 of its bytes.
    expect(assets.map((url) => url.replace(/\?v=[A-Za-z0-9_-]{43}$/, '')).sort()).toEqual([
      '/v1/docs/favicon-32x32.png',
      '/v1/docs/petstore-docs.js',
      '/v1/docs/swagger-ui-bundle.js',
      '/v1/docs/swagger-ui.css',
    ]);
  });

  it('offers "Try it out" only the server the page may reach under its CSP (connect-src \'self\'), and a valid example body for every request body', async () => {
    const document = (await store.anonymous.get('/openapi.json')).body as {
      servers: { url: string }[];
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, { examples?: Record<string, { value: unknown }> }> } }>>;
    };
    expect(document.servers.map(({ url }) => url)).toEqual(['/v1']);
    const bodies = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.entries(operations).flatMap(([method, operation]) => (operation.requestBody === undefined ? [] : [[`${method} ${path}`, operation.requestBody] as const])),
    );
    expect(bodies.length).toBeGreaterThan(0);
    for (const [name, body] of bodies) expect(Object.keys(body.content['application/json']?.examples ?? {}), name).not.toEqual([]);
    expect(document.paths['/pets']?.['post']?.requestBody?.content['application/json']?.examples).toMatchObject({ dog: { value: { name: 'Rex', categoryId: 1 } } });
  });

  it('opens its description on how to get a key and call the API; the HTTP parser\'s edge cases come last', async () => {
    const { description } = ((await store.anonymous.get('/openapi.json')).body as { info: { description: string } }).info;
    const paragraphs = description.split('\n\n');
    expect(paragraphs[0]).toMatch(/^To call the API you need an API key/);
    expect(paragraphs[0]).toContain('petstore keys create');
    expect(paragraphs[0]).toContain('Authorize');
    expect(paragraphs.findIndex((text) => text.includes('HTTP parser'))).toBe(paragraphs.length - 1);
  });

  it('serves each file with its media type, its installed bytes and an ETag; the initializer turns the validator badge off', async () => {
    const expected: Readonly<Record<string, string>> = {
      'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
      'swagger-ui.css': 'text/css; charset=utf-8',
      'favicon-32x32.png': 'image/png',
    };
    for (const [name, contentType] of Object.entries(expected)) {
      const response = await fetch(`${store.baseUrl}/docs/${name}`);
      expect(response.status, name).toBe(200);
      expect(response.headers.get('content-type'), name).toBe(contentType);
      expect(response.headers.get('etag'), name).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
      expect(Buffer.from(await response.arrayBuffer()).equals(await readFile(join(swaggerUiDir, name))), name).toBe(true);
    }
    const initializer = await store.anonymous.get('/docs/petstore-docs.js');
    expect(initializer.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(initializer.text).toMatch(/validatorUrl: null/);
    expect(initializer.text).toMatch(/url: root\.dataset\.openapiUrl/);
  });

  it('answers HEAD with the headers of GET, Content-Length included, and no body', async () => {
    for (const target of ['/docs', '/docs/swagger-ui.css']) {
      const get = await store.anonymous.get(target);
      const head = await store.anonymous.request('HEAD', target);
      expect(head.status).toBe(200);
      expect(head.text).toBe('');
      for (const name of ['content-type', 'content-length', 'etag', 'cache-control', 'content-security-policy']) {
        expect(head.headers.get(name), `${target} ${name}`).toBe(get.headers.get(name));
      }
    }
  });

  it('answers 304 without a body when If-None-Match names the current ETag (weak, in a list or *), 200 otherwise', async () => {
    for (const target of ['/docs', '/docs/swagger-ui-bundle.js']) {
      const etag = (await store.anonymous.get(target)).headers.get('etag')!;
      for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
        const revalidated = await requestWithHeaders(store.anonymous, 'GET', target, { key: null, headers: { 'if-none-match': ifNoneMatch } });
        expect(revalidated.status, `${target} If-None-Match: ${ifNoneMatch}`).toBe(304);
        expect(revalidated.text).toBe('');
        expect(revalidated.headers.get('etag')).toBe(etag);
        expect(revalidated.headers.get('content-length')).toBeNull();
      }
      const changed = await requestWithHeaders(store.anonymous, 'GET', target, { key: null, headers: { 'if-none-match': '"stale"' } });
      expect(changed.status).toBe(200);
    }
  });

  it('answers any other file name, an escape out of the folder included, with a JSON 404; another method with a JSON 405', async () => {
    for (const name of ['swagger-ui.js', 'index.html', 'package.json', '..%2Fpackage.json', '..%2F..%2Fpackage.json', '%2e%2e', 'constructor', 'swagger-ui.css.map', '']) {
      const answer = await store.anonymous.get(`/docs/${name}`);
      expect(answer.status, name).toBe(404);
      expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(answer.body).toMatchObject({ code: 'not_found', status: 404 });
    }
    const posted = await store.anonymous.post('/docs', { json: {} });
    expect(posted.status).toBe(405);
    expect(posted.headers.get('allow')).toBe('GET, HEAD');
    expect(posted.body).toMatchObject({ code: 'method_not_allowed' });
    expect((await store.anonymous.get('/docs?theme=dark')).body).toMatchObject({ code: 'invalid_request', message: 'Unknown query parameter: theme.' });
  });
});

describe('the docs page of a handler under another base path', () => {
  let server: Server;
  let origin: string;
  beforeAll(async () => {
    const admission = new RequestAdmission(new MemoryApiKeyRegistry(), new MemoryQuotaStore(new SystemClock()), {
      anonymousPolicy: { rules: [{ name: 'minute', limit: 1_000, windowMs: 60_000 }] },
      ban: DEFAULT_BAN_POLICY,
    });
    server = createServer(createRequestHandler({ ...(await memoryServices()), admission }, { basePath: '/petstore/v1' }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('links its files and the document under that base path, and they answer there', async () => {
    const page = await fetch(`${origin}/petstore/v1/docs`);
    expect(page.status).toBe(200);
    const { assets, openApiUrl } = referencesOf(await page.text());
    expect(openApiUrl).toBe('/petstore/v1/openapi.json');
    expect(assets.length).toBe(4);
    for (const url of [...assets, openApiUrl]) {
      expect(url, 'every link is under the base path').toMatch(/^\/petstore\/v1\//);
      const response = await fetch(`${origin}${url}`);
      expect(response.status, url).toBe(200);
      await response.arrayBuffer();
    }
    expect((await fetch(`${origin}/v1/docs`)).status).toBe(404);
  });
});
