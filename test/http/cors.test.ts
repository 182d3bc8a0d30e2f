import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createCors, parseCorsOrigins } from '../../src/adapters/http/pipeline/cors.js';

const APP = 'https://app.example.com';
const EXPOSED =
  'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, RateLimit-Policy, RateLimit, Retry-After, Location, Link, Deprecation, Sunset, Idempotent-Replayed, X-Request-Id';
const METHODS = ['GET', 'HEAD', 'POST'];

const request = (method: string, headers: Record<string, string>): IncomingMessage => ({ method, headers }) as unknown as IncomingMessage;
const preflightFrom = (origin: string, method = 'POST'): IncomingMessage =>
  request('OPTIONS', { origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization, content-type' });

describe('parseCorsOrigins', () => {
  it('reads * or a comma-separated list of origins', () => {
    expect(parseCorsOrigins('*')).toEqual({ ok: true, value: '*' });
    expect(parseCorsOrigins(`${APP}, http://localhost:5173`)).toEqual({ ok: true, value: [APP, 'http://localhost:5173'] });
  });

  it.each([
    ['https://app.example.com/', 'write "https://app.example.com/" as the origin browsers send: https://app.example.com'],
    ['https://app.example.com/path', 'write "https://app.example.com/path" as the origin browsers send: https://app.example.com'],
    ['https://App.Example.com:443', 'write "https://App.Example.com:443" as the origin browsers send: https://app.example.com'],
    ['app.example.com', '"app.example.com" is not an origin such as https://app.example.com (scheme://host[:port], no path)'],
    ['file:///tmp/x', '"file:///tmp/x" is not an origin such as https://app.example.com (scheme://host[:port], no path)'],
    [`${APP},`, '"" is not an origin such as https://app.example.com (scheme://host[:port], no path)'],
    [`${APP}, *`, '* allows every origin and cannot be combined with a list'],
  ])('refuses %j with one clear message', (text, message) => {
    expect(parseCorsOrigins(text)).toEqual({ ok: false, error: message });
  });
});

describe('CORS for every origin (*)', () => {
  const cors = createCors('*');

  it('allows any origin with *, exposing the rate-limit fields, on every answer so caches need no Vary', () => {
    const expected = ['access-control-allow-origin', '*', 'access-control-expose-headers', EXPOSED];
    expect(cors.responseHeaders('https://anything.example')).toEqual(expected);
    expect(cors.responseHeaders(undefined)).toEqual(expected);
  });

  it('answers a preflight for an allowed method', () => {
    expect(cors.preflight(preflightFrom('https://anything.example'), METHODS)).toEqual([
      'access-control-allow-origin',
      '*',
      'access-control-allow-methods',
      'GET, HEAD, POST',
      'access-control-allow-headers',
      'authorization, content-type, idempotency-key, x-request-id',
      'access-control-max-age',
      600,
    ]);
  });
});

describe('CORS for listed origins', () => {
  const cors = createCors([APP, 'http://localhost:5173']);

  it('echoes an allowed origin with Vary: Origin and the exposed fields', () => {
    expect(cors.responseHeaders(APP)).toEqual(['access-control-allow-origin', APP, 'vary', 'Origin', 'access-control-expose-headers', EXPOSED]);
  });

  it('grants nothing to another origin or to none, but still says the answer varies by Origin', () => {
    expect(cors.responseHeaders('https://evil.example')).toEqual(['vary', 'Origin']);
    expect(cors.responseHeaders(`${APP}.evil.example`)).toEqual(['vary', 'Origin']);
    expect(cors.responseHeaders(undefined)).toEqual(['vary', 'Origin']);
  });

  it('answers a preflight from an allowed origin with that origin', () => {
    expect(cors.preflight(preflightFrom(APP, 'GET'), METHODS)).toEqual([
      'access-control-allow-origin',
      APP,
      'vary',
      'Origin',
      'access-control-allow-methods',
      'GET, HEAD, POST',
      'access-control-allow-headers',
      'authorization, content-type, idempotency-key, x-request-id',
      'access-control-max-age',
      600,
    ]);
  });

  it('leaves to the server a preflight from a disallowed origin or for a method the route lacks', () => {
    expect(cors.preflight(preflightFrom('https://evil.example'), METHODS)).toBeUndefined();
    expect(cors.preflight(preflightFrom(APP, 'DELETE'), METHODS)).toBeUndefined();
    expect(cors.preflight(preflightFrom(APP, 'post'), METHODS)).toBeUndefined();
  });

  it('treats an OPTIONS without Origin or Access-Control-Request-Method, or another method, as no preflight', () => {
    expect(cors.preflight(request('OPTIONS', {}), METHODS)).toBeUndefined();
    expect(cors.preflight(request('OPTIONS', { origin: APP }), METHODS)).toBeUndefined();
    expect(cors.preflight(request('OPTIONS', { 'access-control-request-method': 'GET' }), METHODS)).toBeUndefined();
    expect(cors.preflight(request('POST', { origin: APP, 'access-control-request-method': 'POST' }), METHODS)).toBeUndefined();
  });
});
