/**
 * Entries in the order they expire, because all share one lifetime and are pushed as the clock
 * goes forward: the expired ones are always at the front, so finding them costs nothing more
 * than removing them.
 */
export class ExpiryQueue<Entry extends { readonly expiresAt: number }> {
  #entries: Entry[] = [];
  #head = 0;

  push(entry: Entry): void {
    this.#entries.push(entry);
  }

  /** Takes every entry expired at `now` off the front, handing each to `drop`. */
  popExpired(now: number, drop: (entry: Entry) => void): void {
    const entries = this.#entries;
    while (this.#head < entries.length) {
      const entry = entries[this.#head];
      if (entry === undefined || entry.expiresAt > now) break;
      this.#head += 1;
      drop(entry);
    }
    // Shifting one at a time would be O(n) each; cutting the popped half at once is O(1) amortised.
    if (this.#head >= 1_024 && this.#head * 2 >= entries.length) {
      this.#entries = entries.slice(this.#head);
      this.#head = 0;
    }
  }
}
