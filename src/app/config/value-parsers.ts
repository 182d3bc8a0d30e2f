import type { RedisNodeAddress } from '../../adapters/redis/redis-cluster-client.js';
import { err, ok, type Result } from '../../domain/result.js';

/** `scheme://user:secret@host` written `scheme://user:***@host`: for messages and logs. */
export const withoutPassword = (url: string): string => url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:@/]*):[^@/]*@/i, '$1:***@');

export const parseRedisUrl = (raw: string): Result<string, string> => (/^rediss?:\/\//.test(raw) ? ok(raw) : err('must start with redis:// or rediss://'));

export const parseRedisPrefix = (raw: string): Result<string, string> =>
  /[{}]/.test(raw) ? err('must not contain braces: they would break the hash tags that keep a key in one slot') : ok(raw);

export function parseDatabaseUrl(raw: string): Result<string, string> {
  if (!/^postgres(ql)?:\/\//.test(raw)) return err('must start with postgres:// or postgresql://');
  try {
    const url = new URL(raw);
    return url.hostname === '' || url.pathname.length <= 1 ? err('must name a host and a database: postgres://USER@HOST:5432/DATABASE') : ok(raw);
  } catch {
    return err('is not a URL: postgres://USER@HOST:5432/DATABASE');
  }
}

/** `host:port,host:port`, an IPv6 host in brackets: `[::1]:7000`. */
export function parseNodeAddresses(raw: string): Result<RedisNodeAddress[], string> {
  const nodes: RedisNodeAddress[] = [];
  for (const entry of raw.split(',').map((part) => part.trim())) {
    const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+)):([0-9]{1,5})$/.exec(entry);
    const port = Number(match?.[3]);
    if (match === null || port < 1 || port > 65_535) {
      return err(`${JSON.stringify(entry)} is not host:port; expected a comma-separated list of nodes such as 10.0.0.1:7000,10.0.0.2:7000`);
    }
    nodes.push({ host: match[1] ?? match[2] ?? '', port });
  }
  return ok(nodes);
}

/** At least 32 characters, too many to guess; visible ASCII only, as a bearer token is sent. */
export const MIN_ADMIN_TOKEN_LENGTH = 32;
const MAX_ADMIN_TOKEN_LENGTH = 256;
export const ADMIN_TOKEN_SHAPE = `${MIN_ADMIN_TOKEN_LENGTH} to ${MAX_ADMIN_TOKEN_LENGTH} visible ASCII characters, no spaces (openssl rand -hex 32 makes one)`;

export const parseAdminToken = (raw: string): Result<string, string> =>
  raw.length >= MIN_ADMIN_TOKEN_LENGTH && raw.length <= MAX_ADMIN_TOKEN_LENGTH && /^[\x21-\x7e]+$/.test(raw) ? ok(raw) : err(`must be ${ADMIN_TOKEN_SHAPE}`);

const DATE_OR_TIME = /^(\d{4}-\d{2}-\d{2})(?:T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?(?:Z|[+-]\d{2}:\d{2}))?$/;

/** `2026-01-01`, or an RFC 3339 time such as `2026-01-01T12:00:00Z`: Date alone takes `1` for 2001 and rolls 2026-02-30 over to March. */
export function parseDate(raw: string): Result<Date, string> {
  const day = DATE_OR_TIME.exec(raw)?.[1];
  const midnight = new Date(`${day}T00:00:00Z`);
  const date = new Date(raw);
  const valid = day !== undefined && !Number.isNaN(midnight.getTime()) && midnight.toISOString().startsWith(day) && !Number.isNaN(date.getTime());
  return valid ? ok(date) : err('must be a date such as 2026-01-01, or a time such as 2026-01-01T12:00:00Z');
}

/** A share of requests: a decimal number above 0 and at most 1 (`0.01`, `1`). */
export function parseShare(raw: string): Result<number, string> {
  const value = /^(?:0|1)?(?:\.[0-9]+)?$/.test(raw) && raw !== '' && raw !== '.' ? Number(raw) : Number.NaN;
  return value > 0 && value <= 1 ? ok(value) : err('must be a number above 0 and at most 1, such as 0.01');
}
