import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Server as NetServer } from 'node:net';
import type { PetStoreHttpServer } from '../adapters/http/http-server.js';

/** A connection with no request running and no byte received for this long is closed: nothing is arriving on it. */
const QUIET_MS = 250;
const REAP_EVERY_MS = 50;

interface Tracked {
  /** The response to the connection's latest request: answers go out in order, so once it has finished, every earlier one has. */
  latest: ServerResponse | undefined;
  /** `latest` once the reaper saw it finished: its quiet time starts then. */
  seenFinished: ServerResponse | undefined;
  bytesRead: number;
  quietSince: number;
}

/**
 * Follows the server's connections from its start, so a shutdown can tell a connection whose
 * request is still arriving from one that is idle: Node's own `close()` treats a connection
 * whose first request is not parsed yet as idle and destroys it, and the client sees a reset.
 */
export function trackConnections(server: PetStoreHttpServer): (drainMs: number, graceMs: number, stoppedAccepting: () => void) => Promise<boolean> {
  const connections = new Map<Socket, Tracked>();
  let closing = false;
  let lastAcceptedAt = Number.NEGATIVE_INFINITY;
  server.on('connection', (socket: Socket) => {
    lastAcceptedAt = Date.now();
    connections.set(socket, { latest: undefined, seenFinished: undefined, bytesRead: 0, quietSince: lastAcceptedAt });
    socket.once('close', () => connections.delete(socket));
  });
  // Around the server's own listener rather than beside it: with two listeners Node copies the
  // listener array on every request. Before it, so a closing server marks the answer before the
  // handler writes it. Only a field is set per request; the reaper reads it at shutdown.
  const handlers = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const tracked = connections.get(req.socket);
    if (tracked !== undefined) tracked.latest = res;
    if (closing) res.setHeader('connection', 'close');
    for (const handler of handlers) handler(req, res);
  });

  /**
   * Keeps serving for `drainMs`, and then until no connection has come for QUIET_MS (closing the
   * listener resets the connections the kernel completed but Node has not accepted yet); then
   * stops accepting and lets every accepted connection finish: each answer from then on says
   * `Connection: close`, and a connection is closed only once it has no request running and has
   * received nothing for QUIET_MS. What is left `graceMs` after the drain is cut. Resolves when
   * the last connection is closed: true if any were cut.
   */
  return async (drainMs, graceMs, stoppedAccepting) => {
    if (drainMs > 0) await new Promise((resolve) => setTimeout(resolve, drainMs));
    closing = true;
    const graceEnds = Date.now() + graceMs;
    while (Date.now() - lastAcceptedAt < QUIET_MS && Date.now() < graceEnds) {
      await new Promise((resolve) => setTimeout(resolve, REAP_EVERY_MS));
    }
    return new Promise((resolve) => {
      let cut = false;
      const reap = (): void => {
        const now = Date.now();
        for (const [socket, tracked] of connections) {
          // bytesRead counts what reached the socket even while the HTTP parser consumes it directly.
          if (socket.bytesRead !== tracked.bytesRead) {
            tracked.bytesRead = socket.bytesRead;
            tracked.quietSince = now;
            continue;
          }
          const latest = tracked.latest;
          if (latest !== undefined && !latest.writableFinished) continue;
          if (latest !== tracked.seenFinished) {
            tracked.seenFinished = latest;
            tracked.quietSince = now;
          } else if (now - tracked.quietSince >= QUIET_MS) {
            socket.destroy();
          }
        }
      };
      const reaper = setInterval(reap, REAP_EVERY_MS);
      const deadline = setTimeout(
        () => {
          cut = true;
          server.closeAllConnections();
        },
        Math.max(0, graceEnds - Date.now()),
      );
      // net.Server's close stops accepting without http.Server's, which destroys connections whose first request is still arriving.
      NetServer.prototype.close.call(server, () => {
        clearInterval(reaper);
        clearTimeout(deadline);
        resolve(cut);
      });
      stoppedAccepting();
      reap();
    });
  };
}
