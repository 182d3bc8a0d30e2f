import { describe, expect, it } from 'vitest';
import { csvField, exportRows, periodText, usageCsv, usageJson, USAGE_COLUMNS } from '../../src/app/keys/usage-export.js';
import type { CreditUsage } from '../../src/ports/credit-ledger.js';

const row = (subject: string, period: number, fields: Partial<CreditUsage> = {}): CreditUsage => ({
  subject,
  period,
  spent: 0,
  spends: 0,
  refused: 0,
  refunded: 0,
  refunds: 0,
  refilled: 0,
  adjusted: 0,
  ...fields,
});

describe('the usage export', () => {
  it('quotes a CSV field as RFC 4180 does: only when it holds a comma, a quote or a line break, its quotes doubled', () => {
    expect(['key_1', 'a,b', 'say "hi"', 'two\nlines', 'cr\r', -5, 0].map(csvField)).toEqual(['key_1', '"a,b"', '"say ""hi"""', '"two\nlines"', '"cr\r"', '-5', '0']);
  });

  it('writes a period as a UTC date when it starts at midnight, else as the instant; 0 (never refilled) as 1970-01-01', () => {
    expect(periodText(Date.UTC(2026, 10, 1))).toBe('2026-11-01');
    expect(periodText(0)).toBe('1970-01-01');
    expect(periodText(Date.UTC(2026, 10, 1, 6))).toBe('2026-11-01T06:00:00.000Z');
  });

  it('names each subject by its key id, a subject without a key by itself', () => {
    const ids = new Map([['key:aaa', 'key_0000000000000001']]);
    expect(exportRows([row('key:aaa', 0, { spent: 3, spends: 1 }), row('key:bbb', 0, { adjusted: -2 })], (subject) => ids.get(subject))).toEqual([
      { key: 'key_0000000000000001', period: '1970-01-01', spent: 3, spends: 1, refused: 0, refunded: 0, refunds: 0, refilled: 0, adjusted: 0 },
      { key: 'key:bbb', period: '1970-01-01', spent: 0, spends: 0, refused: 0, refunded: 0, refunds: 0, refilled: 0, adjusted: -2 },
    ]);
  });

  it('writes CSV with a header line and CRLF line ends, and JSON as an array of the same columns', () => {
    const rows = exportRows([row('a,"b"', Date.UTC(2026, 0, 1), { spent: 1, spends: 1, refused: 2, refunded: 3, refunds: 4, refilled: 5, adjusted: 6 })], () => undefined);
    expect(usageCsv(rows)).toBe('key,period,spent,spends,refused,refunded,refunds,refilled,adjusted\r\n"a,""b""",2026-01-01,1,1,2,3,4,5,6\r\n');
    expect(usageCsv([])).toBe('key,period,spent,spends,refused,refunded,refunds,refilled,adjusted\r\n');
    expect(JSON.parse(usageJson(rows))).toEqual([{ key: 'a,"b"', period: '2026-01-01', spent: 1, spends: 1, refused: 2, refunded: 3, refunds: 4, refilled: 5, adjusted: 6 }]);
    expect(Object.keys((JSON.parse(usageJson(rows)) as Record<string, unknown>[])[0] ?? {})).toEqual(USAGE_COLUMNS.map(([name]) => name));
    expect(usageJson([])).toBe('[]');
  });
});
