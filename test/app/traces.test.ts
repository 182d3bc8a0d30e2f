import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type ContextManager } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { openTelemetryTracer } from '../../src/adapters/opentelemetry/open-telemetry-tracer.js';
import { createRequestHandler, type RequestHandlerDependencies } from '../../src/adapters/http/request-handler.js';
import { tracedCalls } from '../../src/adapters/wrappers/traced-calls.js';
import { createPetStore, type PetStore } from '../../src/app/create-pet-store.js';
import { PetCatalog } from '../../src/domain/pets/pet-catalog.js';
import type { PetRepository } from '../../src/ports/pet-repository.js';

const KEY = 'traced-key-1';
/** One request a minute: its second is refused. */
const TIGHT_KEY = 'tight-key-1';
const API_KEYS = [`${KEY}:enterprise:1000:50000`, `${TIGHT_KEY}:enterprise:1:100`];
const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const CALLER_SPAN_ID = 'b7ad6b7169203331';

describe('without an SDK registered', () => {
  it('auto makes no tracer, on makes one (spans then go wherever an SDK registers later), off none', async () => {
    expect(await openTelemetryTracer('auto')).toBeNull();
    expect(await openTelemetryTracer('on')).not.toBeNull();
    expect(await openTelemetryTracer('off')).toBeNull();
  });
});

