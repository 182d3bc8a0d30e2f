/* npm run docs:alerts: writes the Prometheus rules file and the alerts of docs/operating.md from scripts/alerts/alert-rules.ts. */
import { readFileSync, writeFileSync } from 'node:fs';
import { withAlertsSection } from './alerts/alerts-markdown.js';
import { alertsYaml } from './alerts/alerts-yaml.js';

// Run from dist/scripts: the repository is two levels up.
const repo = new URL('../../', import.meta.url);
const doc = new URL('docs/operating.md', repo);
writeFileSync(doc, withAlertsSection(readFileSync(doc, 'utf8')));
writeFileSync(new URL('deploy/prometheus/petstore-alerts.yml', repo), alertsYaml());
