import { memoryServices } from '../support/memory-services.js';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpServer, type PetStoreHttpServer } from '../../src/adapters/http/http-server.js';
import { MemoryApiKeyRegistry } from '../../src/adapters/memory/memory-api-key-registry.js';
import { MemoryQuotaStore } from '../../src/adapters/memory/memory-quota-store.js';
import { SystemClock } from '../../src/adapters/system/system-clock.js';
import { digestApiKey } from '../../src/adapters/api-key-digest.js';
import { DEFAULT_BAN_POLICY } from '../../src/domain/quota/ban-policy.js';
import { STANDARD_PLANS } from '../../src/domain/quota/plan.js';
import { RequestAdmission } from '../../src/domain/quota/request-admission.js';

/** Sends `parts` one by one, `gapMs` apart, and resolves with what the server answered and when it hung up. */
function trickle(port: number, parts: readonly string[], gapMs: number): Promise<{ answer: string; closedAfterMs: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    let next = 0;
    const timer = setInterval(() => {
      if (next < parts.length && !socket.destroyed) socket.write(parts[next++] ?? '');
    }, gapMs);
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ answer, closedAfterMs: Date.now() - started });
    });
  });
}

describe('slow clients', () => {
  let server: PetStoreHttpServer;
  let port: number;

  beforeAll(async () => {
    const keys = new MemoryApiKeyRegistry();
    await keys.register(digestApiKey('slow-test-key'), { plan: STANDARD_PLANS.pro, role: 'customer' });
    const admission = new RequestAdmission(keys, new MemoryQuotaStore(new SystemClock()), {
      anonymousPolicy: { rules: [{ name: 'minute', limit: 60, windowMs: 60_000 }] },
      ban: DEFAULT_BAN_POLICY,
    });
    server = createHttpServer(
      { ...(await memoryServices()), admission },
      {
        deprecatedAt: new Date('2026-01-01T00:00:00Z'),
        headersTimeoutMs: 500,
        requestTimeoutMs: 1_000,
        keepAliveTimeoutMs: 500,
        logError: () => {},
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('cannot hold a connection by sending headers slowly', async () => {
    const headerBytes = 'GET /v1/pets HTTP/1.1\r\nHost: x\r\n'.split('').concat(['\r\n']);
    const { answer, closedAfterMs } = await trickle(port, headerBytes, 100);
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(closedAfterMs).toBeLessThan(2_500);
  });

  it('cannot hold a connection by sending a body slowly', async () => {
    const head =
      'POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer slow-test-key\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n';
    const body = '{"name":"Slow","categoryId":1}'.split('');
    const { closedAfterMs } = await trickle(port, [head, ...body], 150);
    expect(closedAfterMs).toBeLessThan(3_000);
  });
});
