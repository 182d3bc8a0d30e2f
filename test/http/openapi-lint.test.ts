import { readFileSync } from 'node:fs';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPetStore, type TestPetStore } from '../support/test-pet-store.js';
import { adminOpenApiDocument } from '../../src/adapters/http/admin/admin-openapi.js';
import { ADMIN_TOKEN_RULE } from '../../src/app/admin/keys/admin-key-api.js';

describe('the served OpenAPI document under Redocly’s recommended rules', () => {
  let store: TestPetStore;
  beforeAll(async () => {
    store = await startTestPetStore();
  });
  afterAll(async () => {
    await store.close();
  });

  it('has no error and no warning', async () => {
    const url = `${store.baseUrl}/openapi.json`;
    const response = await fetch(url);
    expect(response.status).toBe(200);
    // The answers to an unknown path (404) and to an undocumented method (405) belong to no
    // operation, so nothing in the document refers to them; they are components so that a
    // client finds their schema (and the info description points to them).
    const unrouted = new Set(['#/components/responses/NotFound', '#/components/responses/MethodNotAllowed']);
    const problems = await lintFromString({
      source: await response.text(),
      absoluteRef: url,
      config: await createConfig({ extends: ['recommended'] }, { ignore: { [url]: { 'no-unused-components': unrouted } } }),
    });
    expect(problems.filter((problem) => problem.ignored !== true).map(({ ruleId, severity, message, location }) => `${severity} ${ruleId}: ${message} at ${location[0]?.pointer ?? ''}`)).toEqual([]);
  });

  it('names the package’s license', async () => {
    const document = (await (await fetch(`${store.baseUrl}/openapi.json`)).json()) as { info: { license: { identifier: string } } };
    const { license } = JSON.parse(readFileSync('package.json', 'utf8')) as { license: string };
    expect(document.info.license.identifier).toBe(license);
  });
});

describe('the admin API’s OpenAPI document under Redocly’s recommended rules', () => {
  it('has no error and no warning', async () => {
    const problems = await lintFromString({
      source: JSON.stringify(adminOpenApiDocument(ADMIN_TOKEN_RULE)),
      absoluteRef: 'admin-openapi.json',
      config: await createConfig({ extends: ['recommended'] }),
    });
    expect(problems.map(({ ruleId, severity, message, location }) => `${severity} ${ruleId}: ${message} at ${location[0]?.pointer ?? ''}`)).toEqual([]);
  });
});
