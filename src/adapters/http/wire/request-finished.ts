import type { RequestId } from './request-id.js';

/** What the request-finished hook is told of each request the pipeline answered (or lost to a closed connection). */
export interface RequestFinishedEvent {
  readonly requestId: RequestId;
  readonly method: string;
  /** The operation's path template (`/pets/{petId}`); null when no route matched (404, 405, a malformed URL). */
  readonly route: string | null;
  /** The operation's operationId (`getPet`); null when no route matched. */
  readonly operation: string | null;
  /** The status sent; for a connection closed before the answer was finished, whatever had been set. */
  readonly status: number;
  readonly durationMs: number;
  /** When the connection was done with it, in epoch milliseconds (Date.now()): its log line's time. */
  readonly finishedAt: number;
  /** False when the connection closed before the answer was completely sent. */
  readonly completed: boolean;
  /** The path the client asked for, without its query (which may carry what a log must not keep), at most MAX_LOGGED_TEXT characters. */
  readonly path: string;
  /** The answer's body in bytes, as its Content-Length declared it (0 without a body: a 204, a 304); a HEAD's, its GET's. */
  readonly bytes: number;
  /** The client's address, a proxy's X-Forwarded-For read as PETSTORE_TRUST_PROXY says (the quotas' address). */
  readonly client: string;
  /** The User-Agent header, at most MAX_LOGGED_TEXT characters; null when none was sent. */
  readonly userAgent: string | null;
  /** First 8 hex digits of the key's SHA-256 digest, or `anonymous` without a valid key. Never the key. */
  readonly key: string;
  /** The caller's plan, or `anonymous`. */
  readonly plan: string;
  /** The quota verdict, or null when no quota decision was made (preflight, a store failure). */
  readonly verdict: string | null;
  /** The names of the shadow rules that would have refused the request (QuotaDecision.shadowed); null: none did. */
  readonly shadowed: readonly string[] | null;
  /** The names of the rules that gave the request's cost back, its answer being one they refund; null: none did. */
  readonly refunded: readonly string[] | null;
  /** The names of the rules whose refund the store could not take (the cost stays spent); null: none. */
  readonly refundLost: readonly string[] | null;
  /** The store a 503 `service_unavailable` was answered for (as its error names it), else null. */
  readonly storeUnavailable: string | null;
}

/** The longest path or user agent an event carries: a client's 8 KB header must not make every log line 8 KB. */
export const MAX_LOGGED_TEXT = 256;

export type OnRequestFinished = (event: RequestFinishedEvent) => void;

/** The event's fields naming rules, in the order an access line writes them: the metrics count each by plan and rule. */
export const RULE_MARKS = ['shadowed', 'refunded', 'refundLost'] as const;
export type RuleMark = (typeof RULE_MARKS)[number];
