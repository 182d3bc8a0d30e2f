/**
 * Told when a store stops answering and when it answers again, for the operator's log. A
 * store's adapter may say `unavailable` several times in one outage (each connection error,
 * each timed-out call); the listener keeps one line per change.
 */
export interface OutageListener {
  unavailable(cause: unknown): void;
  available(): void;
}
