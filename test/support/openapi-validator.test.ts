import { describe, expect, it } from 'vitest';
import { assertMatchesOpenApi, openApiDocument, resolveInDocument } from './openapi-validator.js';

const rateLimit = {
  'x-ratelimit-limit': '60',
  'x-ratelimit-remaining': '59',
  'x-ratelimit-reset': '1900000060',
  'ratelimit-policy': '"minute";q=60;w=60, "day";q=1000;w=86400',
  ratelimit: '"minute";r=59;t=60, "day";r=999;t=86400',
  'x-request-id': '0b9c7f1e-2d44-4a51-9f0e-5a8a3c1d2e77',
  'content-type': 'application/json; charset=utf-8',
};
const deprecation = {
  deprecation: '@1767225600',
  sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
  link: '</v1/pets>; rel="successor-version"',
};
const pet = { id: 7, name: 'Rex', categoryId: 3, status: 'available' };
const error = (status: number, code: string) => ({ code, message: 'no', status });

describe('assertMatchesOpenApi', () => {
  it('accepts documented responses, by template, relative path or full URL', () => {
    expect(() => assertMatchesOpenApi('GET', '/pets', { status: 200, headers: rateLimit, body: [pet] })).not.toThrow();
    expect(() =>
      assertMatchesOpenApi('GET', 'http://127.0.0.1:1/v1/pets/7?x=1', { status: 200, headers: { ...rateLimit, ...deprecation }, body: pet }),
    ).not.toThrow();
    expect(() =>
      assertMatchesOpenApi('post', '/pets', { status: 201, headers: { ...rateLimit, location: '/v1/pets/7' }, body: pet }),
    ).not.toThrow();
    expect(() =>
      assertMatchesOpenApi('GET', '/pets/{petId}', { status: 404, headers: { ...rateLimit, ...deprecation }, body: error(404, 'not_found') }),
    ).not.toThrow();
    expect(() =>
      assertMatchesOpenApi('GET', '/v1/pets', { status: 429, headers: { ...rateLimit, 'retry-after': '3' }, body: error(429, 'api_key_banned') }),
    ).not.toThrow();
    expect(() =>
      assertMatchesOpenApi('GET', '/pets', { status: 200, headers: new Headers({ ...rateLimit, link: '</v1/pets?cursor=x>; rel="next"' }), body: [] }),
    ).not.toThrow();
  });

  it('rejects a body that does not match the schema', () => {
    expect(() => assertMatchesOpenApi('GET', '/pets', { status: 200, headers: rateLimit, body: [{ ...pet, id: '7' }] })).toThrow(/- body/);
    expect(() => assertMatchesOpenApi('GET', '/pets', { status: 200, headers: rateLimit, body: [{ ...pet, extra: 1 }] })).toThrow(/- body/);
    expect(() => assertMatchesOpenApi('GET', '/pets', { status: 200, headers: rateLimit, body: pet })).toThrow(/- body/);
    expect(() => assertMatchesOpenApi('GET', '/pets', { status: 200, headers: rateLimit, body: [{ ...pet, status: 'lost' }] })).toThrow(/- body/);
    expect(() =>
      assertMatchesOpenApi('GET', '/pets', { status: 200, headers: rateLimit, body: [{ ...pet, id: 9007199254740992 }] }),
    ).toThrow(/- body/);
  });

  it('rejects an error body whose status or code does not fit the HTTP status, or that carries more fields', () => {
    expect(() => assertMatchesOpenApi('GET', '/pets', { status: 400, headers: rateLimit, body: error(404, 'invalid_request') })).toThrow(/- body\/status/);
    expect(() => assertMatchesOpenApi('GET', '/pets', { status: 400, headers: rateLimit, body: error(400, 'not_found') })).toThrow(/- body/);
    expect(() =>
      assertMatchesOpenApi('GET', '/pets', { status: 400, headers: rateLimit, body: { ...error(400, 'invalid_request'), stack: 'at x' } }),
    ).toThrow(/- body/);
  });

  it('rejects an undocumented status', () => {
    expect(() => assertMatchesOpenApi('GET', '/pets', { status: 404, headers: rateLimit, body: error(404, 'not_found') })).toThrow(
      /not documented/,
    );
    expect(() => assertMatchesOpenApi('GET', '/pets/1', { status: 201, headers: rateLimit, body: pet })).toThrow(/not documented/);
    expect(() => assertMatchesOpenApi('GET', '/openapi.json', { status: 401, headers: rateLimit, body: error(401, 'unauthorized') })).toThrow(
      /not documented/,
    );
  });

  it('rejects a missing required header or an invalid header value', () => {
    const { 'x-ratelimit-limit': _dropped, ...withoutLimit } = rateLimit;
    expect(() => assertMatchesOpenApi('GET', '/pets', { status: 200, headers: withoutLimit, body: [] })).toThrow(/X-RateLimit-Limit/);
    expect(() => assertMatchesOpenApi('GET', '/pets/1', { status: 200, headers: rateLimit, body: pet })).toThrow(/Deprecation/);
    expect(() => assertMatchesOpenApi('POST', '/pets', { status: 201, headers: rateLimit, body: pet })).toThrow(/Location/);
    expect(() => assertMatchesOpenApi('GET', '/pets', { status: 401, headers: rateLimit, body: error(401, 'unauthorized') })).toThrow(
      /WWW-Authenticate/,
    );
    expect(() => assertMatchesOpenApi('GET', '/pets', { status: 200, headers: { ...rateLimit, 'x-ratelimit-remaining': 'many' }, body: [] })).toThrow(
      /X-RateLimit-Remaining/,
    );
    expect(() =>
      assertMatchesOpenApi('GET', '/pets', { status: 200, headers: { ...rateLimit, ratelimit: 'minute;r=1' }, body: [] }),
    ).toThrow(/RateLimit/);
  });

  it('rejects a JSON body sent with another content type', () => {
    expect(() =>
      assertMatchesOpenApi('GET', '/pets', { status: 200, headers: { ...rateLimit, 'content-type': 'text/plain' }, body: [] }),
    ).toThrow(/content type/);
  });

  it('answers unknown paths with the generic 404 and undocumented methods with the generic 405', () => {
    const notFound = { status: 404, headers: rateLimit, body: error(404, 'not_found') };
    expect(() => assertMatchesOpenApi('GET', 'http://127.0.0.1:1/v1/nope', notFound)).not.toThrow();
    expect(() => assertMatchesOpenApi('GET', 'http://127.0.0.1:1/pets', notFound)).not.toThrow();
    expect(() => assertMatchesOpenApi('GET', '/v1/nope', { ...notFound, status: 200, body: [] })).toThrow(/not documented/);
    const notAllowed = { status: 405, headers: { ...rateLimit, allow: 'GET, POST' }, body: error(405, 'method_not_allowed') };
    expect(() => assertMatchesOpenApi('DELETE', '/v1/pets', notAllowed)).not.toThrow();
    expect(() => assertMatchesOpenApi('DELETE', '/v1/pets', { ...notAllowed, headers: rateLimit })).toThrow(/Allow/);
    expect(() => assertMatchesOpenApi('GET', '/v1/pets', notAllowed)).toThrow(/not documented/);
  });
});

