import { LIMITED, SPREAD_KEY_COUNT, UNLIMITED, spreadKey } from './keys.js';
import type { Load, LoadStep, RepeatedLoad } from './load.js';
import type { ServerName } from './servers.js';

export type ScenarioId = 'list' | 'limited' | 'create' | 'spread' | 'order';

export interface Scenario {
  readonly id: ScenarioId;
  readonly title: string;
  /** What a correct server answers, so a reader can tell a 429 path from a broken run. */
  readonly expected: string;
  /** Every answer is a refusal (non-2xx) by design: the 429 path. Elsewhere every answer is a 2xx. */
  readonly refused?: true;
  /** Said under the scenario's table, e.g. why a server is not measured in it. */
  readonly note?: string;
  /** The servers it is measured on, when not every one: a reference that cannot do what it asks would mislead. */
  readonly servers?: readonly ServerName[];
  /** Run once per server before the rounds: seeds pets, spends a quota; answers the load for that server. */
  prepare(baseUrl: string, server: ServerName): Promise<Load>;
  /**
   * Run after every load (warm-up or measurement) and outside what is measured: puts back what
   * the load left half done when autocannon stopped its connections, so the next load starts
   * from the same state.
   */
  settle?(baseUrl: string, server: ServerName): Promise<void>;
}

const SEEDED_PETS = 100;
const bearer = (key: string): string => `Bearer ${key}`;
const json = { 'content-type': 'application/json' };
const unlimited = { authorization: bearer(UNLIMITED.key) };
/** Each request of seeding and settling `order`: a server that hangs stops the bench instead of holding it. */
const REQUEST_TIMEOUT_MS = 5_000;
const SETTLE_ATTEMPTS = 20;
const SETTLE_PAUSE_MS = 50;
const newPet = JSON.stringify({ name: 'Rex', categoryId: 7, status: 'available' });

