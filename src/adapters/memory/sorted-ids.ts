/** Ids a leaf holds, and children an inner node has, before it splits in two. */
const WIDTH = 64;

/** Ids in ascending order, linked to the leaves before and after. Only the root may be empty. */
interface Leaf {
  readonly ids: number[];
  prev: Leaf | undefined;
  next: Leaf | undefined;
}

/** `bounds[i]` is at most every id under `children[i + 1]` and above every id under `children[i]`. */
interface Inner {
  readonly bounds: number[];
  readonly children: Node[];
}

type Node = Leaf | Inner;

const isLeaf = (node: Node): node is Leaf => 'ids' in node;

/** The first position of `values` (ascending) holding a value above `value`. */
const firstAbove = (values: readonly number[], value: number): number => {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (values[middle]! <= value) low = middle + 1;
    else high = middle;
  }
  return low;
};

const newLeaf = (ids: number[] = []): Leaf => ({ ids, prev: undefined, next: undefined });

/**
 * Ids in ascending order, for an index whose members come and go (a status changes): a B+ tree
 * whose leaves are linked in order. Insert and remove cost O(log n), a page from any id
 * O(log n + limit), whatever the number of ids (a sorted array spliced on every change cost
 * 28 µs at 10,000 pets and 174 µs at 1,000,000). A leaf left empty by removals is unlinked, so
 * a page never walks one; leaves left small are not merged, which bounds the height by the
 * number of ids ever inserted rather than held.
 */
export class SortedIds {
  #root: Node = newLeaf();
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** The leaf where `id` belongs, and the inner nodes and child positions on the way to it. */
  #descend(id: number): { path: { node: Inner; at: number }[]; leaf: Leaf } {
    const path: { node: Inner; at: number }[] = [];
    let node = this.#root;
    while (!isLeaf(node)) {
      const at = firstAbove(node.bounds, id);
      path.push({ node, at });
      node = node.children[at]!;
    }
    return { path, leaf: node };
  }

  insert(id: number): void {
    const { path, leaf: node } = this.#descend(id);
    const at = firstAbove(node.ids, id);
    if (node.ids[at - 1] === id) return;
    node.ids.splice(at, 0, id);
    this.#size++;
    if (node.ids.length <= WIDTH) return;

    // Split the full leaf, then each inner node the split fills, up to a new root if need be.
    const right = newLeaf(node.ids.splice(WIDTH >>> 1));
    right.next = node.next;
    right.prev = node;
    if (node.next !== undefined) node.next.prev = right;
    node.next = right;
    let bound = right.ids[0]!;
    let split: Node = right;
    for (let level = path.length - 1; level >= 0; level--) {
      const { node: parent, at: childAt } = path[level]!;
      parent.bounds.splice(childAt, 0, bound);
      parent.children.splice(childAt + 1, 0, split);
      if (parent.children.length <= WIDTH) return;
      const half = WIDTH >>> 1;
      const sibling: Inner = { bounds: parent.bounds.splice(half), children: parent.children.splice(half) };
      // The bound between the halves moves up: it is the left one's last.
      bound = parent.bounds.pop()!;
      split = sibling;
    }
    this.#root = { bounds: [bound], children: [this.#root, split] };
  }

  remove(id: number): void {
    const { path, leaf: node } = this.#descend(id);
    const at = firstAbove(node.ids, id) - 1;
    if (node.ids[at] !== id) return;
    node.ids.splice(at, 1);
    this.#size--;
    if (node.ids.length > 0 || path.length === 0) return;

    // Unlink the empty leaf, and drop it and every inner node it leaves empty from its parent.
    if (node.prev !== undefined) node.prev.next = node.next;
    if (node.next !== undefined) node.next.prev = node.prev;
    for (let level = path.length - 1; level >= 0; level--) {
      const { node: parent, at: childAt } = path[level]!;
      parent.children.splice(childAt, 1);
      parent.bounds.splice(Math.max(0, childAt - 1), 1);
      if (parent.children.length > 0) break;
    }
    let root = this.#root;
    while (!isLeaf(root) && root.children.length <= 1) root = root.children[0] ?? newLeaf();
    this.#root = root;
  }

  /** At most `limit` ids strictly greater than `afterId`, ascending. */
  after(afterId: number, limit: number): number[] {
    let node = this.#root;
    while (!isLeaf(node)) node = node.children[firstAbove(node.bounds, afterId)]!;
    const page: number[] = [];
    let leaf: Leaf | undefined = node;
    let at = firstAbove(node.ids, afterId);
    while (leaf !== undefined && page.length < limit) {
      const { ids } = leaf;
      while (at < ids.length && page.length < limit) page.push(ids[at++]!);
      leaf = leaf.next;
      at = 0;
    }
    return page;
  }
}

/**
 * A page of `ids` after `afterId`: at most `limit` ids, and the last of them when more follow.
 * It reads one id past the page, so a page reached through `moreAfter` is never empty, whatever
 * gaps the ids have.
 */
export function pageOf(ids: SortedIds, afterId: number, limit: number): { ids: number[]; moreAfter: number | undefined } {
  const page = ids.after(afterId, limit + 1);
  if (page.length <= limit) return { ids: page, moreAfter: undefined };
  page.pop();
  return { ids: page, moreAfter: page.at(-1) };
}
