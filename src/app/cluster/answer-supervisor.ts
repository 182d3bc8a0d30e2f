import { probeStores } from '../admin/admin-source.js';
import type { PetStoreApp } from '../pet-store-app.js';
import { isSupervisorRequest, type WorkerReply } from './worker-messages.js';

/** In a worker: answers the supervisor's readiness and metrics requests with this process's own. */
export async function answerSupervisor(app: PetStoreApp): Promise<void> {
  const metrics = await app.metrics();
  const probes = await app.storeProbes();
  const reply = (message: WorkerReply): void => {
    // The channel closes when the supervisor is gone; the worker then exits (node:cluster), so the answer has no reader.
    if (process.connected) process.send?.(message);
  };
  process.on('message', (message: unknown) => {
    if (!isSupervisorRequest(message)) return;
    const { id } = message;
    if (message.type === 'petstore:readiness') {
      // What its probes found; the supervisor makes one readiness of every worker's.
      void probeStores(metrics, probes).then((stores) => reply({ type: 'petstore:readiness', id, stores }));
    } else {
      void (metrics === null ? Promise.resolve([]) : metrics.json()).then((json) => reply({ type: 'petstore:metrics', id, metrics: json }));
    }
  });
}