const seedPets = async (baseUrl: string): Promise<void> => {
  for (let i = 0; i < SEEDED_PETS; i++) {
    const response = await fetch(`${baseUrl}/pets`, {
      method: 'POST',
      headers: { ...json, authorization: bearer(UNLIMITED.key) },
      body: JSON.stringify({ name: `Pet ${i}`, categoryId: 1 + (i % 5) }),
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

/** Every scenario but `order` sends one fixed load to every server, whatever was seeded. */
const fixed =
  (load: RepeatedLoad, seed: (baseUrl: string) => Promise<void> = async () => {}) =>
  async (baseUrl: string): Promise<Load> => {
    await seed(baseUrl);
    return load;
  };

/** The `id` of a JSON object, when it has a numeric one. */
const idOf = (body: string): number | undefined => {
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === 'object' && parsed !== null && 'id' in parsed && typeof parsed.id === 'number' ? parsed.id : undefined;
  } catch {
    return undefined;
  }
};

/** One `available` pet per connection, created with the unlimited key; their ids, in the order of the connections. */
const seedOwnPets = async (baseUrl: string, count: number): Promise<number[]> => {
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${baseUrl}/pets`, {
      method: 'POST',
      headers: { ...json, ...unlimited },
      body: JSON.stringify({ name: `Ordered ${i}`, categoryId: 1, status: 'available' }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const id = idOf(await response.text());
    if (response.status !== 201 || id === undefined) throw new Error(`seeding ${baseUrl}: POST /pets answered ${response.status} without a pet id`);
    ids.push(id);
  }
  return ids;
};

/**
 * What the DELETE of a cycle needs from the answer to its POST: the order's id after a 2xx.
 * A refusal (409 pet_unavailable, say) captures nothing, so the connection places its order
 * again instead of cancelling nothing. The ceiling's `{"ok":true}` names no order: its DELETE
 * names order 0, which it does not read either, so it gets the same requests as the service.
 */
const placedOrder = (status: number, body: string): string | undefined =>
  status >= 200 && status < 300 ? String(idOf(body) ?? 0) : undefined;

/** Connection i orders pet `petIds[i]`, then cancels the order it got, which makes the pet available again; and so on. */
const orderLoad = (petIds: readonly number[]): Load => ({
  stepsOf: (connection): LoadStep[] => {
    const petId = petIds[connection];
    if (petId === undefined) throw new Error(`no pet for connection ${connection}`);
    return [
      { method: 'POST', path: '/store/orders', headers: { ...json, ...unlimited }, body: JSON.stringify({ petId }), capture: placedOrder },
      { method: 'DELETE', path: (orderId) => `/store/orders/${orderId}`, headers: unlimited },
    ];
  },
});

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const getArray = async (url: string): Promise<readonly unknown[]> => {
  const response = await fetch(url, { headers: unlimited, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  const body: unknown = await response.json().catch(() => undefined);
  if (response.status !== 200 || !Array.isArray(body)) throw new Error(`GET ${url} answered ${response.status}, not a JSON array`);
  return body;
};

/**
 * When autocannon stops, a connection may have placed its order and not cancelled it yet (or
 * its POST was on the wire, answered to no one). Cancels every order still `placed` until no
 * pet is `pending`, so the next load finds every pet available. The pause first lets the
 * server finish the requests it had read when the connections closed. Bounded: 20 attempts.
 */
const cancelPlacedOrders = async (baseUrl: string, server: ServerName): Promise<void> => {
  if (server === 'ceiling') return; // keeps nothing
  for (let attempt = 1; attempt <= SETTLE_ATTEMPTS; attempt++) {
    await pause(SETTLE_PAUSE_MS);
    for (const order of await getArray(`${baseUrl}/store/orders?status=placed&limit=100`)) {
      const orderId = typeof order === 'object' && order !== null && 'id' in order ? String(order.id) : '?';
      const response = await fetch(`${baseUrl}/store/orders/${orderId}`, {
        method: 'DELETE',
        headers: unlimited,
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`DELETE /store/orders/${orderId} answered ${response.status}`);
    }
    if ((await getArray(`${baseUrl}/pets?status=pending&limit=1`)).length === 0) return;
  }
  console.warn(`  ${server}: pets still pending after ${SETTLE_ATTEMPTS} attempts to cancel the open orders; the next load will meet 409s`);
};

export const scenarios = (connections: number): Scenario[] => [
  {
    id: 'list',
    title: 'GET /v1/pets?limit=20, one key never limited',
    expected: 'all 200',
    prepare: fixed({ method: 'GET', path: '/pets?limit=20', headers: unlimited }, seedPets),
  },
  {
    id: 'limited',
    title: 'GET /v1/pets?limit=20, one key over its limit (the 429 path)',
    expected: '~100% non-2xx (429) by design; this service has banned the key by then (429 api_key_banned)',
    refused: true,
    prepare: fixed({ method: 'GET', path: '/pets?limit=20', headers: { authorization: bearer(LIMITED.key) } }, async (baseUrl) => {
      await seedPets(baseUrl);
      await spendLimitedKey(baseUrl);
    }),
  },
  {
    id: 'create',
    title: 'POST /v1/pets, one key never limited',
    expected: 'all 201',
    prepare: fixed({ method: 'POST', path: '/pets', headers: { ...json, ...unlimited }, body: newPet }),
  },
  {
    id: 'spread',
    title: `GET /v1/pets?limit=20, traffic spread over ${SPREAD_KEY_COUNT.toLocaleString('en-US')} keys`,
    expected: 'all 200',
    prepare: fixed(
      {
        method: 'GET',
        path: '/pets?limit=20',
        headers: {},
        authorizationsOf: spreadAuthorizations(connections),
      },
      seedPets,
    ),
  },
  {
    id: 'order',
    title: 'Place order: POST /v1/store/orders, then DELETE /v1/store/orders/{id} of that order, each connection its own pet (req/s counts both calls)',
    expected: '201 and 200 in turn, all 2xx (a 409 pet_unavailable would mean a pet was left pending)',
    note:
      'The fastify peer and the hand-written router are not measured here: they have no orders, and their 404s would be no comparison. ' +
      'The ceiling gets the same POST and DELETE in turn and answers both without reading them.',
    servers: ['ceiling', 'memory', 'redis', 'postgres'],
    // The ceiling keeps nothing: no pets to create, any ids will do.
    prepare: async (baseUrl, server) =>
      orderLoad(server === 'ceiling' ? Array.from({ length: connections }, (_, i) => i + 1) : await seedOwnPets(baseUrl, connections)),
    settle: cancelPlacedOrders,
  },
];
