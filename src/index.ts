/**
 * `petstore-service`: the framework-free core (pets, orders, paging, the quota engine), its
 * ports and the in-memory adapters. Importing it loads no Redis client, no container and
 * changes no global; Redis, HTTP and the standalone server have entry points of their own.
 */
export type { Inventory, NewPet, NewPetInput, Pet, PetStatus } from './domain/pets/pet.js';
export { PET_STATUSES, isPetStatus, MAX_ID } from './domain/pets/pet.js';
export { PetCatalog, type ListPetsQuery, type PetJsonPage, type PetPage } from './domain/pets/pet-catalog.js';
export { validateNewPet } from './domain/pets/new-pet-validation.js';
export { petJson } from './domain/pets/pet-json.js';
export type { PetUpdateInput } from './domain/pets/pet-update.js';
export type { NewOrder, Order, OrderStatus } from './domain/orders/order.js';
export type { NewOrderInput, OrderUpdateInput } from './domain/orders/order-input.js';
export { ORDER_STATUSES, isOrderStatus } from './domain/orders/order.js';
export { ORDER_TRANSITIONS, PET_STATUS_OF_ORDER, STAFF_STATUSES, type OrderAction, type StaffStatus } from './domain/orders/order-status-machine.js';
export { OrderService, type ListOrdersQuery, type OrderPage } from './domain/orders/order-service.js';
export { ROLES, type Caller, type Role } from './domain/access/caller.js';
export { runIdempotently, type IdempotentOutcome } from './domain/idempotency/idempotent.js';
export { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from './domain/paging/page-limits.js';
export { IdsExhaustedError, StoreUnavailableError, type DomainError, type DomainErrorCode } from './domain/errors.js';
export type { Result } from './domain/result.js';

export { STANDARD_PLANS, enterprisePlan, type Plan, type PlanName } from './domain/quota/plan.js';
export type { BanPolicy, QuotaPolicy, QuotaRule } from './domain/quota/quota-rule.js';
export type { QuotaDecision, QuotaVerdict } from './domain/quota/quota-decision.js';
export { DEFAULT_BAN_POLICY } from './domain/quota/ban-policy.js';
export { MAX_RULE_LIMIT } from './domain/quota/decidable-policy.js';
export { bindingRuleIndex } from './domain/quota/binding-rule.js';
export { RequestAdmission, type Admission, type AdmissionOptions } from './domain/quota/request-admission.js';
export { QuotaOutageFallback, type QuotaOutagePolicy } from './adapters/wrappers/quota-outage-fallback.js';
export { LocalRefusals, type LocalRefusalsOptions } from './adapters/wrappers/local-refusals.js';
export {
  createRateLimiter,
  type RateLimiter,
  type RateLimiterOptions,
  type RateLimitCheck,
  type RateLimitCheckOf,
  type SubjectOverride,
} from './domain/quota/rate-limiter.js';
export type { RateLimitHeaders } from './domain/quota/rate-limit-fields.js';

export type { Clock } from './ports/clock.js';
export type { PetRepository, PetPageQuery, StoredPetPage } from './ports/pet-repository.js';
export type { OrderRepository, OrderPageQuery, PlaceOutcome, TransitionOutcome } from './ports/order-repository.js';
export type { IdempotencyStore, IdempotencyClaim, IdempotencyStart, IdempotentResult } from './ports/idempotency-store.js';
export type { ApiKeyRegistry, ApiKeyGrant, KeyAdmin, ManagedApiKey, RevokeOutcome, RollOutcome } from './ports/api-key-registry.js';
export type { QuotaStore } from './ports/quota-store.js';
export type { StrikeRecorder } from './ports/strike-recorder.js';
export type { CallKind, RequestSpan, SpanAttributes, SpanValue, TraceCarrier, Tracer } from './ports/tracer.js';
// Neither loads @opentelemetry/api: the tracer imports it when called, and only then.
export { openTelemetryTracer, TRACES_MODES, type TracesMode } from './adapters/opentelemetry/open-telemetry-tracer.js';
export { tracedCalls, type DbSystem } from './adapters/wrappers/traced-calls.js';

export { createMemoryStores, type MemoryStores } from './adapters/memory/memory-stores.js';
export { MemoryPetRepository } from './adapters/memory/memory-pet-repository.js';
export { MemoryOrderRepository } from './adapters/memory/memory-order-repository.js';
export { MemoryIdempotencyStore } from './adapters/memory/memory-idempotency-store.js';
export { MemoryApiKeyRegistry } from './adapters/memory/memory-api-key-registry.js';
export { MemoryQuotaStore } from './adapters/memory/memory-quota-store.js';
export { SystemClock } from './adapters/system/system-clock.js';
export { digestApiKey } from './adapters/api-key-digest.js';
