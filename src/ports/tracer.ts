/** What a span may carry: OpenTelemetry's attribute values, as far as this service uses them. */
export type SpanValue = string | number | boolean | readonly string[];
export type SpanAttributes = Readonly<Record<string, SpanValue>>;

/** Header fields as node:http hands them over, read for a caller's trace context (`traceparent`). */
export type TraceCarrier = Readonly<Record<string, string | string[] | undefined>>;

/** A request's span: attributes added as the request learns them, ended once. */
export interface RequestSpan {
  set(name: string, value: SpanValue): void;
  /** Runs `work` with this span as the parent of the spans started in it, its awaits included. */
  run<T>(work: () => T): T;
  /** `error`: what failed (OpenTelemetry's `error.type`: a 5xx's status code), which makes the span's status an error. */
  end(error?: string): void;
}

/** Whether a store call leaves the process (a client span) or not (an internal one: the memory store). */
export type CallKind = 'client' | 'internal';

/**
 * Where spans go: chosen once when the app is composed (no tracer at all when tracing is off,
 * so the hot path then makes no span, not even a no-op one).
 */
export interface Tracer {
  /**
   * A server span, the child of the trace context `carrier` names when a propagator reads one;
   * undefined when the sampler leaves the request out: nothing of it is recorded then, so the
   * request runs in no span's context and its store calls make none.
   */
  startRequest(name: string, carrier: TraceCarrier, attributes: SpanAttributes): RequestSpan | undefined;
  /**
   * `call` in a child span of the current recording span (a request's), ended when its result
   * settles (at once when it is no promise); without one, `call` alone: a store call outside a
   * recorded request is no trace's root. Its result is returned as it came.
   */
  traceCall<T>(name: string, kind: CallKind, attributes: SpanAttributes, call: () => T): T;
}
