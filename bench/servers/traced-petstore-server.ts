/**
 * bench/servers/petstore-server.ts with an OpenTelemetry SDK registered first, as an operator's
 * `node --import` of the SDK's setup would: every span sampled and ended, batched by the SDK's
 * BatchSpanProcessor and handed to an exporter that counts and drops them, so the figures are
 * what making the spans costs, not what shipping them does. With BENCH_SPANS_FILE set, the count
 * of exported spans is written there when the process exits.
 */
import { writeFileSync } from 'node:fs';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { ExportResultCode, W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';

let exported = 0;
const dropping: SpanExporter = {
  export: (spans, done) => {
    exported += spans.length;
    done({ code: ExportResultCode.SUCCESS });
  },
  shutdown: () => Promise.resolve(),
};
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(dropping)] }));
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new W3CTraceContextPropagator());

const spansFile = process.env['BENCH_SPANS_FILE'];
if (spansFile !== undefined) process.on('exit', () => writeFileSync(spansFile, String(exported)));

await import('./petstore-server.js');
