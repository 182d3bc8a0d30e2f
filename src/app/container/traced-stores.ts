import type { Container, ServiceIdentifier } from 'inversify';
import { openTelemetryTracer } from '../../adapters/opentelemetry/open-telemetry-tracer.js';
import { tracedCalls } from '../../adapters/wrappers/traced-calls.js';
import type { PetStoreConfig } from '../config/config.js';
import { STORE_KINDS } from '../config/config.js';
import { TOKENS } from './tokens.js';

/**
 * Binds the tracer PETSTORE_TRACES asks for and, when there is one, wraps every store port the
 * container hands out, whichever module bound it, so that each call is a span
 * (`petstore.<prefix>.<method>`) named for the system that holds it: the shop's records, or the
 * quota counters (with the concurrency slots). Without a tracer the ports are handed out as built.
 */
export function traceStoreCalls(container: Container, config: PetStoreConfig): void {
  container
    .bind(TOKENS.tracer)
    .toResolvedValue(() => openTelemetryTracer(config.traces, config.tracesRatio))
    .inSingletonScope();
  const systems = STORE_KINDS[config.store];
  const traced = <Port extends object>(token: ServiceIdentifier<Port>, prefix: string, held: 'records' | 'counters', untraced: readonly (keyof Port & string)[] = []): void =>
    container.onActivation(token, async (context, port) => {
      const tracer = await context.getAsync(TOKENS.tracer);
      return tracer === null ? port : tracedCalls(port, tracer, `petstore.${prefix}`, systems[held], untraced);
    });
  // writeCount reads a counter in this process, twice a listed page: no store call.
  traced(TOKENS.petRepository, 'pets', 'records', ['writeCount']);
  traced(TOKENS.orderRepository, 'orders', 'records');
  traced(TOKENS.idempotencyStore, 'idempotency', 'records');
  traced(TOKENS.apiKeyRegistry, 'keys', 'records');
  traced(TOKENS.keyAdmin, 'keys', 'records');
  traced(TOKENS.creditLedger, 'credits', 'records');
  traced(TOKENS.quotaStore, 'quota', 'counters');
  traced(TOKENS.concurrencySlots, 'concurrency', 'counters');
}