describe('with an SDK registered', () => {
  const exporter = new InMemorySpanExporter();
  const contextManager = new AsyncLocalStorageContextManager();
  const opened: { store: PetStore; server: Server }[] = [];

  beforeAll(() => {
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    context.setGlobalContextManager(contextManager.enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  });

  // The unit tier shares one module graph per worker: no file after this one may find an SDK registered.
  afterAll(async () => {
    await Promise.all(opened.map(({ store, server }) => Promise.all([store.close(), new Promise((resolve) => server.close(resolve))])));
    trace.disable();
    context.disable();
    propagation.disable();
  });

  afterEach(() => exporter.reset());

  /** The memory store composed as createPetStore composes it, behind the real handler on 127.0.0.1. */
  const serve = async (environ: Record<string, string> = {}, change?: (deps: RequestHandlerDependencies) => RequestHandlerDependencies) => {
    const store = await createPetStore({ store: 'memory', apiKeys: API_KEYS, environ: { PETSTORE_LOG_LEVEL: 'silent', ...environ } });
    const deps = change === undefined ? store.dependencies : change(store.dependencies);
    // The failing store's 500 is asserted on its span, not logged.
    const server = createServer(createRequestHandler(deps, { logError: () => undefined }));
    opened.push({ store, server });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return { deps, port, get: (path: string, key: string, headers: Record<string, string> = {}) => fetch(`http://127.0.0.1:${port}${path}`, { headers: { authorization: `Bearer ${key}`, ...headers } }) };
  };

  /** The server span, once ended (after the response reached the client), and its children. */
  const requestSpans = async (): Promise<{ server: ReadableSpan; children: ReadableSpan[] }> => {
    const server = await vi.waitFor(() => {
      const found = exporter.getFinishedSpans().find((span) => span.kind === SpanKind.SERVER);
      if (found === undefined) throw new Error('no server span yet');
      return found;
    });
    const children = exporter.getFinishedSpans().filter((span) => span.parentSpanContext?.spanId === server.spanContext().spanId);
    return { server, children };
  };

  it('a 200 list: a server span after the HTTP conventions, a child of the caller\'s traceparent, with a child span per store call', async () => {
    const { get, port } = await serve();
    const response = await get('/v1/pets?limit=5', KEY, { traceparent: `00-${TRACE_ID}-${CALLER_SPAN_ID}-01`, 'user-agent': 'traces-test/1' });
    expect(response.status).toBe(200);
    const { server, children } = await requestSpans();
    expect(server.name).toBe('GET /v1/pets');
    expect(server.spanContext().traceId).toBe(TRACE_ID);
    expect(server.parentSpanContext?.spanId).toBe(CALLER_SPAN_ID);
    expect(server.status.code).toBe(SpanStatusCode.UNSET);
    expect(server.attributes).toMatchObject({
      'http.request.method': 'GET',
      'url.scheme': 'http',
      'url.path': '/v1/pets',
      'http.route': '/v1/pets',
      'http.response.status_code': 200,
      'server.address': '127.0.0.1',
      'server.port': port,
      'client.address': '127.0.0.1',
      'user_agent.original': 'traces-test/1',
      'network.protocol.version': '1.1',
      'petstore.operation': 'listPets',
      'petstore.quota.verdict': 'admitted',
      'petstore.plan': 'enterprise',
      'petstore.quota.rule': 'minute',
    });
    expect(children.map((span) => span.name).sort()).toEqual(['petstore.keys.grantOf', 'petstore.pets.pageJson', 'petstore.quota.decide']);
    for (const child of children) {
      expect(child.kind, child.name).toBe(SpanKind.INTERNAL);
      expect(child.attributes['db.system.name'], child.name).toBe('memory');
      expect(child.spanContext().traceId).toBe(TRACE_ID);
    }
    const everything = JSON.stringify(exporter.getFinishedSpans().map((span) => [span.name, span.attributes]));
    expect(everything, 'no span carries the API key').not.toContain(KEY);
  });

  it('a request its caller sampled out makes no span, and none of its store calls a root of its own; the next, sampled, has its children', async () => {
    // The SDK's default sampler is ParentBased: the caller's traceparent flags decide.
    const { get } = await serve();
    // Another page than the sampled request's, which would otherwise find it cached and not call the store.
    const unsampled = await get('/v1/pets?limit=7', KEY, { traceparent: `00-${TRACE_ID}-${CALLER_SPAN_ID}-00` });
    expect(unsampled.status).toBe(200);
    expect(await unsampled.json(), 'the page its store calls read').toEqual([]);
    const sampled = await get('/v1/pets?limit=5', KEY, { traceparent: `00-${TRACE_ID}-${CALLER_SPAN_ID}-01` });
    expect(sampled.status).toBe(200);
    const { server, children } = await requestSpans();
    expect(children.map((span) => span.name).sort()).toEqual(['petstore.keys.grantOf', 'petstore.pets.pageJson', 'petstore.quota.decide']);
    // Both answers are in and the sampled request's spans ended: the unsampled one's would have too.
    expect(exporter.getFinishedSpans()).toHaveLength(1 + children.length);
    expect(server.spanContext().traceId).toBe(TRACE_ID);
  });

  it('a 429: the verdict and the rule that refused it, a client error and not the span\'s', async () => {
    const { get } = await serve();
    expect((await get('/v1/pets', TIGHT_KEY)).status).toBe(200);
    await requestSpans();
    exporter.reset();
    expect((await get('/v1/pets/1', TIGHT_KEY)).status).toBe(429);
    const { server, children } = await requestSpans();
    expect(server.name).toBe('GET /v1/pets/:petId');
    expect(server.status.code).toBe(SpanStatusCode.UNSET);
    expect(server.attributes).toMatchObject({
      'http.route': '/v1/pets/:petId',
      'http.response.status_code': 429,
      'petstore.operation': 'getPet',
      'petstore.quota.verdict': 'rate_limited',
      'petstore.quota.rule': 'minute',
    });
    expect(children.map((span) => span.name)).not.toContain('petstore.pets.get');
  });

  it('a 5xx of a failing store: the server span an error, and the store call\'s span with its exception', async () => {
    const failing: PetRepository = {
      create: () => Promise.reject(new Error('not used')),
      get: () => Promise.reject(new Error('not used')),
      pageJson: () => Promise.reject(new TypeError('the disk caught fire')),
      updateStatus: () => Promise.reject(new Error('not used')),
      countByStatus: () => Promise.reject(new Error('not used')),
    };
    const { get } = await serve({}, (deps) => ({ ...deps, catalog: new PetCatalog(tracedCalls(failing, deps.tracer!, 'petstore.pets', 'memory')) }));
    const response = await get('/v1/pets', KEY);
    expect(response.status).toBe(500);
    const { server, children } = await requestSpans();
    expect(server.status.code).toBe(SpanStatusCode.ERROR);
    expect(server.attributes).toMatchObject({ 'http.response.status_code': 500, 'error.type': '500', 'petstore.quota.verdict': 'admitted' });
    const page = children.find((span) => span.name === 'petstore.pets.pageJson');
    expect(page?.status.code).toBe(SpanStatusCode.ERROR);
    expect(page?.attributes['error.type']).toBe('TypeError');
    expect(page?.events.map((event) => event.name)).toEqual(['exception']);
  });

  it("store calls are their request's children through the scope the core hands them, never a context entered with a span, with requests interleaved", async () => {
    const entered = vi.spyOn(contextManager, 'with');
    const { port } = await serve();
    const traceIds = ['1'.repeat(32), '2'.repeat(32), '3'.repeat(32), '4'.repeat(32)];
    const send = (traceId: string, index: number) =>
      fetch(`http://127.0.0.1:${port}/v1/pets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'idempotency-key': `interleaved-${index}`, traceparent: `00-${traceId}-${CALLER_SPAN_ID}-01` },
        body: JSON.stringify({ name: `pet ${index}`, categoryId: 1, status: 'available' }),
      });
    const responses = await Promise.all(traceIds.map(send));
    expect(responses.map((response) => response.status)).toEqual([201, 201, 201, 201]);
    const spans = await vi.waitFor(() => {
      const finished = exporter.getFinishedSpans();
      if (finished.filter((span) => span.kind === SpanKind.SERVER).length < traceIds.length) throw new Error('not every server span yet');
      return finished;
    });
    // The SDK's span processors enter contexts of their own to export (tracing suppressed there); no context ever holds a request's span.
    expect(entered.mock.calls.filter(([entered]) => trace.getSpan(entered) !== undefined)).toEqual([]);
    entered.mockRestore();
    for (const traceId of traceIds) {
      const ofTrace = spans.filter((span) => span.spanContext().traceId === traceId);
      const server = ofTrace.find((span) => span.kind === SpanKind.SERVER)!;
      const children = ofTrace.filter((span) => span !== server);
      expect(children.map((span) => span.name).sort(), traceId).toEqual(['petstore.idempotency.begin', 'petstore.keys.grantOf', 'petstore.pets.create', 'petstore.quota.decide']);
      for (const child of children) expect(child.parentSpanContext?.spanId, child.name).toBe(server.spanContext().spanId);
    }
  });

  it('PETSTORE_TRACES_RATIO: a request without a caller\'s trace context is offered to the SDK at that share, one with it always', async () => {
    const { get } = await serve({ PETSTORE_TRACES_RATIO: '0.000001' });
    for (let i = 0; i < 20; i++) expect((await get(`/v1/pets?limit=${i + 1}`, KEY)).status).toBe(200);
    expect((await get('/v1/pets?limit=30', KEY, { traceparent: `00-${TRACE_ID}-${CALLER_SPAN_ID}-01` })).status).toBe(200);
    const { server, children } = await requestSpans();
    expect(server.spanContext().traceId).toBe(TRACE_ID);
    // The sampled request's spans ended after every earlier answer: theirs would have too.
    expect(exporter.getFinishedSpans()).toHaveLength(1 + children.length);
  });

  it('PETSTORE_TRACES=off: no tracer is handed out and no request or store call makes a span', async () => {
    const { get, deps } = await serve({ PETSTORE_TRACES: 'off' });
    expect(deps.tracer).toBeUndefined();
    expect((await get('/v1/pets', KEY)).status).toBe(200);
    expect((await get('/v1/pets/999', KEY)).status).toBe(404);
    // The answers are in: the hook that would end a span has run too.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});

describe('with an SDK registered and a context manager that enters nothing (docs/operating.md, "Traces")', () => {
  const exporter = new InMemorySpanExporter();
  // As docs/operating.md writes it: no AsyncLocalStorage, so nothing of Node's promise hooks is ever turned on.
  const noContext: ContextManager = {
    active: () => ROOT_CONTEXT,
    with: (_context, fn, thisArg, ...args) => fn.call(thisArg, ...args),
    bind: (_context, target) => target,
    enable() {
      return this;
    },
    disable() {
      return this;
    },
  };
  let opened: { store: PetStore; server: Server } | undefined;

  beforeAll(() => {
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    context.setGlobalContextManager(noContext);
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  });

  afterAll(async () => {
    if (opened !== undefined) await Promise.all([opened.store.close(), new Promise((resolve) => opened!.server.close(resolve))]);
    trace.disable();
    context.disable();
    propagation.disable();
  });

  it("each store call's span is still its request's child, the request a child of its caller", async () => {
    const store = await createPetStore({ store: 'memory', apiKeys: API_KEYS, environ: { PETSTORE_LOG_LEVEL: 'silent' } });
    const listener = createServer(createRequestHandler(store.dependencies));
    opened = { store, server: listener };
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const { port } = listener.address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}/v1/pets?limit=3`, { headers: { authorization: `Bearer ${KEY}`, traceparent: `00-${TRACE_ID}-${CALLER_SPAN_ID}-01` } });
    expect(response.status).toBe(200);
    const spans = await vi.waitFor(() => {
      const finished = exporter.getFinishedSpans();
      if (!finished.some((span) => span.kind === SpanKind.SERVER)) throw new Error('no server span yet');
      return finished;
    });
    const server = spans.find((span) => span.kind === SpanKind.SERVER)!;
    expect(server.parentSpanContext?.spanId).toBe(CALLER_SPAN_ID);
    const children = spans.filter((span) => span !== server);
    expect(children.map((span) => span.name).sort()).toEqual(['petstore.keys.grantOf', 'petstore.pets.pageJson', 'petstore.quota.decide']);
    for (const child of children) expect(child.parentSpanContext?.spanId, child.name).toBe(server.spanContext().spanId);
  });
});
