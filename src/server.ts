/** `petstore-service/server`: the standalone server: configuration from the environment, the application, start and stop. */
export { loadConfig, type PetStoreConfig, type Environ } from './app/config/config.js';
export type { PetStoreApp, PetStoreAppOptions } from './app/pet-store-app.js';
export { startPetStore, ConfigurationError, type RunningPetStore } from './app/start-pet-store.js';
export { createPetStore, type PetStore, type PetStoreSetup } from './app/create-pet-store.js';
