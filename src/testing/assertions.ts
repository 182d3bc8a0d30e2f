import assert from 'node:assert/strict';
import type { QuotaDecision } from '../domain/quota/quota-decision.js';

/*
 * The few assertions the contracts need, over node:assert/strict: its AssertionError prints
 * what was expected beside what came, the same under every runner.
 */

/**
 * Own properties whose value is undefined dropped, deeply: a store may leave such a field out or
 * write it as undefined. Plain objects come back as plain objects, null-prototype ones (as
 * fast-check's records are) too: a prototype is no part of a value.
 */
const defined = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(defined);
  if (value === null || typeof value !== 'object') return value;
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return value;
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined).map(([key, field]) => [key, defined(field)]));
};

/** `actual` deep-equals `expected`, a field that is undefined counting as absent. */
export const same = (actual: unknown, expected: unknown, message?: string): void => {
  assert.deepStrictEqual(defined(actual), defined(expected), message);
};

/** The fields `expected` names, picked out of `actual` deeply (arrays element by element), deep-equal it. */
const picked = (actual: unknown, expected: unknown): unknown => {
  if (Array.isArray(expected) && Array.isArray(actual)) {
    return actual.length === expected.length ? actual.map((element, i) => picked(element, expected[i])) : actual;
  }
  if (expected === null || typeof expected !== 'object' || actual === null || typeof actual !== 'object' || Array.isArray(actual)) return actual;
  const fields = actual as Record<string, unknown>;
  return Object.fromEntries(Object.entries(expected).map(([key, field]) => [key, picked(fields[key], field)]));
};

const sameNumbers = (a: readonly number[], b: readonly number[]): boolean => a.length === b.length && a.every((value, i) => value === b[i]);

/** `same` on two quota decisions, without its cost on the passing path: properties compare millions of them. */
export const sameDecision = (actual: QuotaDecision, expected: QuotaDecision): void => {
  const equal =
    actual.verdict === expected.verdict &&
    actual.decidedAt === expected.decidedAt &&
    actual.retryAt === expected.retryAt &&
    actual.strikes === expected.strikes &&
    actual.countedAt === expected.countedAt &&
    sameNumbers(actual.remaining, expected.remaining) &&
    sameNumbers(actual.resetAt, expected.resetAt) &&
    (actual.shadowed === undefined) === (expected.shadowed === undefined) &&
    sameNumbers(actual.shadowed ?? [], expected.shadowed ?? []);
  if (!equal) same(actual, expected);
};

/** `actual` has at least the fields of `expected`, with its values (the rest of `actual` is not looked at). */
export const like = (actual: unknown, expected: unknown, message?: string): void => {
  assert.deepStrictEqual(defined(picked(actual, expected)), defined(expected), message);
};

/** `actual` has no own field `key`. */
export const lacks = (actual: unknown, key: string, message?: string): void => {
  assert.ok(
    actual === null || typeof actual !== 'object' || !Object.hasOwn(actual, key),
    message ?? `expected no field ${JSON.stringify(key)}, got ${JSON.stringify(actual)}`,
  );
};

/** `actual` is a number no less than `floor`. */
export const atLeast = (actual: number, floor: number, message?: string): void => {
  assert.ok(actual >= floor, message ?? `expected at least ${floor}, got ${actual}`);
};

/** `actual` is a number no greater than `ceiling`. */
export const atMost = (actual: number, ceiling: number, message?: string): void => {
  assert.ok(actual <= ceiling, message ?? `expected at most ${ceiling}, got ${actual}`);
};

/** A call, or a promise, that must reject (a call that throws counts): with an instance of `kind`. */
export const rejects = async (
  action: Promise<unknown> | (() => unknown),
  kind: abstract new (...args: never[]) => Error = Error,
  message?: string,
): Promise<void> => {
  const promise = typeof action === 'function' ? Promise.resolve().then(action) : action;
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof kind, `${message === undefined ? '' : `${message}: `}expected a ${kind.name}, got ${String(error)}`);
    return true;
  }, message);
};

/** A call that must throw synchronously an instance of `kind`. */
export const throws = (action: () => unknown, kind: abstract new (...args: never[]) => Error = Error, message?: string): void => {
  assert.throws(action, (error: unknown) => error instanceof kind, message);
};

/**
 * Asks `read` again, every `intervalMs`, until `until` holds of its answer, and answers it; after
 * `timeoutMs`, throws with the last answer. For what a store does after it answered (an expiry
 * run on its own timer).
 */
export const poll = async <T>(
  read: () => T | Promise<T>,
  until: (value: T) => boolean,
  options: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> => {
  const { timeoutMs = 5_000, intervalMs = 20, what = 'the polled value' } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (until(value)) return value;
    if (Date.now() >= deadline) throw new assert.AssertionError({ message: `${what} never came within ${timeoutMs} ms; last: ${JSON.stringify(value)}`, actual: value });
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
};
