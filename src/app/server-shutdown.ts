import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Server as NetServer } from 'node:net';
import type { PetStoreHttpServer } from '../adapters/http/http-server.js';

/** A connection with no request running and no byte received for this long is closed: nothing is arriving on it. */
const QUIET_MS = 250;

/** How many connections the kernel holds completed for the listener at most: the backlog net.Server asks for. */
const LISTEN_BACKLOG = 511;

const nextTurn = (): Promise<unknown> => new Promise((resolve) => setImmediate(resolve));

/**
 * Takes the connections the kernel has already completed on the listener, which closing it
 * would reset. libuv accepts one connection per turn of the event loop (a burst of 60 queued
 * needs 60 turns), so turns go by until one accepts nothing: the queue is empty. Under a flood
 * that never happens, and it stops once a full backlog more has been accepted (every connection
 * that was queued when it began, the queue being first in, first out) or at `until`.
 */
async function acceptQueued(accepted: () => number, until: number): Promise<void> {
  const began = accepted();
  // Into the next turn's check phase, so that each wait below spans one whole poll phase.
  await nextTurn();
  for (;;) {
    const before = accepted();
    await nextTurn();
    if (accepted() === before || accepted() - began >= LISTEN_BACKLOG || Date.now() >= until) return;
  }
}
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
  let accepted = 0;
  server.on('connection', (socket: Socket) => {
    accepted++;
    connections.set(socket, { latest: undefined, seenFinished: undefined, bytesRead: 0, quietSince: Date.now() });
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

  /*
   * Keeps serving for `drainMs`; then stops accepting at once, whatever keeps arriving: only the
   * connections the kernel has already completed are taken first (acceptQueued: closing the
   * listener would reset them). A wait for a quiet moment instead never ended under a client
   * connecting every 110 ms. Every accepted connection then finishes: each
   * answer from then on says `Connection: close`, and a connection is closed only once it has no
   * request running and has received nothing for QUIET_MS. What is left `graceMs` after the
   * drain is cut. Resolves when the last connection is closed: true if any were cut.
   */
  return async (drainMs, graceMs, stoppedAccepting) => {
    if (drainMs > 0) await new Promise((resolve) => setTimeout(resolve, drainMs));
    closing = true;
    const graceEnds = Date.now() + graceMs;
    await acceptQueued(() => accepted, graceEnds);
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
