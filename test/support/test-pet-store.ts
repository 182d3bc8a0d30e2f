import type { Clock } from '../../src/ports/clock.js';
import { startPetStore } from '../../src/app/start-pet-store.js';
import { HttpClient } from './http-client.js';

/** The keys of PETSTORE_API_KEYS below, one per plan. Enterprise: 1000 per minute, 50 000 per day. */
export const KEYS = {
  free: 'free-key-1',
  pro: 'pro-key-1',
  business: 'biz-key-1',
  enterprise: 'ent-key-1',
} as const;

export interface TestPetStore {
  readonly baseUrl: string;
  /** Authenticated with the enterprise key, whose quota no test file comes near. */
  readonly client: HttpClient;
  /** Sends no Authorization header unless told to. */
  readonly anonymous: HttpClient;
  close(): Promise<void>;
}

/** A real server on 127.0.0.1 with a free port and its own in-memory stores. */
export async function startTestPetStore(options: { clock?: Clock } = {}): Promise<TestPetStore> {
  const store = await startPetStore(
    {
      PETSTORE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: '0',
      PETSTORE_API_KEYS: 'free-key-1:free,pro-key-1:pro,biz-key-1:business,ent-key-1:enterprise:1000:50000',
    },
    options,
  );
  return {
    baseUrl: store.baseUrl,
    client: new HttpClient(store.baseUrl, KEYS.enterprise),
    anonymous: new HttpClient(store.baseUrl),
    close: () => store.close(),
  };
}
