import { finishedEvent } from '../support/request-finished-event.js';
import { capturedLog } from '../support/captured-log.js';
import { describe, expect, it } from 'vitest';
import type { RequestId } from '../../src/adapters/http/wire/request-id.js';
import { createLogger, errorLogger } from '../../src/app/logging/logger.js';
import { unavailabilityReason } from '../../src/app/cli/store-failure.js';
import { StoreUnavailableError } from '../../src/domain/errors.js';


describe('the logger', () => {
  it('censors authorization headers, Redis URLs and passwords wherever a logged object holds them', () => {
    const out = capturedLog();
    const { logger } = createLogger('info', out.stream);
    logger.info({ headers: { authorization: 'Bearer secret-key-1' }, redisUrl: 'redis://:hunter2@db:6379', options: { password: 'hunter2' } }, 'oops');
    const text = JSON.stringify(out.lines());
    expect(text).not.toContain('secret-key-1');
    expect(text).not.toContain('hunter2');
    expect(out.lines()[0]).toMatchObject({ headers: { authorization: '[redacted]' }, redisUrl: '[redacted]', msg: 'oops' });
  });

  it('logs failures at error level with the request id', () => {
    const out = capturedLog();
    errorLogger(createLogger('info', out.stream).logger)('request failed', new Error('boom'), 'req-42');
    expect(out.lines()[0]).toMatchObject({ level: 50, msg: 'request failed', requestId: 'req-42', err: { message: 'boom', type: 'Error' } });
  });

  it.each(['warn', 'error', 'silent'] as const)('writes the access log at level %s too: the access log does not follow the level', async (level) => {
    const out = capturedLog();
    const log = createLogger(level, out.stream);
    log.logger.info('hidden');
    log.access(finishedEvent({ requestId: 'req-1' as RequestId, finishedAt: Date.UTC(2026, 10, 27) }));
    await log.close();
    expect(out.lines()).toEqual([expect.objectContaining({ level: 30, requestId: 'req-1', route: '/pets', status: 200, msg: 'request' })]);
  });

  it('honours the level', () => {
    const out = capturedLog();
    const { logger } = createLogger('warn', out.stream);
    logger.info('hidden');
    logger.warn('shown');
    expect(out.lines().map((line) => line['msg'])).toEqual(['shown']);
  });
});

describe('why a store is unavailable at start', () => {
  const failed = (cause: Error & { code?: string }): StoreUnavailableError => new StoreUnavailableError('Redis at redis://h:1', { cause });
  it.each([
    [Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }), 'connection refused'],
    [Object.assign(new Error('connect ETIMEDOUT'), { code: 'ETIMEDOUT' }), 'connection timed out'],
    [new Error('WRONGPASS invalid username-password pair or user is disabled.'), 'authentication failed'],
    [new Error('NOAUTH Authentication required.'), 'authentication failed'],
    [Object.assign(new Error('getaddrinfo ENOTFOUND nowhere'), { code: 'ENOTFOUND' }), 'host not found'],
    [new Error('Connection is closed.'), undefined],
  ])('%s: %s', (cause, reason) => {
    expect(unavailabilityReason(failed(cause))).toBe(reason);
  });
});
