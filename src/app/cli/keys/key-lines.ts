import type { KeyView } from '../../../adapters/key-view.js';
import { overrideProblemText } from '../../../domain/keys/key-overrides.js';
import { WINDOW_UNITS_MS } from '../../config/plans-file.js';
import type { KeyRefusal, OverridesRefused } from '../../keys/key-operations.js';
import type { CommandOutput } from '../command-output.js';
import { FLAG_SYNTAX } from './key-verb.js';

/** A window in its largest whole unit of a plans file (`90s`, `1m`, `7d`), else in milliseconds (`1020ms`). */
export const windowText = (ms: number): string => {
  const unit = Object.entries(WINDOW_UNITS_MS).findLast(([, unitMs]) => ms % unitMs === 0);
  return unit === undefined ? `${ms}ms` : `${ms / unit[1]}${unit[0]}`;
};

const modeText = (mode: string): string => (mode === 'shadow' ? ' shadow' : '');

/**
 * `search 10/1m`, `burst 50/5s bucket` for a burst rule (refilled in 5 s), `shadow` for a rule that
 * never refuses, and the plan's own terms of a rule the key overrides: `search 60/1m overriding 10`.
 */
const ruleText = ({ name, limit, windowMs, kind, mode, overridden }: KeyView['rules'][number]): string =>
  `${name} ${limit}/${windowText(windowMs)}${kind === 'burst' ? ' bucket' : ''}${modeText(mode)}${overridden === undefined ? '' : ` overriding ${overridden.limit}${modeText(overridden.mode)}`}`;

/**
 * `business (1000/min, 100000/day)` for a built-in plan; a plans file's, or a key overriding its
 * plan, by its rules: `github (minute 100/1m, search 10/1m)`, `pro (minute 600/1m overriding 300, day 10000/1d)`.
 */
export const planText = (key: KeyView): string =>
  key.perMinute !== undefined && key.perDay !== undefined && key.rules.every((rule) => rule.overridden === undefined)
    ? `${key.plan} (${key.perMinute}/min, ${key.perDay}/day)`
    : `${key.plan} (${key.rules.map(ruleText).join(', ')})`;

/** What a key entitles its holder to, as create and update print it. */
export const grantLines = (key: KeyView): string[] => [
  `plan:    ${planText(key)}, ${key.role}`,
  `expires: ${key.expiresAt ?? 'never'}`,
  ...(key.label === '' ? [] : [`label:   ${key.label}`]),
];

export const SHOWN_ONCE = 'The key is shown only this once: the store keeps its digest, not the key.';

/** Overrides that do not fit the key's plan, exit 1: known only once the key's plan is, so not a usage error. */
export function refusedOverrides({ overrides }: OverridesRefused, output: CommandOutput): number {
  output.err(`petstore keys: ${overrideProblemText(overrides, FLAG_SYNTAX)}; nothing changed`);
  return 1;
}

/** The refusal of a verb that changed nothing, exit 1. */
export function refused(id: string, refusal: KeyRefusal | OverridesRefused, output: CommandOutput): number {
  if (typeof refusal !== 'string') return refusedOverrides(refusal, output);
  output.err(
    refusal === 'not_found'
      ? `petstore keys: no key has the id ${JSON.stringify(id)} (petstore keys list shows them)`
      : `petstore keys: ${id} is revoked, and a revoked key stays so: nothing changed (petstore keys create makes a new one)`,
  );
  return 1;
}

/** Columns padded to their widest cell, two spaces apart. */
export const printTable = (rows: readonly (readonly string[])[], output: CommandOutput): void => {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? [];
  for (const row of rows) output.out(row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ').trimEnd());
};
