import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { digestApiKey } from '../../src/adapters/api-key-digest.js';
import type { RequestHandlerDependencies } from '../../src/adapters/http/request-handler.js';
import { MemoryApiKeyRegistry } from '../../src/adapters/memory/memory-api-key-registry.js';
import { MemoryQuotaStore } from '../../src/adapters/memory/memory-quota-store.js';
import { SystemClock } from '../../src/adapters/system/system-clock.js';
import type { ApiKeyGrant } from '../../src/ports/api-key-registry.js';
import { DEFAULT_BAN_POLICY } from '../../src/domain/quota/ban-policy.js';
import { RequestAdmission } from '../../src/domain/quota/request-admission.js';
import { RateLimitStatus } from '../../src/adapters/http/pipeline/rate-limit-status.js';
import { memoryServices } from './memory-services.js';

/** A host app listening on 127.0.0.1. */
export interface Host {
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  close(): Promise<void>;
}

/** The Host of a node:http server (an express app's, or a bare one) once it listens. */
export const listening = async (server: Server): Promise<Host> => {
  if (!server.listening) await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
};

/** createRequestHandler's dependencies over memory stores, with these keys (anonymous callers: 1,000 a minute). */
export async function handlerDependencies(keys: Readonly<Record<string, ApiKeyGrant>>): Promise<RequestHandlerDependencies> {
  const registry = new MemoryApiKeyRegistry();
  for (const [key, grant] of Object.entries(keys)) await registry.register(digestApiKey(key), grant);
  const quotas = new MemoryQuotaStore(new SystemClock());
  const options = { anonymousPolicy: { rules: [{ name: 'minute', limit: 1_000, windowMs: 60_000 }] }, ban: DEFAULT_BAN_POLICY };
  const services = await memoryServices();
  return { ...services, admission: new RequestAdmission(registry, quotas, options), rateLimitStatus: new RateLimitStatus(registry, quotas, options) };
}
