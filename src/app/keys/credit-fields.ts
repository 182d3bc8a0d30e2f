import type { CreditChange } from '../../domain/credits/credit-balance.js';
import { MAX_CREDITS } from '../../domain/credits/credit-rule.js';
import { err, ok, type Result } from '../../domain/result.js';

/*
 * The credit fields of `petstore keys credits` and `usage` and of the admin API, read as text by
 * one reader each, so both front ends accept and refuse alike. `name` words a field as its front
 * end spells it (`--set`, `set`).
 */

export type CreditFieldName = 'set' | 'add' | 'key' | 'from' | 'to' | 'format';
export type CreditFieldNames = (field: CreditFieldName) => string;

const WHOLE = /^-?[0-9]{1,13}$/;

/** A whole number from `low` to MAX_CREDITS, written in decimal digits (no `1e3`, no `+5`, no `0x10`). */
function wholeNumber(raw: string, name: string, low: number): Result<number, string> {
  const value = WHOLE.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(value) || value < low || value > MAX_CREDITS) return err(`${name} ${JSON.stringify(raw)}: must be a whole number from ${low} to ${MAX_CREDITS}`);
  return ok(value);
}

/** An operator's change: exactly one of a balance set outright (0 to MAX_CREDITS) or units added (negative takes some away). */
export function readCreditChange(set: string | undefined, add: string | undefined, name: CreditFieldNames): Result<CreditChange, string> {
  if (set !== undefined && add !== undefined) return err(`${name('set')} and ${name('add')} go one at a time: give one`);
  if (set !== undefined) {
    const value = wholeNumber(set, name('set'), 0);
    return value.ok ? ok({ set: value.value }) : value;
  }
  if (add !== undefined) {
    const value = wholeNumber(add, name('add'), -MAX_CREDITS);
    return value.ok ? ok({ add: value.value }) : value;
  }
  return err(`a change needs ${name('set')} N (the balance) or ${name('add')} N (units to add; negative takes some away)`);
}

/** Whether a change was given at all: `credits ID` alone reads, with --set or --add it changes. */
export const givesChange = (set: string | undefined, add: string | undefined): boolean => set !== undefined || add !== undefined;

const MONTH_OR_DAY = /^([0-9]{4})-([0-9]{2})(?:-([0-9]{2}))?$/;

/** `YYYY-MM` or `YYYY-MM-DD` (UTC): its first instant and the first instant after it, epoch ms; undefined when no such month or day. */
function dateSpan(raw: string): { readonly start: number; readonly end: number } | undefined {
  const fields = MONTH_OR_DAY.exec(raw);
  if (fields === null) return undefined;
  const [year, monthIndex, date] = [Number(fields[1]), Number(fields[2]) - 1, fields[3] === undefined ? undefined : Number(fields[3])];
  if (monthIndex < 0 || monthIndex > 11 || year < 1970) return undefined;
  if (date === undefined) return { start: Date.UTC(year, monthIndex, 1), end: Date.UTC(year, monthIndex + 1, 1) };
  const start = Date.UTC(year, monthIndex, date);
  // Date.UTC rolls 02-30 over into March: a day it moved is no day of that month.
  if (date < 1 || new Date(start).getUTCMonth() !== monthIndex) return undefined;
  return { start, end: Date.UTC(year, monthIndex, date + 1) };
}

/** Which periods an export reads: those starting from `from` (inclusive) to `to` (exclusive), epoch ms; absent: no bound. */
export interface UsageRange {
  readonly from?: number;
  readonly to?: number;
}

/**
 * `--from` and `--to` as `YYYY-MM` or `YYYY-MM-DD` in UTC: periods starting from the first day
 * of `from` through the last day of `to` (`--from 2026-01 --to 2026-03`: January to March).
 */
export function readUsageRange(from: string | undefined, to: string | undefined, name: CreditFieldNames): Result<UsageRange, string> {
  const spans: { from?: number; to?: number } = {};
  for (const [field, raw] of [['from', from], ['to', to]] as const) {
    if (raw === undefined) continue;
    const span = dateSpan(raw);
    if (span === undefined) return err(`${name(field)} ${JSON.stringify(raw)}: must be a month YYYY-MM or a day YYYY-MM-DD (UTC), from 1970`);
    spans[field] = field === 'from' ? span.start : span.end;
  }
  if (spans.from !== undefined && spans.to !== undefined && spans.from >= spans.to) return err(`${name('from')} ${from ?? ''} comes after ${name('to')} ${to ?? ''}`);
  return ok(spans);
}

export const USAGE_FORMATS = ['csv', 'json'] as const;
export type UsageFormat = (typeof USAGE_FORMATS)[number];

/** The export's format; absent: `fallback`. */
export function readUsageFormat(raw: string | undefined, name: CreditFieldNames, fallback: UsageFormat): Result<UsageFormat, string> {
  if (raw === undefined) return ok(fallback);
  const format = USAGE_FORMATS.find((candidate) => candidate === raw);
  return format === undefined ? err(`${name('format')} ${JSON.stringify(raw)}: must be ${USAGE_FORMATS.join(' or ')}`) : ok(format);
}
