import { once } from 'node:events';
import { connect, createServer, type Socket } from 'node:net';

type Matcher = (chunk: string) => boolean;

/**
 * A TCP proxy in front of Redis that can hold back the next client chunk that matches (and
 * everything after it on that connection, to keep the order) until its handler lets it
 * through. The client writes each command (or pipeline) at once: small ones arrive as one chunk.
 */
export interface RedisProxy {
  readonly url: string;
  /** On the next matching chunk, calls `onHeld` with the function that lets it (and what queued behind it) through. */
  holdNext(matches: Matcher, onHeld: (release: () => void) => void): void;
  /** Forgets a hold that has not happened. */
  disarm(): void;
  close(): Promise<void>;
}

export async function startRedisProxy(redisUrl: string): Promise<RedisProxy> {
  const target = new URL(redisUrl);
  let trigger: { matches: Matcher; onHeld: (release: () => void) => void } | undefined;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect({ host: target.hostname, port: Number(target.port || 6379) });
    sockets.add(client).add(upstream);
    let queue: Buffer[] | undefined;
    client.on('data', (chunk: Buffer) => {
      if (queue !== undefined) {
        queue.push(chunk);
        return;
      }
      if (trigger !== undefined && trigger.matches(chunk.toString('latin1'))) {
        const { onHeld } = trigger;
        trigger = undefined;
        const waiting: Buffer[] = [chunk];
        queue = waiting;
        onHeld(() => {
          queue = undefined;
          for (const queued of waiting) upstream.write(queued);
        });
        return;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    // A half-close is passed on as one (FIN), so Redis still reads what was sent before it.
    client.on('end', () => upstream.end());
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
  if (typeof address !== 'object' || address === null) throw new Error('proxy has no port');
  return {
    url: `redis://127.0.0.1:${address.port}`,
    holdNext: (matches, onHeld) => {
      trigger = { matches, onHeld };
    },
    disarm: () => {
      trigger = undefined;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
