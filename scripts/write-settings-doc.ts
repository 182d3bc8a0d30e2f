/* npm run docs:settings: writes the settings table of docs/configuration.md from the settings table of the code. */
import { readFileSync, writeFileSync } from 'node:fs';
import { withSettingsTable } from '../src/app/config/settings-markdown.js';

// Run from dist/scripts: the repository is two levels up.
const doc = new URL('../../docs/configuration.md', import.meta.url);
writeFileSync(doc, withSettingsTable(readFileSync(doc, 'utf8')));
