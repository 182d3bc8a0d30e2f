import { describe, expect, it } from 'vitest';
import { MemoryApiKeyRegistry } from '../../src/adapters/memory/memory-api-key-registry.js';
import { MemoryQuotaStore } from '../../src/adapters/memory/memory-quota-store.js';
import { DEFAULT_BAN_POLICY } from '../../src/domain/quota/ban-policy.js';
import { STANDARD_PLANS } from '../../src/domain/quota/plan.js';
import { RequestAdmission } from '../../src/domain/quota/request-admission.js';
import type { ApiKeyGrant, ApiKeyRegistry } from '../../src/ports/api-key-registry.js';
import { ManualClock } from '../support/manual-clock.js';

const CUSTOMER = 'c1'.repeat(32);
const STAFF = '5f'.repeat(32);

const admissionOver = (keys: ApiKeyRegistry): RequestAdmission =>
  new RequestAdmission(keys, new MemoryQuotaStore(new ManualClock(0)), {
    anonymousPolicy: { rules: [{ name: 'minute', limit: 60, windowMs: 60_000 }] },
    ban: DEFAULT_BAN_POLICY,
  });

const registryOf = async (grants: Record<string, ApiKeyGrant>): Promise<MemoryApiKeyRegistry> => {
  const keys = new MemoryApiKeyRegistry();
  for (const [digest, grant] of Object.entries(grants)) await keys.register(digest, grant);
  return keys;
};

describe('RequestAdmission: who is calling', () => {
  it('names the caller of a known key by its digest, with the role the key grants; no caller without a known key', async () => {
    const admission = admissionOver(
      await registryOf({
        [CUSTOMER]: { plan: STANDARD_PLANS.free, role: 'customer' },
        [STAFF]: { plan: STANDARD_PLANS.pro, role: 'staff' },
      }),
    );
    expect(await admission.admit(CUSTOMER, '192.0.2.1')).toMatchObject({
      plan: STANDARD_PLANS.free,
      caller: { id: CUSTOMER, role: 'customer' },
    });
    expect(await admission.admit(STAFF, '192.0.2.1')).toMatchObject({ plan: STANDARD_PLANS.pro, caller: { id: STAFF, role: 'staff' } });
    for (const digest of ['00'.repeat(32), undefined]) {
      expect(await admission.admit(digest, '192.0.2.1')).toMatchObject({ plan: undefined, caller: undefined });
    }
  });

  it('answers synchronously from memory and hands each request of a key the same frozen caller and policy', async () => {
    const admission = admissionOver(await registryOf({ [STAFF]: { plan: STANDARD_PLANS.pro, role: 'staff' } }));
    const first = admission.admit(STAFF, '192.0.2.1');
    const second = admission.admit(STAFF, '192.0.2.1');
    if (first instanceof Promise || second instanceof Promise) throw new Error('the in-memory path must stay synchronous');
    expect(second.caller).toBe(first.caller);
    expect(second.policy).toBe(first.policy);
    expect(Object.isFrozen(first.caller)).toBe(true);
  });

  it('gives each key its own caller even when a registry shares one grant object between keys, and awaits a remote one', async () => {
    const shared: ApiKeyGrant = { plan: STANDARD_PLANS.business, role: 'staff' };
    const remote: ApiKeyRegistry = { grantOf: async () => shared, register: async () => {} };
    const admission = admissionOver(remote);
    for (const digest of [CUSTOMER, STAFF, CUSTOMER]) {
      expect((await admission.admit(digest, '192.0.2.1')).caller).toEqual({ id: digest, role: 'staff' });
    }
  });
});
