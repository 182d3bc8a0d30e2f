/** A store the process depends on, and how to ask whether it answers. */
export interface StoreProbe {
  /** Label value: `redis`, `memory`. */
  readonly store: string;
  ping(): Promise<unknown>;
}

export interface StoreStatus {
  readonly store: string;
  readonly up: boolean;
  /** Why it is down, in plain words: a ProbeFailure's reason, else the client's error message, or the deadline. */
  readonly reason?: string;
  /** The client's own text, where the reason is worded apart from it (ioredis's "Stream isn't writeable..."). */
  readonly detail?: string;
}

/** A probe's failure worded for an operator (`reason`), the client's own text kept as `detail`. */
export class ProbeFailure extends Error {
  override readonly name = 'ProbeFailure';
  readonly detail: string;
  constructor({ reason, detail }: { readonly reason: string; readonly detail: string }) {
    super(reason);
    this.detail = detail;
  }
}

/** Pings every store at once, each given `deadlineMs` to answer. */
export function checkStores(probes: readonly StoreProbe[], deadlineMs: number): Promise<StoreStatus[]> {
  return Promise.all(
    probes.map(async ({ store, ping }): Promise<StoreStatus> => {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${deadlineMs} ms`)), deadlineMs);
      });
      try {
        await Promise.race([ping(), deadline]);
        return { store, up: true };
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        return error instanceof ProbeFailure ? { store, up: false, reason, detail: error.detail } : { store, up: false, reason };
      } finally {
        clearTimeout(timer);
      }
    }),
  );
}
