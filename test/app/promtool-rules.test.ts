import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ALERT_RULES, type AlertRule } from '../../scripts/alerts/alert-rules.js';
import { runbookOf } from '../../scripts/alerts/alerts-yaml.js';

/*
 * The shipped rules file under Prometheus's own tools: `promtool check rules` (syntax, PromQL,
 * templates) and `promtool test rules` with, for each alert, series under which it fires (its
 * labels and its summary as templated) and healthy ones under which it stays silent. promtool
 * comes with Debian's prometheus package; without it the tests are skipped, saying so.
 */

const RULES_FILE = fileURLToPath(new URL('../../deploy/prometheus/petstore-alerts.yml', import.meta.url));
const promtool = spawnSync('promtool', ['--version']).status === 0;
const SKIPPED = '(skipped without promtool on PATH: apt-get install prometheus)';

/** Series in promtool's notation: `'0+60x30'` starts at 0 and grows by 60 each minute, 30 times. */
type Series = Readonly<Record<string, string>>;

interface Firing {
  readonly series: Series;
  readonly at: string;
  /** The alert's labels beyond alertname and severity. */
  readonly labels: Readonly<Record<string, string>>;
  readonly summary: string;
}

interface Silent {
  /** What the healthy case shows. */
  readonly healthy: string;
  readonly series: Series;
  readonly at: string;
}

interface AlertCases {
  readonly fires: Firing;
  readonly silent: readonly Silent[];
}

const A = 'a:9464';
const B = 'b:9464';
const target = (instance: string): string => `job="petstore",instance="${instance}"`;
/** A series of petstore_quota_decisions_total. */
const decisions = (instance: string, plan: string, verdict: string): string =>
  `petstore_quota_decisions_total{${target(instance)},plan="${plan}",verdict="${verdict}"}`;

