/** `petstore-service/server`: the standalone server: configuration from the environment, the container, start and stop. */
export { loadConfig, type PetStoreConfig, type Environ } from './app/config/config.js';
export { buildContainer, type ContainerOverrides } from './app/container/build-container.js';
export { TOKENS } from './app/container/tokens.js';
export { startPetStore, ConfigurationError, type RunningPetStore } from './app/start-pet-store.js';
export { createPetStore, type PetStore, type PetStoreSetup } from './app/create-pet-store.js';
