/** What a span may carry: OpenTelemetry's attribute values, as far as this service uses them. */
export type SpanValue = string | number | boolean | readonly string[];
export type SpanAttributes = Readonly<Record<string, SpanValue>>;

/** Header fields as node:http hands them over, read for a caller's trace context (`traceparent`). */
export type TraceCarrier = Readonly<Record<string, string | string[] | undefined>>;

/** A request's span: attributes added as the request learns them, ended once. */
export interface RequestSpan {
  set(name: string, value: SpanValue): void;
  /** `error`: what failed (OpenTelemetry's `error.type`: a 5xx's status code), which makes the span's status an error. */
  end(error?: string): void;
}

/**
 * What a store call is made for: the last argument the core gives each port call it makes for a
 * request, the request's span when the request is traced (absent otherwise). A store's tracing
 * wrapper makes it the parent of the call's span; a store itself ignores it. Handed along
 * explicitly, never through AsyncLocalStorage: on Node 20, once any async context is entered,
 * every promise of the process pays for it (bench/traces-cost.ts, `context`).
 */
export type CallScope = RequestSpan;

/** A request span's name and the attributes the sampler sees. */
export interface RequestDescription {
  readonly name: string;
  readonly attributes: SpanAttributes;
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
   * undefined when the request is left out (sampled out, here or by the SDK): nothing of it is
   * recorded then, and its store calls make no span. `describe` is called only for a request
   * offered to the sampler, so one left out before it costs no attributes.
   */
  startRequest(carrier: TraceCarrier, describe: () => RequestDescription): RequestSpan | undefined;
  /** `scope` as a request span of this tracer's (a call's last argument, CallScope), else undefined. */
  scopeOf(scope: unknown): RequestSpan | undefined;
  /**
   * `call` in a child span of `parent`, ended when its result settles (at once when it is no
   * promise). Its result is returned as it came.
   */
  traceCall<T>(parent: RequestSpan, name: string, kind: CallKind, attributes: SpanAttributes, call: () => T): T;
}
