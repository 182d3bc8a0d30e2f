import { describe, expect, it } from 'vitest';
import { MemoryApiKeyRegistry } from '../../src/adapters/memory/memory-api-key-registry.js';
import { LayeredApiKeyRegistry } from '../../src/app/layered-api-key-registry.js';
import { STANDARD_PLANS } from '../../src/domain/quota/plan.js';

describe('LayeredApiKeyRegistry', () => {
  it('finds configured keys without the shared store, other keys in it, and registers into the shared store', async () => {
    const configured = new MemoryApiKeyRegistry();
    const shared = new MemoryApiKeyRegistry();
    await configured.register('configured', STANDARD_PLANS.pro);
    await shared.register('shared', STANDARD_PLANS.free);
    const layered = new LayeredApiKeyRegistry(configured, shared);

    expect(await layered.planOf('configured')).toEqual(STANDARD_PLANS.pro);
    expect(await layered.planOf('shared')).toEqual(STANDARD_PLANS.free);
    expect(await layered.planOf('nobody')).toBeUndefined();

    await layered.register('late', STANDARD_PLANS.business);
    expect(await shared.planOf('late')).toEqual(STANDARD_PLANS.business);
    expect(await configured.planOf('late')).toBeUndefined();
  });

  it('keeps configured keys working when the shared store has lost them or is down', async () => {
    const configured = new MemoryApiKeyRegistry();
    await configured.register('configured', STANDARD_PLANS.pro);
    const down = { planOf: () => Promise.reject(new Error('down')), register: () => Promise.reject(new Error('down')) };
    expect(await new LayeredApiKeyRegistry(configured, down).planOf('configured')).toEqual(STANDARD_PLANS.pro);
  });
});
