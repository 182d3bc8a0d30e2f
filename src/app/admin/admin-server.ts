import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AdminSource } from './admin-source.js';

export interface AdminServer {
  /** `http://HOST:PORT`, the port actually bound. */
  readonly url: string;
  /** From now on /readyz answers 503: the first step of a shutdown. */
  beginShutdown(): void;
  close(): Promise<void>;
}

export interface AdminServerOptions {
  readonly host: string;
  readonly port: number;
  readonly source: AdminSource;
}

const json = (status: number, body: unknown): [number, Record<string, string>, string] => [
  status,
  { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
  JSON.stringify(body),
];

/**
 * The operators' listener, apart from the API: GET /metrics (Prometheus), /healthz (the process
 * runs), /readyz (the source is ready, and no shutdown has begun). Not rate limited, no key.
 */
export async function startAdminServer(options: AdminServerOptions): Promise<AdminServer> {
  const { source } = options;
  let shuttingDown = false;

  const answer = async (method: string, path: string): Promise<[number, Record<string, string>, string]> => {
    if (method !== 'GET' && method !== 'HEAD') return json(405, { status: 'method_not_allowed' });
    if (path === '/healthz') return json(200, { status: 'ok' });
    if (path === '/readyz') {
      if (shuttingDown) return json(503, { status: 'shutting_down' });
      const { ready, body } = await source.readiness();
      if (shuttingDown) return json(503, { status: 'shutting_down' });
      return json(ready ? 200 : 503, body);
    }
    if (path === '/metrics') {
      return [200, { 'content-type': source.contentType }, await source.metrics()];
    }
    return json(404, { status: 'not_found' });
  };

  const server: Server = createServer((req, res) => {
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    answer(req.method ?? 'GET', query === -1 ? url : url.slice(0, query)).then(
      ([status, headers, body]) => {
        res.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(body) });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      () => {
        res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
        res.end('{"status":"error"}');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}`,
    beginShutdown: () => {
      shuttingDown = true;
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
