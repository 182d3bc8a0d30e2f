import express from 'express';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRequestHandler } from '../../src/adapters/http/request-handler.js';
import { enterprisePlan } from '../../src/domain/quota/plan.js';
import { handlerDependencies, listening, type Host } from '../support/handler-hosts.js';

/*
 * Behind `express.json()`, malformed JSON never reaches the handler: the parser hands express its
 * error, and express answers with its own HTML page. docs/embedding.md mounts the handler before
 * the parser; this runs its block as written, with a malformed body to each side of it.
 */

const KEY = 'parser-order-1';
const guide = readFileSync(join(import.meta.dirname, '../../docs/embedding.md'), 'utf8');
const block = /\*\*Before the app's body parser\*\*[\s\S]*?```ts\n([\s\S]*?)```/.exec(guide)?.[1];

describe("the handler mounted before express.json(), as docs/embedding.md shows", () => {
  let host: Host;
  beforeAll(async () => {
    const deps = await handlerDependencies({ [KEY]: { plan: enterprisePlan(1_000, 100_000), role: 'customer' } });
    // The block, with its names bound: express, the handler's factory and deps; its app.listen(3000) on a free port.
    const source = (block ?? '').replace('app.listen(3000)', 'app.listen(0, "127.0.0.1")');
    const build = new Function('express', 'createRequestHandler', 'deps', `${source}\nreturn app;`) as (
      e: typeof express,
      c: typeof createRequestHandler,
      d: typeof deps,
    ) => express.Express;
    const app = build(express, createRequestHandler, deps);
    host = await listening(app.listen(0, '127.0.0.1'));
  });
  afterAll(async () => {
    await host?.close();
  });

  it('is in the guide', () => {
    expect(block).toMatch(/app\.use\('\/petstore', createRequestHandler[\s\S]*app\.use\(express\.json\(\)\)/);
  });

  it("answers malformed JSON to the API with its own 400 in the Error format, not express's HTML page", async () => {
    const response = await fetch(`${host.origin}/petstore/v1/pets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: '{"name": "Rex",',
    });
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect([response.status, ((await response.json()) as { code: string }).code]).toEqual([400, 'invalid_request']);
  });

  it("creates from a well-formed body, and leaves the app's own routes to express.json()", async () => {
    const created = await fetch(`${host.origin}/petstore/v1/pets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
    });
    expect(created.status).toBe(201);
    const echoed = await fetch(`${host.origin}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    expect(await echoed.json()).toEqual({ a: 1 });
  });
});
