import { MemoryQuotaStore } from '../../src/adapters/memory/memory-quota-store.js';
import { describePlanChangeProperties } from '../contracts/quota-plan-change-properties.js';
import { runs } from '../support/property-runs.js';

describePlanChangeProperties('the engine (the memory store)', (clock) => new MemoryQuotaStore(clock), { numRuns: runs(1_500) });
