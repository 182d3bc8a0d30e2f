import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listenerOptions } from '../../adapters/http/http-server.js';
import { answerConnect } from '../../adapters/http/wire/connect-requests.js';
import { answerClientError } from '../../adapters/http/wire/parser-errors.js';
import { CONNECTION_LIMITS } from '../../adapters/http/wire/request-limits.js';
import { answerFailure, type LogError } from '../../adapters/http/wire/failures.js';
import { createRequestContext, sendBody, sendError, sendJson, type RequestContext } from '../../adapters/http/wire/request-context.js';
import type { AdminSource } from './admin-source.js';
import type { AdminKeyApi } from '../../adapters/http/admin-key-handler.js';

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
  /** The key routes (PETSTORE_ADMIN_TOKEN set); absent: their paths answer 404. */
  readonly keyApi?: AdminKeyApi;
  /** Where a failure answered 500 goes, as the API's do: the operator learns of it from the log, the client only its code. */
  readonly logError: LogError;
}

const ALLOW = ['allow', 'GET, HEAD'];
const NO_STORE = ['cache-control', 'no-store'];
const OK = JSON.stringify({ status: 'ok' });
const SHUTTING_DOWN = JSON.stringify({ status: 'shutting_down' });

/**
 * The operators' listener, apart from the API: GET /metrics (Prometheus), /healthz (the process
 * runs), /readyz (the source is ready, and no shutdown has begun), not rate limited, no key; and
 * with a key API, its routes behind the admin token. Held to the API's connection limits, and
 * answered through the API's wire functions: errors in the Error format, and an answer sent
 * before a body was read closes the connection unread.
 */
export async function startAdminServer(options: AdminServerOptions): Promise<AdminServer> {
  const { source } = options;
  let shuttingDown = false;

  const answer = async (ctx: RequestContext, method: string, path: string): Promise<void> => {
    const keyAnswer = options.keyApi?.(ctx, method, path) ?? false;
    if (keyAnswer !== false) return keyAnswer;
    if (path !== '/healthz' && path !== '/readyz' && path !== '/metrics') return sendError(ctx, 'not_found');
    if (method !== 'GET' && method !== 'HEAD') return sendError(ctx, 'method_not_allowed', undefined, ALLOW);
    if (path === '/healthz') return sendJson(ctx, 200, OK, NO_STORE);
    if (path === '/readyz') {
      if (shuttingDown) return sendJson(ctx, 503, SHUTTING_DOWN, NO_STORE);
      const { ready, body } = await source.readiness();
      if (shuttingDown) return sendJson(ctx, 503, SHUTTING_DOWN, NO_STORE);
      return sendJson(ctx, ready ? 200 : 503, JSON.stringify(body), NO_STORE);
    }
    sendBody(ctx, 200, source.contentType, await source.metrics());
  };

  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const ctx = createRequestContext(req, res);
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    answer(ctx, req.method ?? 'GET', query === -1 ? url : url.slice(0, query)).catch((error: unknown) => answerFailure(ctx, error, options.logError));
  };
  const server: Server = createServer(listenerOptions(CONNECTION_LIMITS), handler);
  server.on('clientError', answerClientError);
  server.on('connect', answerConnect(handler));
  // An Expect this listener does not meet is ignored (RFC 9110 allows it), where Node would answer an empty 417.
  server.on('checkExpectation', handler);
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
