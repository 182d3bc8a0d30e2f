import type { StoreStatus } from '../admin/store-probes.js';

/** What a supervisor asks each worker over the IPC channel, for its admin listener. */
export type SupervisorRequest = { readonly type: 'petstore:readiness'; readonly id: number } | { readonly type: 'petstore:metrics'; readonly id: number };

/** A worker's answer to the request of the same id. */
export type WorkerReply =
  | { readonly type: 'petstore:readiness'; readonly id: number; readonly stores: readonly StoreStatus[] }
  | { readonly type: 'petstore:metrics'; readonly id: number; readonly metrics: readonly object[] };

const isMessage = (message: unknown, types: readonly string[]): message is { type: string; id: number } =>
  typeof message === 'object' &&
  message !== null &&
  types.includes((message as { type?: unknown }).type as string) &&
  typeof (message as { id?: unknown }).id === 'number';

const KINDS = ['petstore:readiness', 'petstore:metrics'] as const;

export const isSupervisorRequest = (message: unknown): message is SupervisorRequest => isMessage(message, KINDS) && !('stores' in message || 'metrics' in message);

export const isWorkerReply = (message: unknown): message is WorkerReply => isMessage(message, KINDS) && ('stores' in message || 'metrics' in message);
