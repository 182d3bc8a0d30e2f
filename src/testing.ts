/**
 * `petstore-service/testing`: the kit for whoever writes a store of their own or property-tests
 * quota rules, with no test framework in it (docs/testing-kit.md).
 * - Each port's contract as a list of named checks: `for (const check of checks) it(check.name, check.run)`.
 * - The reference model of the quota rules, the plain reading of every rule kind.
 * - fast-check arbitraries of plans and schedules, and the properties that a QuotaStore or a
 *   limiter function answers as the model does (fast-check is then an optional peer dependency).
 */
export type { ContractCheck, ContractOptions, Disposable } from './testing/check.js';
export { ManualClock } from './testing/manual-clock.js';
export { atLeast, atMost, lacks, like, poll, rejects, same, sameDecision, throws } from './testing/assertions.js';
export { claimOf, pagedPets, type CreateStores, type StoresFixture } from './testing/stores-fixture.js';
export { petRepositoryChecks } from './testing/pet-repository-contract.js';
export { orderRepositoryChecks } from './testing/order-repository-contract.js';
export { idempotencyStoreChecks } from './testing/idempotency-store-contract.js';
export { apiKeyRegistryChecks, keyAdminChecks, type ApiKeyRegistryFixture, type KeyAdminFixture } from './testing/api-key-registry-contract.js';
export { quotaStoreChecks, type QuotaStoreContractContext } from './testing/quota-store-contract.js';
export { CONTRACT_LEASE_MS, concurrencySlotsChecks, type ConcurrencySlotsContractContext } from './testing/concurrency-slots-contract.js';
export { creditLedgerChecks, type CreditLedgerContractContext } from './testing/credit-ledger-contract.js';
export { idExhaustionChecks, type CreateStoresNearIdLimit, type IdsLeft } from './testing/id-exhaustion-contract.js';
export { planChangeChecks, type PlanChangeCheckOptions } from './testing/quota-plan-change-contract.js';
export { toldRetryAt } from './testing/told-retry-at.js';
export { ReferenceQuota, ReferenceQuotaStore } from './testing/reference-quota.js';
export { ReferenceBucket } from './testing/reference-bucket.js';
export {
  banScenarioArb,
  burstAndWindowRulesArb,
  burstPlanChangeScenarioArb,
  modedRulesArb,
  planChangeScenarioArb,
  realPlanChangeScenarioArb,
  ruleCostsArb,
  scenarioArb,
  scheduleArb,
  smallBanArb,
  smallBurstRuleArb,
  smallRuleArb,
  smallRulesArb,
  type BanScenario,
  type PlanChangeScenario,
  type Scenario,
} from './testing/quota-schedules.js';
export {
  limiterAgreesWithModel,
  limiterKeepsToLimits,
  LimitExceeded,
  ModelDisagreement,
  quotaScheduleArb,
  quotaStoreAgreesWithModel,
  type LimiterFunction,
  type LimiterPropertyOptions,
  type PropertyOptions,
  type PropertyReport,
  type QuotaRequest,
  type QuotaSchedule,
  type QuotaScheduleOptions,
  type QuotaStorePropertyOptions,
  type TraceLine,
} from './testing/quota-properties.js';