const CASES: Readonly<Record<string, AlertCases>> = {
  PetstoreInstanceDown: {
    fires: { series: { [`up{${target(A)}}`]: '1 0x5' }, at: '4m', labels: { job: 'petstore', instance: A }, summary: `Prometheus cannot scrape petstore at ${A}` },
    silent: [
      { healthy: 'every scrape answered', series: { [`up{${target(A)}}`]: '1x5' }, at: '4m' },
      { healthy: 'one failed scrape, within the wait', series: { [`up{${target(A)}}`]: '1 1 0 1 1 1' }, at: '4m' },
    ],
  },
  PetstoreStoreDown: {
    fires: {
      series: { [`petstore_store_up{${target(A)},store="postgres"}`]: '1 0x5', [`petstore_store_up{${target(A)},store="redis"}`]: '1x5' },
      at: '3m',
      labels: { job: 'petstore', instance: A, store: 'postgres' },
      summary: `postgres is down for ${A}: requests that need it answer 503`,
    },
    silent: [
      { healthy: 'every store up', series: { [`petstore_store_up{${target(A)},store="postgres"}`]: '1x5' }, at: '3m' },
      {
        healthy: 'a store down that the API is served without (PetstoreServingDegraded)',
        series: {
          [`petstore_store_up{${target(A)},store="postgres"}`]: '1x5',
          [`petstore_store_up{${target(A)},store="redis"}`]: '1 0x5',
          [`petstore_store_degraded{${target(A)},store="redis"}`]: '0 1x5',
        },
        at: '3m',
      },
    ],
  },
  PetstoreServingDegraded: {
    fires: {
      series: { [`petstore_store_degraded{${target(A)},store="redis"}`]: '0 1x5' },
      at: '3m',
      labels: { job: 'petstore', instance: A, store: 'redis' },
      summary: `${A} serves without redis: quotas per instance or not counted`,
    },
    silent: [{ healthy: 'Redis up', series: { [`petstore_store_degraded{${target(A)},store="redis"}`]: '0x5' }, at: '3m' }],
  },
  PetstoreQuotaFallbackServing: {
    fires: {
      series: { [`petstore_quota_fallback_active{${target(A)}}`]: '0 2x5' },
      at: '3m',
      labels: { job: 'petstore', instance: A },
      summary: `The quota outage fallback decides quotas on ${A} (2 processes)`,
    },
    silent: [{ healthy: 'Redis decides', series: { [`petstore_quota_fallback_active{${target(A)}}`]: '0x5' }, at: '3m' }],
  },
  PetstoreErrorRate: {
    fires: {
      // 0.2 of 10.2 answers a second are 503s.
      series: {
        [`petstore_http_requests_total{${target(A)},method="GET",route="/pets",status="200"}`]: '0+600x20',
        [`petstore_http_requests_total{${target(A)},method="GET",route="/pets",status="503"}`]: '0+12x20',
      },
      at: '15m',
      labels: { job: 'petstore', instance: A },
      summary: `1.961% of the answers of ${A} are 5xx`,
    },
    silent: [
      {
        healthy: '0.5% of 503s, and many requests aborted by their clients',
        series: {
          [`petstore_http_requests_total{${target(A)},method="GET",route="/pets",status="200"}`]: '0+600x20',
          [`petstore_http_requests_total{${target(A)},method="GET",route="/pets",status="503"}`]: '0+3x20',
          [`petstore_http_requests_total{${target(A)},method="GET",route="/pets",status="aborted"}`]: '0+300x20',
        },
        at: '15m',
      },
    ],
  },
  PetstoreSlowAnswers: {
    fires: {
      // 10 of 100 answers a minute between 0.5 s and 1 s: the 99th percentile is 0.95 s.
      series: {
        [`petstore_http_request_duration_seconds_bucket{${target(A)},method="GET",route="/pets",le="0.1"}`]: '0+50x20',
        [`petstore_http_request_duration_seconds_bucket{${target(A)},method="GET",route="/pets",le="0.5"}`]: '0+90x20',
        [`petstore_http_request_duration_seconds_bucket{${target(A)},method="GET",route="/pets",le="1"}`]: '0+100x20',
        [`petstore_http_request_duration_seconds_bucket{${target(A)},method="GET",route="/pets",le="+Inf"}`]: '0+100x20',
      },
      at: '15m',
      labels: { job: 'petstore', instance: A },
      summary: `1% of the answers of ${A} take more than 950ms`,
    },
    silent: [
      {
        healthy: 'every answer within 0.1 s',
        series: {
          [`petstore_http_request_duration_seconds_bucket{${target(A)},method="GET",route="/pets",le="0.1"}`]: '0+100x20',
          [`petstore_http_request_duration_seconds_bucket{${target(A)},method="GET",route="/pets",le="0.5"}`]: '0+100x20',
          [`petstore_http_request_duration_seconds_bucket{${target(A)},method="GET",route="/pets",le="+Inf"}`]: '0+100x20',
        },
        at: '15m',
      },
    ],
  },
  PetstoreRateLimitedShare: {
    fires: {
      // Plan free over two instances: 60 of 180 decisions a minute refused; plan pro, 1 of 61.
      series: {
        [decisions(A, 'free', 'admitted')]: '0+60x30',
        [decisions(B, 'free', 'admitted')]: '0+60x30',
        [decisions(A, 'free', 'rate_limited')]: '0+40x30',
        [decisions(B, 'free', 'banned')]: '0+20x30',
        [decisions(A, 'pro', 'admitted')]: '0+60x30',
        [decisions(A, 'pro', 'rate_limited')]: '0+1x30',
      },
      at: '27m',
      labels: { job: 'petstore', plan: 'free' },
      summary: '33.33% of the requests of plan free are answered 429',
    },
    silent: [
      {
        healthy: 'half the requests answered 402 credits_exhausted, none 429 (PetstoreCreditsExhausted)',
        series: {
          [decisions(A, 'free', 'admitted')]: '0+60x30',
          [decisions(A, 'free', 'credits_exhausted')]: '0+60x30',
        },
        at: '27m',
      },
    ],
  },
  PetstoreShadowRuleRefusals: {
    fires: {
      series: {
        [decisions(A, 'github', 'admitted')]: '0+100x70',
        [`petstore_quota_shadow_refusals_total{${target(A)},plan="github",rule="search"}`]: '0+5x70',
        [`petstore_quota_shadow_refusals_total{${target(A)},plan="github",rule="hour"}`]: '0+0.5x70',
      },
      at: '65m',
      labels: { job: 'petstore', plan: 'github', rule: 'search' },
      summary: 'Shadow rule search of plan github would refuse 5% of its requests',
    },
    silent: [
      {
        healthy: 'a shadow rule refusing 0.5% of its plan',
        series: {
          [decisions(A, 'github', 'admitted')]: '0+100x70',
          [`petstore_quota_shadow_refusals_total{${target(A)},plan="github",rule="search"}`]: '0+0.5x70',
        },
        at: '65m',
      },
    ],
  },
  PetstoreCreditsExhausted: {
    fires: {
      series: {
        [decisions(A, 'metered', 'admitted')]: '0+90x30',
        [decisions(A, 'metered', 'credits_exhausted')]: '0+10x30',
      },
      at: '27m',
      labels: { job: 'petstore', plan: 'metered' },
      summary: '10% of the requests of plan metered are answered 402 credits_exhausted',
    },
    silent: [
      {
        healthy: 'one request in a hundred answered 402',
        series: {
          [decisions(A, 'metered', 'admitted')]: '0+99x30',
          [decisions(A, 'metered', 'credits_exhausted')]: '0+1x30',
        },
        at: '27m',
      },
    ],
  },
  PetstoreWorkerRestarts: {
    fires: {
      series: { [`petstore_worker_restarts_total{${target(A)}}`]: '0 0 1 2 3 4 5 5 5 5 5 5' },
      at: '9m',
      labels: { job: 'petstore', instance: A },
      summary: `Workers of ${A} were replaced 5 times in 15 minutes`,
    },
    silent: [{ healthy: 'one worker replaced', series: { [`petstore_worker_restarts_total{${target(A)}}`]: '0 0 1 1 1 1 1 1 1 1 1 1' }, at: '9m' }],
  },
};

