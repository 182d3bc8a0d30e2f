import type { IncomingMessage } from 'node:http';
import { RATE_LIMIT_FIELD_NAMES } from '../../../domain/quota/rate-limit-fields.js';
import { err, ok, type Result } from '../../../domain/result.js';
import { IDEMPOTENCY_KEY_HEADER } from '../wire/idempotency-key.js';
import { REQUEST_ID_HEADER } from '../wire/request-id.js';

/** `*`, or the exact origins (`https://app.example.com`) allowed to call the API from a browser. */
export type CorsOrigins = '*' | readonly string[];

type HeaderList = readonly (string | number)[];

export interface Cors {
  /** Headers for every answer to a request with this Origin (none when CORS does not apply). */
  responseHeaders(origin: string | undefined): HeaderList;
  /** The 204 answer's headers for an allowed preflight; undefined when not a preflight or not allowed. */
  preflight(req: IncomingMessage, allowedMethods: readonly string[]): HeaderList | undefined;
}

/** Parses PETSTORE_CORS_ORIGINS: `*` or comma-separated origins, each written as browsers send it. */
export function parseCorsOrigins(text: string): Result<CorsOrigins, string> {
  const trimmed = text.trim();
  if (trimmed === '*') return ok('*');
  const origins: string[] = [];
  for (const entry of trimmed.split(',').map((part) => part.trim())) {
    const problem = originProblem(entry);
    if (problem !== undefined) return err(problem);
    origins.push(entry);
  }
  return ok(origins);
}

// Browsers send Origin in its serialised form and we compare exactly, so only that form is accepted.
function originProblem(entry: string): string | undefined {
  if (entry === '*') return '* allows every origin and cannot be combined with a list';
  let origin: string;
  try {
    origin = new URL(entry).origin;
  } catch {
    origin = 'null';
  }
  if (origin === 'null') return `"${entry}" is not an origin such as https://app.example.com (scheme://host[:port], no path)`;
  if (origin !== entry) return `write "${entry}" as the origin browsers send: ${origin}`;
  return undefined;
}

// Scripts may read only the safelisted response fields unless named here.
const EXPOSED = [
  ...Object.values(RATE_LIMIT_FIELD_NAMES),
  'Location',
  'Link',
  'Deprecation',
  'Sunset',
  'Idempotent-Replayed',
  REQUEST_ID_HEADER,
].join(', ');
const ALLOWED_HEADERS = ['authorization', 'content-type', IDEMPOTENCY_KEY_HEADER, REQUEST_ID_HEADER].join(', ').toLowerCase();
const MAX_AGE_SECONDS = 600;
const VARY_ORIGIN: HeaderList = ['vary', 'Origin'];

export function createCors(origins: CorsOrigins): Cors {
  // With '*' every answer carries the same fields whatever the Origin, so shared caches need no Vary.
  // With a list the answer depends on Origin, so Vary is sent even when no CORS field is.
  const wildcard: HeaderList = ['access-control-allow-origin', '*', 'access-control-expose-headers', EXPOSED];
  const byOrigin = new Map<string, HeaderList>(
    origins === '*'
      ? []
      : origins.map((origin) => [origin, ['access-control-allow-origin', origin, ...VARY_ORIGIN, 'access-control-expose-headers', EXPOSED]]),
  );
  const allowed = (origin: string | undefined): origin is string => origin !== undefined && (origins === '*' || byOrigin.has(origin));

  return {
    responseHeaders(origin) {
      if (origins === '*') return wildcard;
      return (origin === undefined ? undefined : byOrigin.get(origin)) ?? VARY_ORIGIN;
    },
    preflight(req, allowedMethods) {
      const origin = req.headers.origin;
      const method = req.headers['access-control-request-method'];
      if (req.method !== 'OPTIONS' || !allowed(origin) || typeof method !== 'string' || !allowedMethods.includes(method)) return undefined;
      return [
        'access-control-allow-origin',
        origins === '*' ? '*' : origin,
        ...(origins === '*' ? [] : VARY_ORIGIN),
        'access-control-allow-methods',
        allowedMethods.join(', '),
        'access-control-allow-headers',
        ALLOWED_HEADERS,
        'access-control-max-age',
        MAX_AGE_SECONDS,
      ];
    },
  };
}
