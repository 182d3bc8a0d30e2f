import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { AdminKeySchema } from '../../src/adapters/http/admin/admin-key-schemas.js';
import { keyView } from '../../src/adapters/key-view.js';
import type { Plan } from '../../src/domain/quota/plan.js';
import { enterprisePlan, STANDARD_PLANS } from '../../src/domain/quota/plan.js';
import type { ManagedApiKey } from '../../src/ports/api-key-registry.js';
import { startPetStore } from '../../src/app/start-pet-store.js';

const ajv = new Ajv2020.default({ strict: true, allErrors: true });
ajv.addFormat('date-time', { type: 'string', validate: (value: string) => !Number.isNaN(Date.parse(value)) });
const isAdminKey = ajv.compile(AdminKeySchema);

/** A plans file's plan without a minute or a day rule: nothing for perMinute or perDay to name. */
const WRITES: Plan = {
  name: 'writes',
  rules: [
    { name: 'hour', limit: 1_000, windowMs: 3_600_000 },
    { name: 'orders', limit: 50, windowMs: 600_000, match: ['placeOrder', 'createPet'], cost: { placeOrder: 5, default: 1 } },
    { name: 'burst', limit: 20, windowMs: 90_000, mode: 'shadow' },
    { name: 'bucket', limit: 30, windowMs: 1_500, kind: 'burst' },
  ],
};

const keyOf = (plan: Plan): ManagedApiKey => ({ id: 'key_0123456789abcdef', label: '', plan, role: 'customer', createdAt: Date.UTC(2026, 0, 1) });
const NOW = Date.UTC(2026, 0, 2);

describe('the admin view of a key', () => {
  it("keeps a built-in plan's perMinute and perDay, and lists its rules", () => {
    for (const plan of [STANDARD_PLANS.pro, enterprisePlan(100, 5_000)]) {
      const view = keyView(keyOf(plan), NOW);
      expect(view).toMatchObject({ plan: plan.name, perMinute: plan.rules[0]?.limit, perDay: plan.rules[1]?.limit });
      expect(view.rules).toEqual([
        { name: 'minute', limit: plan.rules[0]?.limit, windowMs: 60_000, mode: 'enforce' },
        { name: 'day', limit: plan.rules[1]?.limit, windowMs: 86_400_000, mode: 'enforce' },
      ]);
      expect(isAdminKey(JSON.parse(JSON.stringify(view))), JSON.stringify(isAdminKey.errors)).toBe(true);
    }
  });

  it("lists a file plan's rules with their windows, kinds, modes, matches and costs, and leaves perMinute and perDay out", () => {
    const view = keyView(keyOf(WRITES), NOW);
    expect(view).not.toHaveProperty('perMinute');
    expect(view).not.toHaveProperty('perDay');
    expect(view.rules).toEqual([
      { name: 'hour', limit: 1_000, windowMs: 3_600_000, mode: 'enforce' },
      { name: 'orders', limit: 50, windowMs: 600_000, mode: 'enforce', match: ['placeOrder', 'createPet'], cost: { placeOrder: 5, default: 1 } },
      { name: 'burst', limit: 20, windowMs: 90_000, mode: 'shadow' },
      { name: 'bucket', limit: 30, windowMs: 1_500, kind: 'burst', mode: 'enforce' },
    ]);
    expect(isAdminKey(JSON.parse(JSON.stringify(view))), JSON.stringify(isAdminKey.errors)).toBe(true);
  });

  it('is what the admin API answers for a key of a plans file plan', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'key-view-plans-')), 'plans.json');
    writeFileSync(file, JSON.stringify({ plans: { github: { rules: [{ name: 'minute', limit: 100, window: '1m' }, { name: 'search', limit: 10, window: '1m', match: ['listPets'], cost: 2 }] } } }));
    const token = 'key-view-token-'.repeat(3);
    const server = await startPetStore({ PETSTORE_ENV: 'test', PORT: '0', PETSTORE_ADMIN_PORT: '0', PETSTORE_ADMIN_TOKEN: token, PETSTORE_PLANS: file, PETSTORE_LOG_LEVEL: 'silent' });
    try {
      const answer = await fetch(`${server.adminUrl}/keys`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{"plan":"github"}' });
      expect(answer.status).toBe(201);
      const { key } = (await answer.json()) as { key: Record<string, unknown> };
      expect(key).toMatchObject({
        plan: 'github',
        rules: [
          { name: 'minute', limit: 100, windowMs: 60_000, mode: 'enforce' },
          { name: 'search', limit: 10, windowMs: 60_000, mode: 'enforce', match: ['listPets'], cost: 2 },
        ],
      });
      expect(key).not.toHaveProperty('perMinute');
      expect(isAdminKey(key), JSON.stringify(isAdminKey.errors)).toBe(true);
    } finally {
      await server.close(0, 0);
    }
  });
});
