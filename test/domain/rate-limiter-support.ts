import { writeRateLimitHeaders } from '../../src/adapters/http/wire/rate-limit-headers.js';
import type { QuotaDecision } from '../../src/domain/quota/quota-decision.js';
import type { QuotaPolicy } from '../../src/domain/quota/quota-rule.js';
import type { RateLimitHeaders } from '../../src/domain/quota/rate-limit-fields.js';

/** What the node:http server writes for `decision`: its header list as a record of lower-case names and string values. */
export const serverHeaders = (policy: QuotaPolicy, decision: QuotaDecision): Record<string, string> => {
  const list: (string | number)[] = [];
  writeRateLimitHeaders(list, policy, decision);
  const record: Record<string, string> = {};
  for (let i = 0; i < list.length; i += 2) record[String(list[i])] = String(list[i + 1]);
  return record;
};

/** The limiter's record as the wire sees it: field names are case-insensitive. */
export const onTheWire = (headers: RateLimitHeaders): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), String(value)]));
