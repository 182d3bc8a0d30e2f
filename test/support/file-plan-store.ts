import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../../src/app/logging/logger.js';
import { capturedLog } from './captured-log.js';
import { startPetStore, type RunningPetStore } from '../../src/app/start-pet-store.js';

/** A memory-store server on a plans file, its access log and admin listener on, and one key. */
export interface FilePlanStore {
  readonly server: RunningPetStore;
  /** GET `path` with the key and `x-request-id: requestId`; its status. */
  get(path: string, requestId: string): Promise<number>;
  /** The access lines logged so far, by request id. */
  accessLines(): Promise<ReadonlyMap<unknown, Record<string, unknown>>>;
}

export async function startFilePlanStore(plans: unknown, key: string, plan: string): Promise<FilePlanStore> {
  const out = capturedLog();
  const file = join(mkdtempSync(join(tmpdir(), 'file-plans-')), 'plans.json');
  writeFileSync(file, JSON.stringify(plans));
  const server = await startPetStore(
    { PETSTORE_ENV: 'test', PORT: '0', PETSTORE_ADMIN_PORT: '0', PETSTORE_STORE: 'memory', PETSTORE_PLANS: file, PETSTORE_API_KEYS: `${key}:${plan}`, PETSTORE_ACCESS_LOG: 'on' },
    { logger: createLogger('info', out.stream) },
  );
  return {
    server,
    get: async (path, requestId) => {
      const answer = await fetch(`${server.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}`, 'x-request-id': requestId } });
      await answer.arrayBuffer();
      return answer.status;
    },
    accessLines: async () => {
      await server.flushLogs();
      return new Map(
        out
          .lines()
          .filter((line) => line['msg'] === 'request')
          .map((line) => [line['requestId'], line]),
      );
    },
  };
}
