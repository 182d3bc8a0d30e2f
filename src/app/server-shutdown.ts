import type { Socket } from 'node:net';
import { Server as NetServer } from 'node:net';
import type { PetStoreHttpServer } from '../adapters/http/http-server.js';

/** A connection with no request running and no byte received for this long is closed: nothing is arriving on it. */
const QUIET_MS = 250;
const REAP_EVERY_MS = 50;

interface Tracked {
  running: number;
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
    connections.set(socket, { running: 0, bytesRead: 0, quietSince: lastAcceptedAt });
    socket.once('close', () => connections.delete(socket));
  });
  // First of the request listeners, so a closing server marks the answer before the handler writes it.
  server.prependListener('request', (req, res) => {
    const tracked = connections.get(req.socket);
    if (tracked !== undefined) {
      tracked.running++;
      res.once('close', () => {
        tracked.running--;
        tracked.quietSince = Date.now();
      });
    }
    if (closing) res.setHeader('connection', 'close');
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
          } else if (tracked.running === 0 && now - tracked.quietSince >= QUIET_MS) {
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
