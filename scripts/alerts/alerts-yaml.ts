import { ALERT_GROUP, ALERT_RULES, type AlertRule } from './alert-rules.js';

/** Where an alert is explained: its heading in docs/operating.md, as a path inside the package. */
export const runbookOf = (rule: AlertRule): string => `docs/operating.md#${alertAnchor(rule)}`;

/** The anchor of an alert's heading: its name in lower case (GitHub's slug of a heading of letters alone). */
export const alertAnchor = ({ name }: AlertRule): string => name.toLowerCase();

/** A YAML scalar: JSON's double-quoted string is one, escapes included. */
const scalar = (text: string): string => JSON.stringify(text);

const ruleYaml = (rule: AlertRule): string[] => [
  `      - alert: ${rule.name}`,
  '        expr: |-',
  ...rule.expr.split('\n').map((line) => `          ${line}`),
  `        for: ${rule.for}`,
  '        labels:',
  `          severity: ${rule.severity}`,
  '        annotations:',
  `          summary: ${scalar(rule.summary)}`,
  `          description: ${scalar(rule.means)}`,
  `          runbook_url: ${scalar(runbookOf(rule))}`,
];

/** deploy/prometheus/petstore-alerts.yml: a Prometheus rules file of ALERT_RULES. */
export function alertsYaml(rules: readonly AlertRule[] = ALERT_RULES): string {
  return [
    '# Written by `npm run docs:alerts` from scripts/alerts/alert-rules.ts: edit there, not here.',
    '# What each alert means and what to do: docs/operating.md, "The alerts to set".',
    'groups:',
    `  - name: ${ALERT_GROUP}`,
    '    rules:',
    ...rules.flatMap(ruleYaml),
    '',
  ].join('\n');
}
