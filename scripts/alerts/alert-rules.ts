/*
 * The Prometheus alerts the package ships: one table, from which `npm run docs:alerts` writes
 * deploy/prometheus/petstore-alerts.yml and the alerts section of docs/operating.md
 * (test/app/alert-rules.test.ts holds both equal to it).
 */

export type Severity = 'critical' | 'warning' | 'info';

export interface AlertRule {
  /** The alert's name, also its heading (and so its runbook anchor) in docs/operating.md. */
  readonly name: string;
  readonly severity: Severity;
  /** How long the expression must hold before the alert fires, as Prometheus writes a duration. */
  readonly for: string;
  /** PromQL. */
  readonly expr: string;
  /** When it fires, in words: the docs table's column. */
  readonly when: string;
  /** The annotation `summary`, templated with the alert's labels. */
  readonly summary: string;
  /** What it means: the annotation `description` and the guide's paragraph. */
  readonly means: string;
  /** What to do: the guide's paragraph. */
  readonly action: string;
}

/** The rules' group name in the YAML file. */
export const ALERT_GROUP = 'petstore';

/** The scrape job the one rule on Prometheus's own `up` assumes, as docs/operating.md's scrape config names it. */
export const SCRAPE_JOB = 'petstore';

export const ALERT_RULES: readonly AlertRule[] = [
  {
    name: 'PetstoreInstanceDown',
    severity: 'critical',
    for: '2m',
    expr: `up{job="${SCRAPE_JOB}"} == 0`,
    when: 'Prometheus cannot scrape the admin listener',
    summary: 'Prometheus cannot scrape petstore at {{ $labels.instance }}',
    means:
      `The admin listener did not answer Prometheus's scrapes for 2 minutes: the process is down or restarting in a loop, or \`PETSTORE_ADMIN_PORT\` is not reachable from Prometheus. ` +
      `The instance's other alerts stay silent meanwhile, since its series are missing. The rule reads the scrape job \`${SCRAPE_JOB}\`, as the scrape config of this guide names it.`,
    action:
      'Ask the service manager (`systemctl status petstore`, `journalctl -u petstore`) why the process stopped, and `curl` its `/healthz` on the admin port from the Prometheus host.',
  },
  {
    name: 'PetstoreStoreDown',
    severity: 'critical',
    for: '1m',
    // A store with an outage policy has a petstore_store_degraded series: its outage is PetstoreServingDegraded's.
    expr: 'petstore_store_up == 0 unless petstore_store_degraded',
    when: 'a store the API cannot serve without is down',
    summary: '{{ $labels.store }} is down for {{ $labels.instance }}: requests that need it answer 503',
    means:
      'The store did not answer a ping within a second at the scrapes of the last minute, and the API is not served without it (PostgreSQL; Redis under `PETSTORE_STORE=redis` or `PETSTORE_QUOTA_FALLBACK=deny`). ' +
      'Requests that need it answer 503 `service_unavailable`, and `/readyz` answers 503, so the load balancer takes the instance out; on every instance at once, the API is down.',
    action:
      'Restore the store (its process, host, network, credentials, PostgreSQL `max_connections`); the instances reconnect by themselves. The `store unavailable` log line and the `failed` list of `/readyz` give the cause.',
  },
  {
    name: 'PetstoreServingDegraded',
    severity: 'warning',
    for: '1m',
    expr: 'petstore_store_degraded == 1',
    when: 'Redis is down and the API is served without it',
    summary: '{{ $labels.instance }} serves without {{ $labels.store }}: quotas per instance or not counted',
    means:
      'Redis, which holds only the quota counters, strikes and bans under `PETSTORE_STORE=postgres`, is down, and the API is served without it as `PETSTORE_QUOTA_FALLBACK` says: ' +
      'quotas decided by each instance (`local`) or not at all (`allow`), bans not shared. `/readyz` says `degraded` (200, or 503 under `PETSTORE_READY_ON_DEGRADED=fail`).',
    action: 'Restore Redis; the instances use it again by themselves. `PetstoreQuotaFallbackServing` tells whether requests were decided meanwhile.',
  },
  {
    name: 'PetstoreQuotaFallbackServing',
    severity: 'warning',
    for: '1m',
    expr: 'petstore_quota_fallback_active > 0',
    when: 'the quota outage fallback decides in place of Redis',
    summary: 'The quota outage fallback decides quotas on {{ $labels.instance }} ({{ $value }} processes)',
    means:
      'Requests are decided by the quota outage fallback in place of Redis, on as many processes as the value says (summed over workers): under `local` each instance admits up to a whole limit itself, ' +
      'so a key spread over N instances may get N times its limit; under `allow` nothing is counted. Under `PETSTORE_STORE=redis` the records are down too (`PetstoreStoreDown`).',
    action:
      'Restore Redis. The log line `quota outage fallback serving` marks the start, `quota outage fallback stopped: Redis decides quotas again` the end.',
  },
  {
    name: 'PetstoreErrorRate',
    severity: 'critical',
    for: '5m',
    expr:
      'sum without (method, route, status) (rate(petstore_http_requests_total{status=~"5.."}[5m]))\n' +
      '  / sum without (method, route, status) (rate(petstore_http_requests_total[5m])) > 0.01',
    when: 'more than 1% of the answers are 5xx',
    summary: '{{ $value | humanizePercentage }} of the answers of {{ $labels.instance }} are 5xx',
    means:
      'More than 1% of an instance\'s answers over 5 minutes are 503 `service_unavailable` (a store unavailable) or 500 (an unexpected failure, logged as a `"level":50` line with its `requestId`).',
    action:
      '`sum by (store, operation) (rate(petstore_store_errors_total[5m]))` names the store and operation behind the 503s; for 500s, the `"level":50` lines give the error.',
  },
  {
    name: 'PetstoreSlowAnswers',
    severity: 'warning',
    for: '10m',
    expr: 'histogram_quantile(0.99, sum without (method, route) (rate(petstore_http_request_duration_seconds_bucket[5m]))) > 0.5',
    when: 'the 99th percentile of answers takes more than 0.5 s',
    summary: '1% of the answers of {{ $labels.instance }} take more than {{ $value | humanizeDuration }}',
    means: 'The slowest 1% of an instance\'s answers over 5 minutes took more than half a second, for 10 minutes.',
    action:
      'Compare the CPU of the instances and of the stores; `histogram_quantile(0.99, sum by (route, le) (rate(petstore_http_request_duration_seconds_bucket[5m])))` names the slow routes.',
  },
  {
    name: 'PetstoreRateLimitedShare',
    severity: 'warning',
    for: '15m',
    expr:
      'sum by (job, plan) (rate(petstore_quota_decisions_total{verdict=~"rate_limited|banned|concurrency_limited"}[10m]))\n' +
      '  / sum by (job, plan) (rate(petstore_quota_decisions_total[10m])) > 0.2',
    when: 'more than a fifth of a plan\'s requests are answered 429',
    summary: '{{ $value | humanizePercentage }} of the requests of plan {{ $labels.plan }} are answered 429',
    means:
      'More than a fifth of a plan\'s requests, over every instance, are refused with a 429 (`rate_limited`, `banned` or `concurrency_limited`) for 15 minutes: ' +
      'its limits are too low for how its callers use it, or a client retries in a loop without waiting for `Retry-After` (then mostly `banned`).',
    action:
      '`sum by (verdict) (rate(petstore_quota_decisions_total{plan="…"}[10m]))` tells which refusal; the access lines (`"verdict":"rate_limited"`, the key\'s digest) name the callers, ' +
      '`petstore keys show ID` a key\'s state. Raise the plan\'s limits in the plans file, give a key an override, or tell the caller.',
  },
  {
    name: 'PetstoreShadowRuleRefusals',
    severity: 'info',
    for: '30m',
    expr:
      'sum by (job, plan, rule) (rate(petstore_quota_shadow_refusals_total[30m]))\n' +
      '  / on (job, plan) group_left sum by (job, plan) (rate(petstore_quota_decisions_total[30m])) > 0.01',
    when: 'a shadow rule would refuse more than 1% of its plan\'s requests',
    summary: 'Shadow rule {{ $labels.rule }} of plan {{ $labels.plan }} would refuse {{ $value | humanizePercentage }} of its requests',
    means:
      'A rule in `shadow` mode (counted, never enforced) had no room for more than 1% of its plan\'s requests for 30 minutes: switched to `enforce`, it would refuse them.',
    action:
      'Before enforcing it, raise its limit or tell the callers it would refuse: their access lines carry `"shadowed":["<rule>"]`. Nothing is refused meanwhile.',
  },
  {
    name: 'PetstoreCreditsExhausted',
    severity: 'warning',
    for: '15m',
    expr:
      'sum by (job, plan) (rate(petstore_quota_decisions_total{verdict="credits_exhausted"}[15m]))\n' +
      '  / sum by (job, plan) (rate(petstore_quota_decisions_total[15m])) > 0.05',
    when: 'more than 5% of a plan\'s requests are answered 402',
    summary: '{{ $value | humanizePercentage }} of the requests of plan {{ $labels.plan }} are answered 402 credits_exhausted',
    means:
      'More than 5% of a plan\'s requests, over every instance, are answered 402 `credits_exhausted` for 15 minutes: keys of the plan spent their credits, which come back only at the refill or by a top-up.',
    action:
      'The access lines (`"verdict":"credits_exhausted"`) name the keys; `petstore keys credits ID` reads a balance and `--add N` tops it up; `petstore keys usage` exports what was spent.',
  },
  {
    name: 'PetstoreWorkerRestarts',
    severity: 'warning',
    for: '1m',
    expr: 'increase(petstore_worker_restarts_total[15m]) > 3',
    when: 'workers died more than 3 times in 15 minutes',
    summary: 'Workers of {{ $labels.instance }} were replaced {{ $value | printf "%.0f" }} times in 15 minutes',
    means:
      'Under `PETSTORE_WORKERS` above 1, worker processes died and were replaced more than 3 times in 15 minutes: a crash loop, a memory limit (the kernel\'s or the service manager\'s) or a store a starting worker cannot reach.',
    action:
      'The `worker died; starting another` lines give each one\'s exit `code` and `signal` (`SIGKILL`: most often a memory limit, see Sizing); the lines before them, its last words.',
  },
];
