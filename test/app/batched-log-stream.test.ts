import { finishedEvent } from '../support/request-finished-event.js';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BatchedLogStream, type BatchedLogStreamOptions } from '../../src/app/logging/batched-log-stream.js';
import type { RequestFinishedEvent } from '../../src/adapters/http/wire/request-finished.js';
import { requestIdOf } from '../../src/adapters/http/wire/request-id.js';
import { createLogger } from '../../src/app/logging/logger.js';

/** A stdout stand-in: records each write(2) it is given; `stalled` holds them unwritten, as a pipe nobody reads. */
class FakeStdout extends Writable {
  readonly writes: string[] = [];
  #held: (() => void)[] = [];
  stalled = false;

  constructor() {
    super({ decodeStrings: false });
  }

  override _write(chunk: string | Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.writes.push(chunk.toString());
    if (this.stalled) this.#held.push(done);
    else done();
  }

  resume(): void {
    this.stalled = false;
    for (const done of this.#held.splice(0)) done();
  }

  text(): string {
    return this.writes.join('');
  }
}

const line = (n: number): string => `{"n":${n}}\n`;
const options = (overrides: Partial<BatchedLogStreamOptions<number>> = {}): BatchedLogStreamOptions<number> => ({
  format: line,
  batchEntries: 4,
  flushIntervalMs: 50,
  maxPendingBytes: 1_000,
  onDropped: () => undefined,
  ...overrides,
});

describe('BatchedLogStream', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('holds fewer entries than a batch until the flush interval, then writes their lines in order in one write', () => {
    const out = new FakeStdout();
    const stream = new BatchedLogStream(out, options({ batchEntries: 10 }));
    for (let n = 0; n < 5; n++) stream.add(n);
    expect(out.writes).toEqual([]);
    vi.advanceTimersByTime(49);
    expect(out.writes).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(out.writes).toEqual([[0, 1, 2, 3, 4].map(line).join('')]);
  });

  it('writes a batch as soon as it holds its number of entries, without waiting for the interval', () => {
    const out = new FakeStdout();
    const stream = new BatchedLogStream(out, options());
    for (let n = 0; n < 9; n++) stream.add(n);
    expect(out.writes).toEqual([[0, 1, 2, 3].map(line).join(''), [4, 5, 6, 7].map(line).join('')]);
    vi.advanceTimersByTime(50);
    expect(out.writes.at(-1)).toBe(line(8));
  });

  it('makes an entry\'s line only when its batch is written', () => {
    const out = new FakeStdout();
    const formatted: number[] = [];
    const stream = new BatchedLogStream(out, options({ format: (n) => (formatted.push(n), line(n)) }));
    stream.add(1);
    stream.add(2);
    expect(formatted).toEqual([]);
    stream.flush();
    expect(formatted).toEqual([1, 2]);
  });

  it('writes a line at once, in the same write as the entries added before it and behind them', () => {
    const out = new FakeStdout();
    const stream = new BatchedLogStream(out, options());
    stream.add(1);
    stream.add(2);
    stream.write('{"msg":"failed"}\n');
    expect(out.writes).toEqual([`${line(1)}${line(2)}{"msg":"failed"}\n`]);
    vi.advanceTimersByTime(50);
    expect(out.writes).toHaveLength(1);
  });

  it('drops batches while stdout holds too much unwritten, without making their lines, and reports how many lines once it takes lines again', () => {
    const out = new FakeStdout();
    const dropped: number[] = [];
    const formatted: number[] = [];
    const stream = new BatchedLogStream(
      out,
      options({ format: (n) => (formatted.push(n), line(n)), maxPendingBytes: 3 * line(0).length, onDropped: (lines) => dropped.push(lines) }),
    );
    out.stalled = true;
    for (let n = 0; n < 10; n++) {
      stream.add(n);
      stream.flush();
    }
    expect(out.writableLength).toBe(3 * line(0).length);
    expect(dropped).toEqual([]);
    expect(formatted).toEqual([0, 1, 2]);
    out.resume();
    stream.add(10);
    stream.flush();
    expect(out.text()).toBe([0, 1, 2, 10].map(line).join(''));
    expect(dropped).toEqual([7]);
  });

  it('drain hands over what is gathered and resolves once stdout has written it all', async () => {
    const out = new FakeStdout();
    const stream = new BatchedLogStream(out, options());
    out.stalled = true;
    stream.add(1);
    stream.flush();
    stream.add(2);
    let drained = false;
    const draining = stream.drain(1_000).then(() => (drained = true));
    await vi.advanceTimersByTimeAsync(500);
    expect(drained).toBe(false);
    out.resume();
    await draining;
    expect(out.text()).toBe(line(1) + line(2));
  });

  it('drain gives up after its timeout when stdout is never read', async () => {
    const out = new FakeStdout();
    const stream = new BatchedLogStream(out, options());
    out.stalled = true;
    stream.add(1);
    let drained = false;
    const draining = stream.drain(1_000).then(() => (drained = true));
    await vi.advanceTimersByTimeAsync(999);
    expect(drained).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await draining;
    expect(out.writes).toEqual([line(1)]);
  });
});

const request = (requestId: string): RequestFinishedEvent => finishedEvent({ requestId: requestIdOf(requestId) });

describe('the logger over its batches', () => {
  it('writes an error at once, behind the access lines gathered before it', () => {
    vi.useFakeTimers();
    try {
      const out = new FakeStdout();
      const { logger, access } = createLogger('info', out);
      access?.(request('a'));
      access?.(request('b'));
      expect(out.writes).toEqual([]);
      logger.error({ requestId: 'c' }, 'failed');
      const lines = out.text().trim().split('\n').map((text) => JSON.parse(text) as Record<string, unknown>);
      expect(lines.map((entry) => entry['requestId'])).toEqual(['a', 'b', 'c']);
      expect(lines[2]).toMatchObject({ level: 50, msg: 'failed' });
    } finally {
      vi.useRealTimers();
    }
  });

  it('says how many lines it dropped while stdout was not read', () => {
    const out = new FakeStdout();
    out.stalled = true;
    const { logger, access } = createLogger('info', out);
    // Lines of 64 KiB (a plan name that long), in batches of 128 (8 MiB): 8 batches wait unwritten (64 MiB), the next 2 are dropped, 20 lines wait.
    const long = { ...request('r'), plan: 'p'.repeat(64 * 1024) };
    const sent = 1_300;
    for (let n = 0; n < sent; n++) access?.(long);
    out.resume();
    logger.info('after');
    const lines = out.text().trim().split('\n').map((text) => JSON.parse(text) as Record<string, unknown>);
    const written = lines.filter((entry) => entry['msg'] === 'request').length;
    expect(written).toBe(1_024 + 20);
    // The warning stands where the gap was: after the lines written before it, before those written after.
    expect(lines[1_024]).toMatchObject({ level: 40, droppedLines: sent - written, msg: 'log lines dropped: stdout was not read' });
    expect(lines.at(-1)).toMatchObject({ msg: 'after' });
    expect(lines).toHaveLength(written + 2);
  });
});
