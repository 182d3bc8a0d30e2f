import { afterEach, describe, expect, it } from 'vitest';
import { startPetStore, type RunningPetStore } from '../../src/app/start-pet-store.js';
import { HttpClient } from '../support/http-client.js';

let running: RunningPetStore | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

const start = async (environ: Record<string, string>): Promise<RunningPetStore> => {
  running = await startPetStore({
    PETSTORE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: '0',
    PETSTORE_API_KEYS: 'cors-key-1:pro',
    PETSTORE_ANONYMOUS_PER_MINUTE: '2',
    ...environ,
  });
  return running;
};

/** Anonymous requests from the proxy at 127.0.0.1, for the client `forwardedFor` names. */
const anonymousFrom = (baseUrl: string, forwardedFor: string): Promise<Response> =>
  fetch(`${baseUrl}/openapi.json`, { headers: { 'x-forwarded-for': forwardedFor } });

describe('PETSTORE_TRUST_PROXY, over a real socket', () => {
  it('keys anonymous callers by the X-Forwarded-For address a trusted proxy (1 hop) reports', async () => {
    const { baseUrl } = await start({ PETSTORE_TRUST_PROXY: '1' });
    const statuses = async (client: string): Promise<number[]> => [
      (await anonymousFrom(baseUrl, client)).status,
      (await anonymousFrom(baseUrl, client)).status,
      (await anonymousFrom(baseUrl, client)).status,
    ];
    expect(await statuses('203.0.113.7')).toEqual([200, 200, 429]);
    // Another client behind the same proxy has its own quota.
    expect(await statuses('203.0.113.8')).toEqual([200, 200, 429]);
  });

  it('keys IPv6 callers by their /64: two addresses of one /64 share a quota', async () => {
    const { baseUrl } = await start({ PETSTORE_TRUST_PROXY: '127.0.0.1/32' });
    expect((await anonymousFrom(baseUrl, '2001:db8:1:2::1')).status).toBe(200);
    expect((await anonymousFrom(baseUrl, '2001:db8:1:2:ffff::9')).status).toBe(200);
    expect((await anonymousFrom(baseUrl, '2001:db8:1:2::77')).status).toBe(429);
    expect((await anonymousFrom(baseUrl, '2001:db8:1:3::1')).status).toBe(200);
  });

  it('believes no X-Forwarded-For by default: every anonymous caller is the socket peer', async () => {
    const { baseUrl } = await start({});
    expect((await anonymousFrom(baseUrl, '203.0.113.7')).status).toBe(200);
    expect((await anonymousFrom(baseUrl, '203.0.113.8')).status).toBe(200);
    expect((await anonymousFrom(baseUrl, '203.0.113.9')).status).toBe(429);
  });
});

describe('PETSTORE_CORS_ORIGINS, over a real socket', () => {
  const APP = 'https://app.example.com';

  it('answers an allowed preflight 204 with the methods of the path, before any quota decision', async () => {
    const { baseUrl } = await start({ PETSTORE_CORS_ORIGINS: APP });
    for (let i = 0; i < 5; i++) {
      const preflight = await fetch(`${baseUrl}/pets`, {
        method: 'OPTIONS',
        headers: { origin: APP, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe(APP);
      expect(preflight.headers.get('access-control-allow-methods')).toBe('GET, HEAD, POST');
      expect(preflight.headers.get('x-ratelimit-limit')).toBeNull();
    }
    // Five preflights spent nothing of the anonymous 2 per minute.
    expect((await fetch(`${baseUrl}/openapi.json`)).status).toBe(200);
  });

  it('exposes the rate-limit fields to scripts of an allowed origin, and says nothing to another', async () => {
    const { baseUrl } = await start({ PETSTORE_CORS_ORIGINS: APP });
    const client = new HttpClient(baseUrl, 'cors-key-1');
    const allowed = await fetch(`${baseUrl}/pets`, { headers: { origin: APP, authorization: 'Bearer cors-key-1' } });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(APP);
    expect(allowed.headers.get('access-control-expose-headers')).toContain('RateLimit-Policy');
    expect(allowed.headers.get('vary')).toBe('Origin');
    const other = await fetch(`${baseUrl}/pets`, { headers: { origin: 'https://evil.example', authorization: 'Bearer cors-key-1' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    // A preflight from another origin is an ordinary OPTIONS: 405 with Allow.
    const refused = await client.request('OPTIONS', '/pets');
    expect(refused.status).toBe(405);
  });

  it('is off by default: no CORS fields, OPTIONS is a 405', async () => {
    const { baseUrl } = await start({});
    const answer = await fetch(`${baseUrl}/pets`, {
      method: 'OPTIONS',
      headers: { origin: APP, 'access-control-request-method': 'GET' },
    });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
  });
});
