/**
 * bench/servers/petstore-server.ts with an OpenTelemetry SDK registered first, as an operator's
 * `node --import` of the SDK's setup would: spans sampled by ParentBased(AlwaysOn) (what the server
 * is offered, PETSTORE_TRACES_RATIO of the requests) or, given a BENCH_TRACES_RATIO below 1,
 * ParentBased(TraceIdRatioBased(it)); ended, batched by the SDK's BatchSpanProcessor and handed
 * to an exporter that counts and drops them, so the figures are what making the spans costs, not
 * what shipping them does. With BENCH_SPANS_FILE set, the count of exported spans is written
 * there when the process exits. BENCH_CONTEXT_ONLY=1 registers the SDK's context manager alone and
 * enters one context before the server starts (run with PETSTORE_TRACES=off): what Node's
 * AsyncLocalStorage costs a process once any context is entered (the SDK's span processors enter
 * one to export), with no span at all. BENCH_NO_CONTEXT_MANAGER=1 registers none.
 */
import { writeFileSync } from 'node:fs';
import { context, propagation, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { ExportResultCode, W3CTraceContextPropagator } from '@opentelemetry/core';
import { AlwaysOnSampler, BasicTracerProvider, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler, type SpanExporter } from '@opentelemetry/sdk-trace-base';

const ratioText = process.env['BENCH_TRACES_RATIO'] ?? '1';
const ratio = Number(ratioText);
if (ratioText === '' || !(ratio >= 0 && ratio <= 1)) throw new Error(`BENCH_TRACES_RATIO: ${ratioText} is no ratio from 0 to 1`);

// BENCH_NO_CONTEXT_MANAGER=1: the API's default, which enters nothing (the service hands each store call its request's span itself).
if (process.env['BENCH_NO_CONTEXT_MANAGER'] !== '1') context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
if (process.env['BENCH_CONTEXT_ONLY'] === '1') {
  // AsyncLocalStorage turns its hooks on when a context is first entered, and never off.
  context.with(ROOT_CONTEXT, () => undefined);
} else {
  let exported = 0;
  const dropping: SpanExporter = {
    export: (spans, done) => {
      exported += spans.length;
      done({ code: ExportResultCode.SUCCESS });
    },
    shutdown: () => Promise.resolve(),
  };
  const sampler = new ParentBasedSampler({ root: ratio === 1 ? new AlwaysOnSampler() : new TraceIdRatioBasedSampler(ratio) });
  trace.setGlobalTracerProvider(new BasicTracerProvider({ sampler, spanProcessors: [new BatchSpanProcessor(dropping)] }));
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const spansFile = process.env['BENCH_SPANS_FILE'];
  if (spansFile !== undefined) process.on('exit', () => writeFileSync(spansFile, String(exported)));
}

await import('./petstore-server.js');
