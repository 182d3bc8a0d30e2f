const now = (): number => performance.now();

/**
 * Resolves after at least `ms` milliseconds (a timer may fire a little early: it is re-armed
 * for the rest), or rejects with the signal's reason as soon as it aborts.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const deadline = now() + ms;
    let timer: ReturnType<typeof setTimeout>;
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const arm = (): void => {
      const left = deadline - now();
      if (left <= 0) {
        signal?.removeEventListener('abort', onAbort);
        resolve();
        return;
      }
      timer = setTimeout(arm, Math.ceil(left));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    arm();
  });
}
