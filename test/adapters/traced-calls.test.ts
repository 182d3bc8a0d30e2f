import { describe, expect, it } from 'vitest';
import { tracedCalls } from '../../src/adapters/wrappers/traced-calls.js';
import type { CallKind, SpanAttributes, Tracer } from '../../src/ports/tracer.js';

/** A tracer that only notes each call's span. */
const notingTracer = () => {
  const calls: { name: string; kind: CallKind; attributes: SpanAttributes }[] = [];
  const tracer: Tracer = {
    startRequest: () => {
      throw new Error('no request here');
    },
    traceCall: (name, kind, attributes, call) => {
      calls.push({ name, kind, attributes });
      return call();
    },
  };
  return { tracer, calls };
};

class Counter {
  #count = 0;
  get count(): number {
    return this.#count;
  }
  add(by: number): number {
    this.#count += by;
    return this.#count;
  }
  async addLater(by: number): Promise<number> {
    return this.add(by);
  }
  peek(): number {
    return this.#count;
  }
}

describe('tracedCalls', () => {
  it("traces every method the adapter has, on the adapter itself: its private fields and getters work, a synchronous result stays synchronous", async () => {
    const { tracer, calls } = notingTracer();
    const counter = tracedCalls(new Counter(), tracer, 'petstore.counter', 'redis');
    expect(counter.add(2)).toBe(2);
    await expect(counter.addLater(3)).resolves.toBe(5);
    expect(counter.count).toBe(5);
    expect(counter).toBeInstanceOf(Counter);
    expect(calls).toEqual([
      { name: 'petstore.counter.add', kind: 'client', attributes: { 'db.system.name': 'redis', 'db.operation.name': 'add' } },
      { name: 'petstore.counter.addLater', kind: 'client', attributes: { 'db.system.name': 'redis', 'db.operation.name': 'addLater' } },
    ]);
  });

  it("makes internal spans on memory, and none for the methods it is told are no store call nor for Object's own", () => {
    const { tracer, calls } = notingTracer();
    const counter = tracedCalls(new Counter(), tracer, 'petstore.counter', 'memory', ['peek']);
    counter.add(1);
    expect(counter.peek()).toBe(1);
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
        this.add(to - this.peek());
      }
      [closed](): number {
        return this.peek();
      }
    }
    const adapter = Object.assign(new Resettable(), { own: () => 'own' });
    const { tracer, calls } = notingTracer();
    const counter = tracedCalls(adapter, tracer, 'petstore.counter', 'redis');
    counter.count = 4;
    expect(adapter.count).toBe(4);
    expect(counter[closed]()).toBe(4);
    expect(counter.own()).toBe('own');
    counter.add(1);
    expect(calls.map(({ name }) => name)).toEqual(['petstore.counter.own', 'petstore.counter.add']);
  });
});
