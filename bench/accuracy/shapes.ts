/**
 * The traffic shapes, as schedules of requests on the real clock, and the driver that plays a
 * schedule against a limiter's instances without waiting for answers (requests overlap as they
 * would from many clients).
 */
import type { Decision } from './measure.js';
import type { Instance } from './limiters.js';

export interface Send {
  /** Milliseconds after the schedule starts. */
  readonly at: number;
  /** Which instance answers it. */
  readonly instance: number;
}

export interface Traffic {
  readonly limit: number;
  readonly windowMs: number;
  /** How long before and after the window boundary the two bursts leave. */
  readonly edgeMs: number;
  /** How many windows of steady load. */
  readonly steadyWindows: number;
}

const spread = (sends: readonly Omit<Send, 'instance'>[], instances: number): Send[] => sends.map((send, i) => ({ ...send, instance: i % instances }));

/**
 * One request at 0 opens a window (a fixed window starts at a subject's first hit), then `limit`
 * requests at once just before it ends and `limit` just after: a fixed window admits all but one
 * of both bursts within 2 × edgeMs; a sliding one admits `limit` in any rolling window.
 */
export const boundaryBurst = ({ limit, windowMs, edgeMs }: Traffic, instances = 1): Send[] =>
  spread(
    [{ at: 0 }, ...Array.from({ length: limit }, () => ({ at: windowMs - edgeMs })), ...Array.from({ length: limit }, () => ({ at: windowMs + edgeMs }))],
    instances,
  );

/** One request every windowMs / limit, from `from`: exactly the limit, so every one should pass. */
export const steadyAtLimit = ({ limit, windowMs, steadyWindows }: Traffic, instances = 1, from = 0): Send[] =>
  spread(
    Array.from({ length: limit * steadyWindows }, (_, i) => ({ at: from + (i * windowMs) / limit })),
    instances,
  );

/** The boundary burst, then steady load at the limit once its second burst has left the window. */
export const burstThenSteady = (traffic: Traffic, instances: number): Send[] => [
  ...boundaryBurst(traffic, instances),
  ...steadyAtLimit(traffic, instances, 2 * traffic.windowMs + 2 * traffic.edgeMs),
];

/** Twice the limit, one request every windowMs / (2 × limit), for `windows` windows: the clock steps while it runs. */
export const twiceTheLimit = ({ limit, windowMs }: Traffic, windows: number): Send[] =>
  Array.from({ length: 2 * limit * windows }, (_, i) => ({ at: (i * windowMs) / (2 * limit), instance: 0 }));

/** What the driver saw; `at` on performance.now(), which no stub of Date.now moves. */
export interface Played {
  readonly decisions: Decision[];
  /** Calls that failed (a store error): neither admitted nor refused. */
  readonly failed: number;
  /** The widest gap between a send and its answer, ms. */
  readonly slowestMs: number;
}

/**
 * A turn of the event loop. express-rate-limit's MemoryStore and @fastify/rate-limit's local
 * store hand back their counter object itself, which the middleware reads a few promise
 * steps later: calls started in one turn all read the count of the last, and a burst would be
 * refused whole. Over HTTP each request arrives in a callback of its own, its promises settled
 * before the next; so here.
 */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const sleepUntil = async (at: number): Promise<void> => {
  const wait = at - performance.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
};

/**
 * Plays `schedule` for `subject`; `during(elapsedMs)` is called before each group of sends (the
 * clock step hooks in there). A decision is known to lie within its call.
 */
export const play = async (
  schedule: readonly Send[],
  instances: readonly Instance[],
  subject: string,
  during?: (elapsedMs: number) => void,
): Promise<Played> => {
  const sorted = [...schedule].sort((a, b) => a.at - b.at);
  const start = performance.now();
  const decisions: Decision[] = [];
  let failed = 0;
  let slowestMs = 0;
  const pending: Promise<void>[] = [];
  for (let i = 0; i < sorted.length; ) {
    const at = sorted[i]!.at;
    await sleepUntil(start + at);
    during?.(performance.now() - start);
    for (; i < sorted.length && sorted[i]!.at === at; i++) {
      // Each call starts in a turn of the event loop of its own, as HTTP requests arrive: see nextTurn.
      if (sorted[i - 1]?.at === at) await nextTurn();
      const instance = instances[sorted[i]!.instance]!;
      const sentAt = performance.now();
      pending.push(
        instance.check(subject).then(
          (admitted) => {
            const answeredAt = performance.now();
            slowestMs = Math.max(slowestMs, answeredAt - sentAt);
            decisions.push({ from: sentAt - start, to: answeredAt - start, admitted });
          },
          () => {
            failed++;
          },
        ),
      );
    }
  }
  await Promise.all(pending);
  return { decisions, failed, slowestMs };
};

/**
 * The process's view of time (Date.now(), which every limiter here reads on its memory store)
 * moved by `offsetMs` until restored: as when NTP steps the machine's clock. Redis's TIME and
 * key expiry do not move.
 */
export const stepProcessClock = (): { step: (offsetMs: number) => void; restore: () => void } => {
  const realNow = Date.now.bind(Date);
  let offset = 0;
  Date.now = () => realNow() + offset;
  return {
    step: (offsetMs) => {
      offset += offsetMs;
    },
    restore: () => {
      Date.now = realNow;
    },
  };
};
