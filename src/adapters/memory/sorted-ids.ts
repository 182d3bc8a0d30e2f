/**
 * Ids in ascending order, for an index whose members come and go (a status changes). Insert and
 * remove find their place by binary search; new ids are the largest, so adding one is an append.
 * A page from any id costs O(log n + limit).
 */
export class SortedIds {
  readonly #ids: number[] = [];

  get size(): number {
    return this.#ids.length;
  }

  insert(id: number): void {
    const ids = this.#ids;
    const last = ids.at(-1);
    if (last === undefined || last < id) {
      ids.push(id);
      return;
    }
    const at = this.#firstAbove(id);
    if (ids[at - 1] !== id) ids.splice(at, 0, id);
  }

  remove(id: number): void {
    const at = this.#firstAbove(id) - 1;
    if (this.#ids[at] === id) this.#ids.splice(at, 1);
  }

  /** At most `limit` ids strictly greater than `afterId`, ascending. */
  after(afterId: number, limit: number): number[] {
    const start = this.#firstAbove(afterId);
    return this.#ids.slice(start, start + limit);
  }

  #firstAbove(value: number): number {
    const ids = this.#ids;
    let low = 0;
    let high = ids.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((ids[middle] ?? Infinity) <= value) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
