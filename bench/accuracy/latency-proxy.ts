/**
 * A TCP proxy in front of Redis that holds each chunk `delayMs` on its way to Redis, in order:
 * every command (or pipeline) pays `delayMs` more per round trip, as over a slower network.
 */
import { once } from 'node:events';
import { connect, createServer, type Socket } from 'node:net';

export interface LatencyProxy {
  readonly url: string;
  close(): Promise<void>;
}

export const startLatencyProxy = async (redisUrl: string, delayMs: number): Promise<LatencyProxy> => {
  const target = new URL(redisUrl);
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect({ host: target.hostname, port: Number(target.port || 6379) });
    sockets.add(client).add(upstream);
    // One delay for every chunk, so timers of equal length keep their order.
    client.on('data', (chunk: Buffer) => setTimeout(() => upstream.write(chunk), delayMs));
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    client.on('end', () => setTimeout(() => upstream.end(), delayMs));
    upstream.on('end', () => client.end());
    for (const socket of [client, upstream]) {
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
      socket.on('close', () => sockets.delete(socket));
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('the proxy has no port');
  return {
    url: `redis://127.0.0.1:${address.port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