describe('the OpenAPI document', () => {
  const refsOf = (node: unknown, found: string[] = []): string[] => {
    if (Array.isArray(node)) for (const item of node) refsOf(item, found);
    else if (typeof node === 'object' && node !== null) {
      for (const [key, value] of Object.entries(node)) {
        if (key === '$ref' && typeof value === 'string') found.push(value);
        else refsOf(value, found);
      }
    }
    return found;
  };

  it('resolves every $ref inside itself', () => {
    const refs = refsOf(openApiDocument);
    expect(refs.length).toBeGreaterThan(20);
    for (const ref of refs) expect(() => resolveInDocument(ref.slice(1)), ref).not.toThrow();
  });

  it('documents the rate-limit headers on every response of every operation but the HTTP parser’s (408, 431), answered before any route', () => {
    // Statuses only the parser answers: no route, no caller, no quota decision yet.
    const parserAnswers = new Set(['408', '431']);
    for (const [path, item] of Object.entries(openApiDocument.paths) as [string, object][]) {
      for (const [method, operation] of Object.entries(item) as [string, { responses: object }][]) {
        for (const status of Object.keys(operation.responses)) {
          if (parserAnswers.has(status)) continue;
          const { node } = resolveInDocument(`/paths/${path.replaceAll('/', '~1')}/${method}/responses/${status}`);
          expect(Object.keys(node['headers'] ?? {}), `${method} ${path} ${status}`).toEqual(
            expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'RateLimit-Policy', 'RateLimit']),
          );
        }
      }
    }
  });

  it('lists every error code, the Store group and the HTTP edge included', () => {
    const components = openApiDocument.components as { schemas: { Error: { properties: { code: { enum: string[] } } } } };
    expect([...components.schemas.Error.properties.code.enum].sort()).toEqual(
      [
        'invalid_request',
        'unauthorized',
        'credits_exhausted',
        'forbidden',
        'not_found',
        'method_not_allowed',
        'request_timeout',
        'pet_unavailable',
        'order_not_cancellable',
        'invalid_transition',
        'idempotency_conflict',
        // Answered by the admin API's key routes; one table of codes for both listeners.
        'key_revoked',
        'key_not_banned',
        'payload_too_large',
        'expectation_failed',
        'idempotency_key_reused',
        'headers_too_large',
        'unsupported_media_type',
        'rate_limited',
        'concurrency_limited',
        'api_key_banned',
        'internal_error',
        'service_unavailable',
        'ids_exhausted',
      ].sort(),
    );
  });

  it('is JSON: it survives serialisation unchanged', () => {
    expect(JSON.parse(JSON.stringify(openApiDocument))).toEqual(openApiDocument);
  });
});
