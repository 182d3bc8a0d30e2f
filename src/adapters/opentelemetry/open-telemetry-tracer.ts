import type * as OpenTelemetry from '@opentelemetry/api';
import type { CallKind, RequestDescription, RequestSpan, SpanAttributes, SpanValue, TraceCarrier, Tracer } from '../../ports/tracer.js';

/**
 * PETSTORE_TRACES: `auto` traces when an OpenTelemetry SDK has registered a tracer provider by
 * the time the app is composed (`node --import` of the SDK's setup does), `on` whatever is
 * registered, now or later (an error without @opentelemetry/api), `off` never.
 */
export const TRACES_MODES = ['auto', 'on', 'off'] as const;
export type TracesMode = (typeof TRACES_MODES)[number];

/** The instrumentation scope spans are reported under. */
export const TRACER_NAME = 'petstore-service';

type Api = typeof OpenTelemetry;

/** Whether an SDK registered a provider: the API's own global is a proxy whose delegate is then set. */
const providerRegistered = ({ trace, ProxyTracerProvider }: Api): boolean => {
  const provider = trace.getTracerProvider();
  // Another copy of the API's proxy (a CommonJS copy beside this ES module's) is only ever global once registered.
  return !(provider instanceof ProxyTracerProvider) || provider.getDelegateTracer(TRACER_NAME) !== undefined;
};

/**
 * The tracer PETSTORE_TRACES asks for, or null: tracing off, or `auto` without the API package or
 * a registered SDK. The API is imported here, when the app is composed, never by a module load:
 * it is an optional peer, and without it nothing of OpenTelemetry is loaded. `ratio`
 * (PETSTORE_TRACES_RATIO): the share of requests without a caller's trace context offered to
 * the SDK at all.
 */
export async function openTelemetryTracer(mode: TracesMode, ratio = 1): Promise<Tracer | null> {
  if (mode === 'off') return null;
  let api: Api;
  try {
    api = await import('@opentelemetry/api');
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    if (mode === 'auto') return null;
    throw new Error('PETSTORE_TRACES=on needs @opentelemetry/api, which is not installed: npm install @opentelemetry/api (and an SDK)', { cause: error });
  }
  if (mode === 'auto' && !providerRegistered(api)) return null;
  return new OpenTelemetryTracer(api, ratio);
}

// OpenTelemetry's attribute arrays are mutable in its types only; it copies what it keeps.
const attributesOf = (attributes: SpanAttributes): OpenTelemetry.Attributes => attributes as OpenTelemetry.Attributes;

const failed = (api: Api, span: OpenTelemetry.Span, error: unknown): void => {
  span.setStatus({ code: api.SpanStatusCode.ERROR });
  span.setAttribute('error.type', error instanceof Error ? error.name : 'unknown');
  if (error instanceof Error) span.recordException(error);
};

class OpenTelemetryRequestSpan implements RequestSpan {
  constructor(
    private readonly api: Api,
    private readonly span: OpenTelemetry.Span,
    /** The trace context the request's store calls are started in. */
    readonly context: OpenTelemetry.Context,
  ) {}

  set(name: string, value: SpanValue): void {
    this.span.setAttribute(name, value as OpenTelemetry.AttributeValue);
  }

  end(error?: string): void {
    if (error !== undefined) {
      this.span.setStatus({ code: this.api.SpanStatusCode.ERROR });
      this.span.setAttribute('error.type', error);
    }
    this.span.end();
  }
}

/**
 * Spans through @opentelemetry/api, to whatever SDK the process registered. No span is ever made
 * the active one (no `context.with`): store calls get their parent from the CallScope the core
 * hands them, since entering a context once turns on Node 20's promise hooks for the whole process.
 */
class OpenTelemetryTracer implements Tracer {
  readonly #tracer: OpenTelemetry.Tracer;

  constructor(
    private readonly api: Api,
    private readonly ratio: number,
  ) {
    this.#tracer = api.trace.getTracer(TRACER_NAME);
  }

  startRequest(carrier: TraceCarrier, describe: () => RequestDescription): RequestSpan | undefined {
    // A caller's trace context is the SDK's to decide on (its parent-based sampler); without one,
    // the share is drawn here, so a request left out skips the SDK's ids and sampler altogether.
    if (this.ratio < 1 && carrier['traceparent'] === undefined && Math.random() >= this.ratio) return undefined;
    const { context, propagation, trace, SpanKind } = this.api;
    // Without a registered propagator this is the API's no-op, and the span a root.
    const parent = propagation.extract(context.active(), carrier);
    const { name, attributes } = describe();
    const span = this.#tracer.startSpan(name, { kind: SpanKind.SERVER, attributes: attributesOf(attributes) }, parent);
    if (!span.isRecording()) return undefined;
    return new OpenTelemetryRequestSpan(this.api, span, trace.setSpan(parent, span));
  }

  scopeOf(scope: unknown): RequestSpan | undefined {
    return scope instanceof OpenTelemetryRequestSpan ? scope : undefined;
  }

  traceCall<T>(parent: RequestSpan, name: string, kind: CallKind, attributes: SpanAttributes, call: () => T): T {
    const { context } = parent as OpenTelemetryRequestSpan;
    const span = this.#tracer.startSpan(name, { kind: kind === 'client' ? this.api.SpanKind.CLIENT : this.api.SpanKind.INTERNAL, attributes: attributesOf(attributes) }, context);
    let result: T;
    try {
      result = call();
    } catch (error) {
      failed(this.api, span, error);
      span.end();
      throw error;
    }
    if (result instanceof Promise) {
      result.then(
        () => span.end(),
        (error: unknown) => {
          failed(this.api, span, error);
          span.end();
        },
      );
    } else {
      span.end();
    }
    return result;
  }
}
