/**
 * The practical ceiling: plain node:http answering every request, whatever its method, path
 * or body, with the same tiny JSON. Nothing a real API does costs less.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const body = Buffer.from('{"ok":true}');
const headers = ['content-type', 'application/json', 'content-length', String(body.length)];

const server = createServer((_req, res) => {
  res.writeHead(200, headers);
  res.end(body);
});

server.listen(Number(process.env['PORT'] ?? 0), '127.0.0.1', () => {
  console.error(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
