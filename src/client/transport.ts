import { IDEMPOTENCY_KEY_FIELD, RETRY_AFTER_FIELD } from './field-names.js';
import { errorOfAnswer, PetStoreError } from './pet-store-error.js';
import { readRateLimitState, type RateLimitState } from './rate-limit-state.js';
import { isRetryable, parseRetryAfter, retryDelay, type RetryPolicy } from './retry-policy.js';

/** One call of an operation, repeated as it is on every attempt. */
export interface Call {
  readonly method: string;
  readonly url: URL;
  readonly body?: unknown;
  readonly idempotencyKey?: string;
  readonly signal?: AbortSignal | undefined;
}

/** A 2xx answer: its parsed JSON body and its header fields. */
export interface Answer {
  readonly body: unknown;
  readonly headers: Headers;
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
};

/** Sends calls with the API key, retrying them as the policy allows, and keeps the last rate-limit fields seen. */
export class Transport {
  #rateLimit: RateLimitState | undefined;

  constructor(
    private readonly fetch: typeof globalThis.fetch,
    private readonly apiKey: string,
    private readonly policy: RetryPolicy,
  ) {}

  get rateLimit(): RateLimitState | undefined {
    return this.#rateLimit;
  }

  /** The call's 2xx answer; otherwise the last PetStoreError once retries are spent, or the signal's reason when it aborts. */
  async send(call: Call): Promise<Answer> {
    let waitedMs = 0;
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.#attempt(call);
      if (!(outcome instanceof PetStoreError)) return outcome;
      if (!isRetryable(outcome) || attempt >= this.policy.maxAttempts) throw outcome;
      const delay = retryDelay(this.policy, outcome, attempt);
      if (waitedMs + delay > this.policy.maxWaitMs) throw outcome;
      await this.policy.sleep(delay, call.signal);
      waitedMs += delay;
    }
  }

  async #attempt(call: Call): Promise<Answer | PetStoreError> {
    const headers = new Headers({ accept: 'application/json', authorization: `Bearer ${this.apiKey}` });
    if (call.idempotencyKey !== undefined) headers.set(IDEMPOTENCY_KEY_FIELD, call.idempotencyKey);
    if (call.body !== undefined) headers.set('content-type', 'application/json');
    let response: Response;
    let text: string;
    try {
      response = await this.fetch(call.url, {
        method: call.method,
        headers,
        ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
        ...(call.signal === undefined ? {} : { signal: call.signal }),
      });
      text = await response.text();
    } catch (cause) {
      if (call.signal?.aborted) throw call.signal.reason;
      return new PetStoreError(0, 'network_error', `${call.method} ${call.url.href} got no answer: ${String(cause)}`, { cause });
    }
    const receivedAt = Date.now();
    this.#rateLimit = readRateLimitState(response.headers, receivedAt) ?? this.#rateLimit;
    const body = text === '' ? undefined : parseJson(text);
    if (!response.ok) return errorOfAnswer(response.status, body, parseRetryAfter(response.headers.get(RETRY_AFTER_FIELD), receivedAt));
    if (body === undefined) return new PetStoreError(response.status, 'invalid_response', `HTTP ${response.status} without a JSON body`);
    return { body, headers: response.headers };
  }
}
