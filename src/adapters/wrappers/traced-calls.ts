import type { Tracer } from '../../ports/tracer.js';

/** OpenTelemetry's `db.system.name` of a store (its stable name for what was `db.system`); `memory` is this service's own. */
export type DbSystem = 'memory' | 'redis' | 'postgresql';

/**
 * `port` with each of its methods called in a span of its own, `<prefix>.<method>`
 * (`petstore.quota.decide`), a child of the request's when the call's last argument is a traced
 * request's CallScope (the core passes it last; a call without one makes no span). The methods
 * are whatever functions the adapter has (its class's, its prototypes', its own), so a method a
 * port gains is traced with no edit here. The wrapper inherits from the adapter (`instanceof` holds), each method and getter
 * runs on the adapter itself (its private fields work as before), and a result is returned as it
 * came: a synchronous store stays synchronous. `untraced`: methods that are no store call.
 * Built once, when the app is composed: a call costs one closure, not a Proxy's trap.
 */
export function tracedCalls<Port extends object>(port: Port, tracer: Tracer, prefix: string, system: DbSystem, untraced: readonly string[] = []): Port {
  const kind = system === 'memory' ? 'internal' : 'client';
  const traced = Object.create(port) as Port;
  const defined = new Set<PropertyKey>();
  // Object's own methods (constructor, toString...) are no store calls: the walk stops above it.
  for (let holder: object | null = port; holder !== null && holder !== Object.prototype; holder = Object.getPrototypeOf(holder) as object | null) {
    for (const property of Reflect.ownKeys(holder)) {
      if (property === 'constructor' || defined.has(property)) continue;
      defined.add(property);
      const descriptor = Object.getOwnPropertyDescriptor(holder, property)!;
      if (descriptor.get !== undefined || descriptor.set !== undefined) {
        const forwarded: PropertyDescriptor = {};
        if (descriptor.get !== undefined) forwarded.get = () => Reflect.get(port, property);
        if (descriptor.set !== undefined) forwarded.set = (value: unknown) => Reflect.set(port, property, value);
        Object.defineProperty(traced, property, forwarded);
        continue;
      }
      const call = descriptor.value as unknown;
      if (typeof call !== 'function') continue;
      const method = call as (...args: unknown[]) => unknown;
      if (typeof property !== 'string' || untraced.includes(property)) {
        Object.defineProperty(traced, property, { value: method.bind(port) });
        continue;
      }
      const name = `${prefix}.${property}`;
      const attributes = { 'db.system.name': system, 'db.operation.name': property };
      Object.defineProperty(traced, property, {
        value: (...args: unknown[]) => {
          const parent = tracer.scopeOf(args[args.length - 1]);
          return parent === undefined ? method.apply(port, args) : tracer.traceCall(parent, name, kind, attributes, () => method.apply(port, args));
        },
      });
    }
  }
  return traced;
}
