/**
 * Work left for the end of the current event-loop turn (once the requests its reads brought
 * in have been parsed), run in one setImmediate in the order given. Work added while it runs
 * runs in the same pass: a batch flushed there corks a Redis socket, and that socket's
 * uncork, queued behind it, still sends the batch in this turn rather than the next.
 */
let queue: (() => void)[] = [];
let draining = false;

export function atTurnEnd(work: () => void): void {
  queue.push(work);
  if (queue.length === 1 && !draining) setImmediate(drain);
}

function drain(): void {
  draining = true;
  let done = 0;
  try {
    for (; done < queue.length; done += 1) queue[done]?.();
  } finally {
    // A work that threw is dropped, and the rest (an uncork among them) runs next turn.
    queue = queue.slice(done + 1);
    draining = false;
    if (queue.length > 0) setImmediate(drain);
  }
}
