import { MemoryQuotaStore } from '../../src/adapters/memory/memory-quota-store.js';
import { describePlanChangeProperties } from '../contracts/quota-plan-change-properties.js';

describePlanChangeProperties('the engine (the memory store)', (clock) => new MemoryQuotaStore(clock), { numRuns: 1_500 });
