/**
 * The library's public surface. Embed the catalog and the quota engine without HTTP, or
 * start the HTTP adapter on a port of your choosing.
 */
export type { NewPet, Pet, PetStatus } from './domain/pets/pet.js';
export { PET_STATUSES, isPetStatus } from './domain/pets/pet.js';
export { PetCatalog, type ListPetsQuery, type PetPage } from './domain/pets/pet-catalog.js';
export { StoreUnavailableError, type DomainError, type DomainErrorCode } from './domain/errors.js';
export type { Result } from './domain/result.js';

export { STANDARD_PLANS, enterprisePlan, type Plan, type PlanName } from './domain/quota/plan.js';
export type { BanPolicy, QuotaPolicy, QuotaRule } from './domain/quota/quota-rule.js';
export type { QuotaDecision, QuotaVerdict } from './domain/quota/quota-decision.js';
export { DEFAULT_BAN_POLICY } from './domain/quota/ban-policy.js';
export { bindingRuleIndex } from './domain/quota/binding-rule.js';
export { RequestAdmission, type Admission, type AdmissionOptions } from './domain/quota/request-admission.js';

export type { Clock } from './ports/clock.js';
export type { PetRepository, PetPageQuery } from './ports/pet-repository.js';
export type { ApiKeyGrant, ApiKeyRegistry } from './ports/api-key-registry.js';
export type { QuotaStore } from './ports/quota-store.js';

export { MemoryPetRepository } from './adapters/memory/memory-pet-repository.js';
export { MemoryApiKeyRegistry } from './adapters/memory/memory-api-key-registry.js';
export { MemoryQuotaStore } from './adapters/memory/memory-quota-store.js';
export { SystemClock } from './adapters/system/system-clock.js';
export { digestApiKey } from './adapters/api-key-digest.js';
export { createHttpServer, type HttpServerOptions, type HttpServerDependencies } from './adapters/http/http-server.js';

export { loadConfig, type PetStoreConfig } from './app/config.js';
export { buildContainer } from './app/container/build-container.js';
export { TOKENS } from './app/container/tokens.js';
export { startPetStore, ConfigurationError, type RunningPetStore } from './app/start-pet-store.js';