const inputSeries = (series: Series) => Object.entries(series).map(([name, values]) => ({ series: name, values }));

const firingTest = (rule: AlertRule, { series, at, labels, summary }: Firing) => ({
  interval: '1m',
  input_series: inputSeries(series),
  alert_rule_test: [
    {
      eval_time: at,
      alertname: rule.name,
      exp_alerts: [{ exp_labels: { ...labels, severity: rule.severity }, exp_annotations: { summary, description: rule.means, runbook_url: runbookOf(rule) } }],
    },
  ],
});

const silentTest = (rule: AlertRule, { series, at }: Silent) => ({
  interval: '1m',
  input_series: inputSeries(series),
  alert_rule_test: [{ eval_time: at, alertname: rule.name, exp_alerts: [] }],
});

const casesOf = (rule: AlertRule): AlertCases => {
  const cases = CASES[rule.name];
  if (cases === undefined) throw new Error(`${rule.name} has no cases in CASES`);
  return cases;
};

const dir = mkdtempSync(join(tmpdir(), 'petstore-alerts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `promtool test rules` on one file of tests (JSON is YAML), answering its exit status and what it printed. */
function promtoolTest(name: string, tests: readonly object[]): { status: number | null; output: string } {
  const file = join(dir, `${name}.yml`);
  writeFileSync(file, JSON.stringify({ rule_files: [RULES_FILE], evaluation_interval: '1m', tests }, null, 1));
  const run = spawnSync('promtool', ['test', 'rules', file], { encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('the shipped alert rules under promtool', () => {
  it.skipIf(!promtool)(`pass promtool check rules ${SKIPPED}`, () => {
    const run = spawnSync('promtool', ['check', 'rules', RULES_FILE], { encoding: 'utf8' });
    expect(`${run.stdout}${run.stderr}`).toContain(`SUCCESS: ${ALERT_RULES.length} rules found`);
    expect(run.status).toBe(0);
  });

  it('has cases for every alert, and none for an alert that is gone', () => {
    expect(Object.keys(CASES).sort()).toEqual(ALERT_RULES.map((rule) => rule.name).sort());
  });

  it.skipIf(!promtool).each(ALERT_RULES.map((rule) => [rule.name, rule] as const))(
    `%s fires on its series, with its labels and summary, and stays silent on healthy ones ${SKIPPED}`,
    (name, rule) => {
      const { fires, silent } = casesOf(rule);
      const run = promtoolTest(name, [firingTest(rule, fires), ...silent.map((healthy) => silentTest(rule, healthy))]);
      expect(run.output).toContain('SUCCESS');
      expect(run.status).toBe(0);
    },
  );

  it.skipIf(!promtool)(`fails a case whose alert does not fire: the cases can fail ${SKIPPED}`, () => {
    const rule = ALERT_RULES.find(({ name }) => name === 'PetstoreStoreDown')!;
    const healthy = casesOf(rule).silent[0]!;
    const run = promtoolTest('wrong', [firingTest(rule, { ...casesOf(rule).fires, series: healthy.series })]);
    expect(run.output).toContain('FAILED');
    expect(run.status).not.toBe(0);
  });
});
