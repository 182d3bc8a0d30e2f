import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the scripted server received it. */
export interface ReceivedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** performance.now() when its body had arrived. */
  readonly receivedAt: number;
}

/** What to answer: a status, header fields and a JSON body, or `destroy` to drop the connection unanswered. */
export type ScriptedAnswer = { readonly status: number; readonly headers?: Readonly<Record<string, string>>; readonly json?: unknown } | 'destroy';

export interface ScriptedServer {
  /** `http://127.0.0.1:<port>/v1` */
  readonly baseUrl: string;
  readonly requests: readonly ReceivedRequest[];
  /** performance.now() when each answer had been written, by request index. */
  readonly answeredAt: readonly number[];
  close(): Promise<void>;
}

/** A node:http server on a free port that answers the n-th request (from 0) with `script(request, n)`. */
export async function startScriptedServer(script: (request: ReceivedRequest, index: number) => ScriptedAnswer): Promise<ScriptedServer> {
  const requests: ReceivedRequest[] = [];
  const answeredAt: number[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, receivedAt: performance.now() };
      const index = requests.push(request) - 1;
      const answer = script(request, index);
      if (answer === 'destroy') {
        req.socket.destroy();
        return;
      }
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(answer.json === undefined ? '' : JSON.stringify(answer.json), () => (answeredAt[index] = performance.now()));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    answeredAt,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** An Error body as the pet store writes it. */
export const errorJson = (status: number, code: string, message = code) => ({ status, json: { code, message, status } });
