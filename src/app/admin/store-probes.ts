/** A store the process depends on, and how to ask whether it answers. */
export interface StoreProbe {
  /** Label value: `redis`, `memory`. */
  readonly store: string;
  ping(): Promise<unknown>;
}

export interface StoreStatus {
  readonly store: string;
  readonly up: boolean;
  /** Why it is down: the client's error message, or the deadline. */
  readonly reason?: string;
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
        return { store, up: false, reason: error instanceof Error ? error.message : String(error) };
      } finally {
        clearTimeout(timer);
      }
    }),
  );
}
