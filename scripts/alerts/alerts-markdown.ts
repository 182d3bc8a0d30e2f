import { ALERT_RULES, type AlertRule } from './alert-rules.js';
import { alertAnchor } from './alerts-yaml.js';

export const ALERTS_START = '<!-- alerts:start -->';
export const ALERTS_END = '<!-- alerts:end -->';

const alertSection = (rule: AlertRule): string =>
  [`### ${rule.name}`, '', '```promql', rule.expr, '```', '', `**Means:** ${rule.means}`, '', `**Do:** ${rule.action}`].join('\n');

/** The alerts part of docs/operating.md: a table of every alert, then a section each. */
export function alertsMarkdown(rules: readonly AlertRule[] = ALERT_RULES): string {
  const table = [
    '| alert | fires when | for | severity |',
    '|---|---|---|---|',
    ...rules.map((rule) => `| [${rule.name}](#${alertAnchor(rule)}) | ${rule.when} | ${rule.for} | ${rule.severity} |`),
  ];
  return [table.join('\n'), ...rules.map(alertSection)].join('\n\n');
}

/** `markdown` with the block between the alerts markers made from ALERT_RULES; an error without the markers. */
export function withAlertsSection(markdown: string): string {
  const start = markdown.indexOf(ALERTS_START);
  const end = markdown.indexOf(ALERTS_END);
  if (start === -1 || end < start) throw new Error(`no ${ALERTS_START} … ${ALERTS_END} block to write the alerts into`);
  return `${markdown.slice(0, start + ALERTS_START.length)}\n${alertsMarkdown()}\n${markdown.slice(end)}`;
}
