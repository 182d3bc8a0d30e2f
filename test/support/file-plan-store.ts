import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/app/logging/logger.js';
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
  let logged = '';
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logged += chunk.toString();
      done();
    },
  });
  const file = join(mkdtempSync(join(tmpdir(), 'file-plans-')), 'plans.json');
  writeFileSync(file, JSON.stringify(plans));
  const server = await startPetStore(
    { PETSTORE_ENV: 'test', PORT: '0', PETSTORE_ADMIN_PORT: '0', PETSTORE_STORE: 'memory', PETSTORE_PLANS: file, PETSTORE_API_KEYS: `${key}:${plan}`, PETSTORE_ACCESS_LOG: 'on' },
    { logger: createLogger('info', out) },
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
        logged
          .trim()
          .split('\n')
          .map((text) => JSON.parse(text) as Record<string, unknown>)
          .filter((line) => line['msg'] === 'request')
          .map((line) => [line['requestId'], line]),
      );
    },
  };
}
