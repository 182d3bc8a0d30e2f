import { SECTIONS, type Range, type Setting } from './setting.js';
import { SETTINGS } from './settings.js';

export const SETTINGS_TABLE_START = '<!-- settings:start -->';
export const SETTINGS_TABLE_END = '<!-- settings:end -->';

const code = (text: string): string => `\`${text}\``;

/** What a range accepts, as the docs table prints it. */
function accepted(range: Range): string {
  switch (range.kind) {
    case 'whole':
      return `${range.auto ? '`auto` or ' : ''}${range.min} to ${range.max}`;
    case 'oneOf':
      return range.values.map(code).join(', ');
    case 'text':
      return range.accepts;
  }
}

/** A cell of a markdown table: its pipes escaped. */
const cell = (text: string): string => text.replaceAll('|', '\\|');

/** The table of docs/configuration.md: every setting of SETTINGS, section by section. */
export function settingsMarkdown(): string {
  const settings: readonly Setting<unknown>[] = Object.values(SETTINGS);
  const lines = ['| variable | flag | meaning | accepts | default |', '|---|---|---|---|---|'];
  for (const [section, title] of Object.entries(SECTIONS)) {
    const rows = settings.filter((setting) => setting.section === section);
    if (rows.length === 0) continue;
    lines.push(`| **${title}** | | | | |`);
    for (const { variable, flag, description, range, defaultText } of rows) {
      lines.push(`| ${[code(variable), flag === undefined ? '' : code(`--${flag}`), description, accepted(range), defaultText].map(cell).join(' | ')} |`);
    }
  }
  return lines.join('\n');
}

/** `markdown` with the block between the settings markers made from SETTINGS (unchanged without the markers). */
export function withSettingsTable(markdown: string): string {
  const start = markdown.indexOf(SETTINGS_TABLE_START);
  const end = markdown.indexOf(SETTINGS_TABLE_END);
  if (start === -1 || end < start) return markdown;
  return `${markdown.slice(0, start + SETTINGS_TABLE_START.length)}\n${settingsMarkdown()}\n${markdown.slice(end)}`;
}
