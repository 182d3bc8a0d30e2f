import type { AddressInfo } from 'node:net';
import type { Container } from 'inversify';
import type { PetStoreHttpServer } from '../adapters/http/http-server.js';
import { buildContainer, type ContainerOverrides } from './container/build-container.js';
import { TOKENS } from './container/tokens.js';
import { loadConfig, type ConfiguredKey, type Environ, type PetStoreConfig } from './config.js';
import { createDemoKeys } from './demo-keys.js';

export class ConfigurationError extends Error {
  override readonly name = 'ConfigurationError';
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
  }
}

export interface RunningPetStore {
  readonly config: PetStoreConfig;
  /** `http://HOST:PORT`, with the port actually bound (PORT=0 picks a free one). */
  readonly url: string;
  /** `url` + `/v1`. */
  readonly baseUrl: string;
  /** Keys created because none were configured (development only); empty otherwise. */
  readonly demoKeys: readonly ConfiguredKey[];
  readonly container: Container;
  /** Stops accepting, lets requests in flight finish (up to `graceMs`), then releases the stores. */
  close(graceMs?: number): Promise<void>;
}

/** Starts the standalone server from environment variables (README, "Configuration"), or throws ConfigurationError. */
export async function startPetStore(environ: Environ, overrides: ContainerOverrides = {}): Promise<RunningPetStore> {
  const loaded = loadConfig(environ);
  if (!loaded.ok) throw new ConfigurationError(loaded.error);
  const demoKeys = loaded.value.environment === 'development' && loaded.value.apiKeys.length === 0 ? createDemoKeys() : [];
  const config = demoKeys.length === 0 ? loaded.value : { ...loaded.value, apiKeys: demoKeys };
  const container = buildContainer(config, overrides);
  try {
    const server = await container.getAsync(TOKENS.httpServer);
    await listen(server, config.port, config.host);
    const { port } = server.address() as AddressInfo;
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    const url = `http://${host}:${port}`;
    return {
      config,
      url,
      baseUrl: `${url}/v1`,
      demoKeys,
      container,
      close: async (graceMs = 10_000) => {
        await shutDown(server, graceMs);
        await container.unbindAllAsync();
      },
    };
  } catch (error) {
    await container.unbindAllAsync();
    throw error;
  }
}

function listen(server: PetStoreHttpServer, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function shutDown(server: PetStoreHttpServer, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    // Requests still running after the grace period are cut rather than holding the exit forever.
    const deadline = setTimeout(() => server.closeAllConnections(), graceMs);
    // A keep-alive connection whose request just finished would otherwise idle until its timeout.
    const reaper = setInterval(() => server.closeIdleConnections(), 50);
    server.close(() => {
      clearTimeout(deadline);
      clearInterval(reaper);
      resolve();
    });
  });
}
