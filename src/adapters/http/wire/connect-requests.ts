import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/**
 * The server's `connect` listener. Node hands a CONNECT request over as a bare socket, its
 * parser gone, and closes it unanswered when nothing listens. This server tunnels nothing: the
 * request gets a response of its own and goes through `handler` like any method (405 with
 * `Allow` at a known path, 404 elsewhere, counted against the caller's quota), then the
 * connection closes; whatever the client sent after the request is never read.
 */
export const answerConnect =
  (handler: (req: IncomingMessage, res: ServerResponse) => void) =>
  (req: IncomingMessage, socket: Duplex): void => {
    // Node took its own error listener off the socket with the parser: a reset would otherwise be thrown.
    socket.on('error', () => socket.destroy());
    const res = new ServerResponse(req);
    // Sends Connection: close.
    res.shouldKeepAlive = false;
    res.assignSocket(socket as Socket);
    res.on('finish', () => (socket as Socket).destroySoon());
    handler(req, res);
  };
