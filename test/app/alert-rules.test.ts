import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ALERT_RULES, type AlertRule } from '../../scripts/alerts/alert-rules.js';
import { ALERTS_END, ALERTS_START, withAlertsSection } from '../../scripts/alerts/alerts-markdown.js';
import { alertsYaml } from '../../scripts/alerts/alerts-yaml.js';
import { createMetrics } from '../../src/app/admin/metrics.js';
import { createWorkerMetrics } from '../../src/app/cluster/worker-metrics.js';

/*
 * The shipped rules file and the guide's alerts are written from one table (npm run docs:alerts),
 * and every metric the rules read is one the service exports: a metric renamed in the code fails
 * here. promtool's own checks of the file are test/app/promtool-rules.test.ts.
 */

const read = (path: string): string => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/** Prometheus's own series, which the service does not export: `up`, of the scrape. */
const PROMETHEUS_SERIES = new Set(['up']);

/** The series names of an exposition: every metric its `# TYPE` lines declare, a histogram's as its three series. */
function seriesNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const [, name = '', type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name}${suffix}`);
    else names.add(name);
  }
  return names;
}

/**
 * What the service exports: an in-process scrape of a server's metrics, every optional one on (a
 * store with an outage policy, the quota fallback), and of a supervisor's.
 */
async function exportedSeries(): Promise<Set<string>> {
  const server = createMetrics([{ store: 'redis', ping: () => Promise.resolve() }], new Map([['redis', 'PETSTORE_QUOTA_FALLBACK=local']]), () => false);
  const supervisor = createWorkerMetrics();
  return new Set([...seriesNames(await server.text()), ...seriesNames(await supervisor.registry.metrics())]);
}

/** Every series name a rule's expression reads (the identifiers Prometheus would look up). */
const seriesRead = ({ expr }: AlertRule): string[] => {
  const outsideStrings = expr.replaceAll(/"(?:[^"\\]|\\.)*"/g, '""');
  const names = [...outsideStrings.matchAll(/\b(petstore_[a-z0-9_]+)/g)].map(([, name = '']) => name);
  return /\bup\{/.test(outsideStrings) ? [...names, 'up'] : names;
};

const unknownSeries = (rules: readonly AlertRule[], exported: Set<string>): string[] =>
  rules.flatMap((rule) => seriesRead(rule).filter((name) => !exported.has(name) && !PROMETHEUS_SERIES.has(name)).map((name) => `${rule.name}: ${name}`));

describe('the alert rules', () => {
  it('deploy/prometheus/petstore-alerts.yml is the one npm run docs:alerts writes from scripts/alerts/alert-rules.ts', () => {
    expect(read('deploy/prometheus/petstore-alerts.yml')).toBe(alertsYaml());
  });

  it("docs/operating.md's alerts are the ones npm run docs:alerts writes from the same table", () => {
    const doc = read('docs/operating.md');
    expect(doc).toContain(ALERTS_START);
    expect(doc).toContain(ALERTS_END);
    expect(withAlertsSection(doc)).toBe(doc);
  });

  it('reads only metrics the service exports (a renamed metric fails here)', async () => {
    const exported = await exportedSeries();
    expect(unknownSeries(ALERT_RULES, exported)).toEqual([]);
    // Every rule reads at least one metric, and the check sees a name the service lacks.
    for (const rule of ALERT_RULES) expect(seriesRead(rule), rule.name).not.toEqual([]);
    const renamed = ALERT_RULES.map((rule) => ({ ...rule, expr: rule.expr.replaceAll('petstore_store_up', 'petstore_store_reachable') }));
    expect(unknownSeries(renamed, exported)).toEqual(['PetstoreStoreDown: petstore_store_reachable']);
  });

  it('names each alert once, and gives each a wait, a severity and the words of its annotations and its section', () => {
    expect(new Set(ALERT_RULES.map((rule) => rule.name)).size).toBe(ALERT_RULES.length);
    for (const rule of ALERT_RULES) {
      expect(rule.name, rule.name).toMatch(/^Petstore[A-Z][A-Za-z]+$/);
      expect(rule.for, rule.name).toMatch(/^[1-9][0-9]*[smh]$/);
      for (const text of [rule.when, rule.summary, rule.means, rule.action]) expect(text.trim(), rule.name).not.toBe('');
    }
  });
});
