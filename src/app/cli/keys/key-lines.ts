import type { KeyView } from '../../../adapters/key-view.js';
import type { KeyRefusal } from '../../keys/key-operations.js';
import type { CommandOutput } from '../command-output.js';

/** `business (1000/min, 100000/day)`. */
export const planText = (key: KeyView): string => `${key.plan} (${key.perMinute}/min, ${key.perDay}/day)`;

/** What a key entitles its holder to, as create and update print it. */
export const grantLines = (key: KeyView): string[] => [
  `plan:    ${planText(key)}, ${key.role}`,
  `expires: ${key.expiresAt ?? 'never'}`,
  ...(key.label === '' ? [] : [`label:   ${key.label}`]),
];

export const SHOWN_ONCE = 'The key is shown only this once: the store keeps its digest, not the key.';

/** The refusal of a verb that changed nothing, exit 1. */
export function refused(id: string, refusal: KeyRefusal, output: CommandOutput): number {
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
