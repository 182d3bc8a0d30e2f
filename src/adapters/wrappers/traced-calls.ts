import type { Tracer } from '../../ports/tracer.js';

/** OpenTelemetry's `db.system.name` of a store (its stable name for what was `db.system`); `memory` is this service's own. */
export type DbSystem = 'memory' | 'redis' | 'postgresql';

/**
 * `port` with each of its methods called in a span of its own, `<prefix>.<method>`
 * (`petstore.quota.decide`), a child of the request's. The methods are whatever functions the
 * adapter has, found when first called, so a method a port gains is traced with no edit here.
 * Each is called on the adapter itself (its private fields and getters work as before), and
 * its result is returned as it came: a synchronous store stays synchronous. `untraced`: methods
 * that are no store call.
 */
export function tracedCalls<Port extends object>(port: Port, tracer: Tracer, prefix: string, system: DbSystem, untraced: readonly string[] = []): Port {
  const kind = system === 'memory' ? 'internal' : 'client';
  const methods = new Map<string, unknown>();
  const methodOf = (target: Port, property: string, call: (...args: unknown[]) => unknown): unknown => {
    if (untraced.includes(property)) return call.bind(target);
    const name = `${prefix}.${property}`;
    const attributes = { 'db.system.name': system, 'db.operation.name': property };
    return (...args: unknown[]) => tracer.traceCall(name, kind, attributes, () => call.apply(target, args));
  };
  return new Proxy(port, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property);
      // Object's own methods (constructor, toString...) are no store calls.
      if (typeof value !== 'function' || typeof property !== 'string' || property in Object.prototype) return value;
      let method = methods.get(property);
      if (method === undefined) {
        method = methodOf(target, property, value as (...args: unknown[]) => unknown);
        methods.set(property, method);
      }
      return method;
    },
  });
}
