import { LIMITED, SPREAD_KEY_COUNT, UNLIMITED, spreadKey } from './keys.js';
import type { Load } from './load.js';

export type ScenarioId = 'list' | 'limited' | 'create' | 'spread';

export interface Scenario {
  readonly id: ScenarioId;
  readonly title: string;
  /** What a correct server answers, so a reader can tell a 429 path from a broken run. */
  readonly expected: string;
  readonly load: Load;
  /** Run once per server before the rounds: seeds pets, spends a quota. */
  prepare(baseUrl: string): Promise<void>;
}

const SEEDED_PETS = 100;
const bearer = (key: string): string => `Bearer ${key}`;
const json = { 'content-type': 'application/json' };
const newPet = JSON.stringify({ name: 'Rex', categoryId: 7, status: 'available' });

const seedPets = async (baseUrl: string): Promise<void> => {
  for (let i = 0; i < SEEDED_PETS; i++) {
    const response = await fetch(`${baseUrl}/pets`, {
      method: 'POST',
      headers: { ...json, authorization: bearer(UNLIMITED.key) },
      body: JSON.stringify({ name: `Pet ${i}`, categoryId: 1 + (i % 5), status: ['available', 'pending', 'sold'][i % 3] }),
    });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`seeding ${baseUrl}: POST /pets answered ${response.status}`);
  }
};

/** Twice the limit: past it, this service also bans the key (its 21st refusal is the 20th strike). */
const spendLimitedKey = async (baseUrl: string): Promise<void> => {
  for (let i = 0; i < 2 * LIMITED.perMinute; i++) {
    const response = await fetch(`${baseUrl}/pets?limit=20`, { headers: { authorization: bearer(LIMITED.key) } });
    await response.arrayBuffer();
  }
};

/** Each connection cycles through its own share of the keys, so together they use every key in turn. */
const spreadAuthorizations =
  (connections: number) =>
  (connection: number): string[] => {
    const keys: string[] = [];
    for (let i = connection; i < SPREAD_KEY_COUNT; i += connections) keys.push(bearer(spreadKey(i).key));
    return keys;
  };

export const scenarios = (connections: number): Scenario[] => [
  {
    id: 'list',
    title: 'GET /v1/pets?limit=20, one key never limited',
    expected: 'all 200',
    load: { method: 'GET', path: '/pets?limit=20', headers: { authorization: bearer(UNLIMITED.key) } },
    prepare: seedPets,
  },
  {
    id: 'limited',
    title: 'GET /v1/pets?limit=20, one key over its limit (the 429 path)',
    expected: '~100% non-2xx (429) by design; this service has banned the key by then (429 api_key_banned)',
    load: { method: 'GET', path: '/pets?limit=20', headers: { authorization: bearer(LIMITED.key) } },
    prepare: async (baseUrl) => {
      await seedPets(baseUrl);
      await spendLimitedKey(baseUrl);
    },
  },
  {
    id: 'create',
    title: 'POST /v1/pets, one key never limited',
    expected: 'all 201',
    load: { method: 'POST', path: '/pets', headers: { ...json, authorization: bearer(UNLIMITED.key) }, body: newPet },
    prepare: async () => {},
  },
  {
    id: 'spread',
    title: `GET /v1/pets?limit=20, traffic spread over ${SPREAD_KEY_COUNT.toLocaleString('en-US')} keys`,
    expected: 'all 200',
    load: {
      method: 'GET',
      path: '/pets?limit=20',
      headers: {},
      authorizationsOf: spreadAuthorizations(connections),
    },
    prepare: seedPets,
  },
];
