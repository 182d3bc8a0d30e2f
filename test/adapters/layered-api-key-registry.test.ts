import { describe, expect, it } from 'vitest';
import { MemoryApiKeyRegistry } from '../../src/adapters/memory/memory-api-key-registry.js';
import { LayeredApiKeyRegistry } from '../../src/adapters/wrappers/layered-api-key-registry.js';
import { STANDARD_PLANS } from '../../src/domain/quota/plan.js';
import type { ApiKeyGrant } from '../../src/ports/api-key-registry.js';

const proStaff: ApiKeyGrant = { plan: STANDARD_PLANS.pro, role: 'staff' };
const free: ApiKeyGrant = { plan: STANDARD_PLANS.free, role: 'customer' };
const business: ApiKeyGrant = { plan: STANDARD_PLANS.business, role: 'customer' };

describe('LayeredApiKeyRegistry', () => {
  it('finds configured keys without the shared store, other keys in it, and registers into the shared store', async () => {
    const configured = new MemoryApiKeyRegistry();
    const shared = new MemoryApiKeyRegistry();
    await configured.register('configured', proStaff);
    await shared.register('shared', free);
    const layered = new LayeredApiKeyRegistry(configured, shared);

    expect(await layered.grantOf('configured')).toEqual(proStaff);
    expect(await layered.grantOf('shared')).toEqual(free);
    expect(await layered.grantOf('nobody')).toBeUndefined();

    await layered.register('late', business);
    expect(await shared.grantOf('late')).toEqual(business);
    expect(await configured.grantOf('late')).toBeUndefined();
  });

  it('keeps configured keys working when the shared store has lost them or is down', async () => {
    const configured = new MemoryApiKeyRegistry();
    await configured.register('configured', proStaff);
    const down = { grantOf: () => Promise.reject(new Error('down')), register: () => Promise.reject(new Error('down')) };
    expect(await new LayeredApiKeyRegistry(configured, down).grantOf('configured')).toEqual(proStaff);
  });
});
