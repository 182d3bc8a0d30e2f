import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * How a migration meets the release before it (the one that does not know it), during a rollout:
 * - `expand`: additive; that release keeps running on the migrated schema (new tables, new
 *   columns with defaults or nullable, new indexes: nothing it reads or writes changes meaning);
 * - `contract`: that release must not run on it (a column it reads dropped or renamed, a meaning
 *   changed): it refuses to start, and every instance of it must be stopped before this is applied.
 */
export type Rollout = 'expand' | 'contract';

export interface Migration {
  /** From the file name's leading number: `0001_records.sql` is version 1. */
  readonly version: number;
  readonly name: string;
  readonly rollout: Rollout;
  readonly sql: string;
}

const FILE_NAME = /^(\d{4})_([a-z0-9_]+)\.sql$/;
/** Each file declares it on a line of its own: `-- rollout: expand` or `-- rollout: contract`. */
const ROLLOUT = /^-- rollout: (expand|contract)\b/m;

/**
 * The package's `migrations/` folder: found from this module upwards, so the same code finds it
 * from the sources (tests), from `dist/` and from an installed package.
 */
export function migrationsFolder(from: string = fileURLToPath(import.meta.url)): string {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    const candidate = join(dir, 'migrations');
    if (existsSync(join(dir, 'package.json')) && existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) throw new Error(`no migrations/ folder beside a package.json above ${from}`);
  }
}

/** Every migration of the folder, by version; a file named otherwise, or a version twice, is an error. */
export function readMigrations(folder: string = migrationsFolder()): readonly Migration[] {
  const migrations = readdirSync(folder)
    .filter((file) => file.endsWith('.sql'))
    .map((file) => {
      const match = FILE_NAME.exec(file);
      if (match === null) throw new Error(`${join(folder, file)}: a migration is named NNNN_name.sql (0002_order_notes.sql)`);
      const sql = readFileSync(join(folder, file), 'utf8');
      const rollout = ROLLOUT.exec(sql)?.[1] as Rollout | undefined;
      if (rollout === undefined) {
        throw new Error(
          `${join(folder, file)}: a migration declares how the release before it meets it, on a line of its own: ` +
            '"-- rollout: expand" (additive: that release keeps running) or "-- rollout: contract" (that release must be stopped first)',
        );
      }
      return { version: Number(match[1]), name: match[2] ?? '', rollout, sql };
    })
    .sort((a, b) => a.version - b.version);
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) throw new Error(`${folder}: migration versions must run 1, 2, 3... without gaps; found ${migration.version} at position ${index + 1}`);
  });
  return migrations;
}
