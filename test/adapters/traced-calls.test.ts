import { describe, expect, it } from 'vitest';
import { tracedCalls } from '../../src/adapters/wrappers/traced-calls.js';
import type { CallKind, CallScope, RequestSpan, SpanAttributes, Tracer } from '../../src/ports/tracer.js';

/** A traced request's span, as far as the wrapper sees it. */
const requestSpan = (): RequestSpan => ({ set: () => undefined, end: () => undefined });

/** A tracer that only notes each call's span, with the request span it was a child of. */
const notingTracer = () => {
  const calls: { name: string; kind: CallKind; attributes: SpanAttributes; parent: RequestSpan }[] = [];
  const mine = new Set<unknown>();
  const tracer: Tracer = {
    startRequest: () => {
      const span = requestSpan();
      mine.add(span);
      return span;
    },
    scopeOf: (scope) => (mine.has(scope) ? (scope as RequestSpan) : undefined),
    traceCall: (parent, name, kind, attributes, call) => {
      calls.push({ name, kind, attributes, parent });
      return call();
    },
  };
  return { tracer, calls, scope: tracer.startRequest({}, () => ({ name: 'GET /pets', attributes: {} }))! };
};

class Counter {
  #count = 0;
  get count(): number {
    return this.#count;
  }
  add(by: number, _scope?: CallScope): number {
    this.#count += by;
    return this.#count;
  }
  async addLater(by: number, _scope?: CallScope): Promise<number> {
    return this.add(by);
  }
  peek(_scope?: CallScope): number {
    return this.#count;
  }
}

describe('tracedCalls', () => {
  it("traces every method the adapter has, on the adapter itself: its private fields and getters work, a synchronous result stays synchronous", async () => {
    const { tracer, calls, scope } = notingTracer();
    const counter = tracedCalls(new Counter(), tracer, 'petstore.counter', 'redis');
    expect(counter.add(2, scope)).toBe(2);
    await expect(counter.addLater(3, scope)).resolves.toBe(5);
    expect(counter.count).toBe(5);
    expect(counter).toBeInstanceOf(Counter);
    expect(calls).toEqual([
      { name: 'petstore.counter.add', kind: 'client', attributes: { 'db.system.name': 'redis', 'db.operation.name': 'add' }, parent: scope },
      { name: 'petstore.counter.addLater', kind: 'client', attributes: { 'db.system.name': 'redis', 'db.operation.name': 'addLater' }, parent: scope },
    ]);
  });

  it('makes a span only for a call whose last argument is a traced request: none without one, none for a request span of another tracer', () => {
    const { tracer, calls, scope } = notingTracer();
    const counter = tracedCalls(new Counter(), tracer, 'petstore.counter', 'redis');
    counter.add(1);
    counter.add(1, undefined);
    counter.add(1, notingTracer().scope);
    expect(calls).toEqual([]);
    counter.add(1, scope);
    expect(calls.map(({ name, parent }) => [name, parent])).toEqual([['petstore.counter.add', scope]]);
    expect(counter.count).toBe(4);
  });

  it("makes internal spans on memory, and none for the methods it is told are no store call nor for Object's own", () => {
    const { tracer, calls, scope } = notingTracer();
    const counter = tracedCalls(new Counter(), tracer, 'petstore.counter', 'memory', ['peek']);
    counter.add(1, scope);
    expect(counter.peek(scope)).toBe(1);
    expect(counter.constructor).toBe(Counter);
    expect(String(counter)).toBe('[object Object]');
    expect(calls.map(({ name, kind }) => `${kind} ${name}`)).toEqual(['internal petstore.counter.add']);
  });

  it('traces the methods of the adapter\'s classes and its own; a setter and a symbol-named method run on the adapter itself, untraced, and its calls within them are no spans', () => {
    const closed = Symbol('closed');
    class Resettable extends Counter {
      override set count(value: number) {
        this.reset(value);
      }
      override get count(): number {
        return super.count;
      }
      reset(to: number): void {
        this.add(to - this.peek(), scope);
      }
      [closed](_scope?: CallScope): number {
        return this.peek(scope);
      }
    }
    const { tracer, calls, scope } = notingTracer();
    const adapter = Object.assign(new Resettable(), { own: (_scope?: CallScope) => 'own' });
    const counter = tracedCalls(adapter, tracer, 'petstore.counter', 'redis');
    counter.count = 4;
    expect(adapter.count).toBe(4);
    expect(counter[closed](scope)).toBe(4);
    expect(counter.own(scope)).toBe('own');
    counter.add(1, scope);
    expect(calls.map(({ name }) => name)).toEqual(['petstore.counter.own', 'petstore.counter.add']);
  });
});
