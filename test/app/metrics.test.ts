import { finishedEvent } from '../support/request-finished-event.js';
import { describe, expect, it } from 'vitest';
import type { RequestFinishedEvent } from '../../src/adapters/http/wire/request-finished.js';
import { createMetrics } from '../../src/app/admin/metrics.js';

const listed = (status: number): RequestFinishedEvent =>
  finishedEvent({ status, durationMs: 3, key: '2f1f2bb3', plan: 'pro', verdict: status === 429 ? 'rate_limited' : 'admitted' });

describe('the metrics of finished requests', () => {
  it('counts every request observed before a scrape, though requests are counted in batches', async () => {
    const metrics = createMetrics([]);
    for (let n = 0; n < 3; n++) metrics.observe(listed(200));
    metrics.observe(listed(429));
    const text = await metrics.text();
    expect(text).toContain('petstore_http_requests_total{method="GET",route="/pets",status="200"} 3');
    expect(text).toContain('petstore_http_requests_total{method="GET",route="/pets",status="429"} 1');
    expect(text).toContain('petstore_quota_decisions_total{plan="pro",verdict="admitted"} 3');
    expect(text).toContain('petstore_http_request_duration_seconds_count{method="GET",route="/pets"} 4');
    metrics.observe(listed(200));
    expect(await metrics.text()).toContain('petstore_http_requests_total{method="GET",route="/pets",status="200"} 4');
  });

  it('counts a request whose connection closed before its answer was sent under status "aborted", not under the status it was given', async () => {
    const metrics = createMetrics([]);
    metrics.observe(listed(200));
    metrics.observe({ ...listed(200), completed: false });
    const text = await metrics.text();
    expect(text).toContain('petstore_http_requests_total{method="GET",route="/pets",status="200"} 1');
    expect(text).toContain('petstore_http_requests_total{method="GET",route="/pets",status="aborted"} 1');
  });

  it('counts each would-be refusal of a shadow rule by plan and rule, and nothing for a request none would have refused', async () => {
    const metrics = createMetrics([]);
    metrics.observe(listed(200));
    metrics.observe({ ...listed(200), shadowed: ['search', 'hour'] });
    metrics.observe({ ...listed(200), shadowed: ['search'] });
    const text = await metrics.text();
    expect(text).toContain('petstore_quota_shadow_refusals_total{plan="pro",rule="search"} 2');
    expect(text).toContain('petstore_quota_shadow_refusals_total{plan="pro",rule="hour"} 1');
  });

  it('counts each refund by plan and rule, and each refund the store could not take apart, nothing for a request without one', async () => {
    const metrics = createMetrics([]);
    metrics.observe(listed(200));
    metrics.observe({ ...listed(503), refunded: ['budget', 'day'] });
    metrics.observe({ ...listed(500), refunded: ['budget'] });
    metrics.observe({ ...listed(502), refundLost: ['budget'] });
    const text = await metrics.text();
    expect(text).toContain('petstore_quota_refunds_total{plan="pro",rule="budget"} 2');
    expect(text).toContain('petstore_quota_refunds_total{plan="pro",rule="day"} 1');
    expect(text).toContain('petstore_quota_refunds_lost_total{plan="pro",rule="budget"} 1');
    expect(text).not.toContain('petstore_quota_refunds_lost_total{plan="pro",rule="day"}');
  });
});

describe('the metric names, by the rules promtool check metrics applies', () => {
  it('ends every counter in _total and no other metric so (prom-client names three gauges nodejs_active_*_total)', async () => {
    const metrics = createMetrics([]);
    const families = (await metrics.registry.getMetricsAsJSON()) as unknown as { name: string; type: string }[];
    expect(families.length).toBeGreaterThan(10);
    const misnamed = families.filter(({ name, type }) => (type === 'counter') !== name.endsWith('_total')).map(({ name, type }) => `${name} (${type})`);
    expect(misnamed).toEqual([]);
  });
});

describe('the outage fallback gauge', () => {
  it('is petstore_quota_fallback_active, 1 while the quota outage fallback serves and 0 otherwise', async () => {
    let active = false;
    const metrics = createMetrics([], new Map(), () => active);
    expect(await metrics.text()).toContain('petstore_quota_fallback_active 0');
    active = true;
    expect(await metrics.text()).toContain('petstore_quota_fallback_active 1');
  });
});
