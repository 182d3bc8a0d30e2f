import type { CreditUsage } from '../../ports/credit-ledger.js';

/** One row of the usage export: a ledger's usage row, its subject named by the key's id. */
export type UsageExportRow = Omit<CreditUsage, 'subject' | 'period'> & {
  /** The key's id; a subject whose key is gone (no key has its digest) by the subject itself. */
  readonly key: string;
  /** The period's start, UTC: a date (`2026-11-01`) when it starts at midnight, else the instant. */
  readonly period: string;
};

/** The export's columns in order, each with what it holds: the CSV header, and what the usage text and the docs say of them. */
export const USAGE_COLUMNS = [
  ['key', "the key's id (a key no longer listed: its ledger subject)"],
  ['period', "the period's start, UTC (1970-01-01: a balance that never refills)"],
  ['spent', 'units spent by admitted requests'],
  ['spends', 'requests that spent them'],
  ['refused', 'requests refused for too few credits'],
  ['refunded', 'units given back'],
  ['refunds', 'requests that got units back'],
  ['refilled', "units the period's refill added"],
  ['adjusted', 'units operators added (negative: taken away)'],
] as const satisfies readonly (readonly [keyof UsageExportRow, string])[];

const DAY_MS = 86_400_000;

/** A period's start as the export writes it. */
export const periodText = (period: number): string => {
  const iso = new Date(period).toISOString();
  return period % DAY_MS === 0 ? iso.slice(0, 10) : iso;
};

/** The ledger's rows as exported, each subject named by `keyIdOf` (undefined: its key is gone, the subject stays). */
export const exportRows = (rows: readonly CreditUsage[], keyIdOf: (subject: string) => string | undefined): UsageExportRow[] =>
  rows.map(({ subject, period, spent, spends, refused, refunded, refunds, refilled, adjusted }) => ({
    key: keyIdOf(subject) ?? subject,
    period: periodText(period),
    spent,
    spends,
    refused,
    refunded,
    refunds,
    refilled,
    adjusted,
  }));

/** A CSV field (RFC 4180): quoted, its quotes doubled, when it holds a comma, a quote or a line break. */
export const csvField = (value: string | number): string => {
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};

const CRLF = '\r\n';

/** The rows as CSV (RFC 4180): a header line of the column names, then one line per row, each ended by CRLF. */
export const usageCsv = (rows: readonly UsageExportRow[]): string =>
  [USAGE_COLUMNS.map(([name]) => name), ...rows.map((row) => USAGE_COLUMNS.map(([name]) => row[name]))].map((line) => line.map(csvField).join(',') + CRLF).join('');

/** The rows as a JSON array of objects, one per row, with the CSV's column names. */
export const usageJson = (rows: readonly UsageExportRow[]): string =>
  JSON.stringify(rows.map((row) => Object.fromEntries(USAGE_COLUMNS.map(([name]) => [name, row[name]]))));
