import { SETTINGS, type Environ } from '../config/config.js';
import type { SectionName, Setting } from '../config/setting.js';

/** The settings of `sections` that have a flag, in the table's order (PETSTORE_ENV's always: every command reads it). */
export const flaggedSettings = (sections: readonly SectionName[]): readonly Setting<unknown>[] =>
  Object.values(SETTINGS).filter((setting: Setting<unknown>) => setting.flag !== undefined && (setting.section === 'environment' || sections.includes(setting.section)));

/** node:util parseArgs options for the flags of `settings`, each taking a value. */
export const flagOptions = (settings: readonly Setting<unknown>[]): Record<string, { type: 'string' }> =>
  Object.fromEntries(settings.map(({ flag }) => [flag, { type: 'string' as const }]));

/** `environ` with each flag given in `values` over the variable it mirrors: a flag wins over its variable. */
export function withFlags(environ: Environ, values: Readonly<Record<string, unknown>>, settings: readonly Setting<unknown>[]): Environ {
  const result: Record<string, string | undefined> = { ...environ };
  for (const { flag, variable } of settings) {
    const value = flag === undefined ? undefined : values[flag];
    if (typeof value === 'string') result[variable] = value;
  }
  return result;
}

/** The flags of `settings` as a usage prints them, `[--port N] [--host H] ...`, in lines of at most `width` after `indent`. */
export function flagUsage(settings: readonly Setting<unknown>[], indent: string, width = 100): string {
  const lines: string[] = [];
  let line = '';
  for (const { flag, metavar } of settings) {
    const item = `[--${flag} ${metavar}]`;
    if (line !== '' && indent.length + line.length + 1 + item.length > width) {
      lines.push(line);
      line = item;
    } else {
      line = line === '' ? item : `${line} ${item}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines.join(`\n${indent}`);
}
