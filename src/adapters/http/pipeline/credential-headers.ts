import type { IncomingMessage } from 'node:http';

/**
 * Why the request's Authorization or Host headers cannot be believed, or undefined. Node keeps
 * the first of repeated ones and drops the others, so which key the client meant, or which
 * host, cannot be known; an HTTP/1.1 request must name its host (RFC 9112).
 */
export function credentialHeadersProblem(req: IncomingMessage): string | undefined {
  const rawHeaders = req.rawHeaders;
  let authorization = 0;
  let host = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    // Lengths first: most headers are neither, and comparing lengths allocates nothing.
    if (name.length === 13 && name.toLowerCase() === 'authorization') authorization++;
    else if (name.length === 4 && name.toLowerCase() === 'host') host++;
  }
  if (authorization > 1 || host > 1) return 'Send exactly one Authorization header and one Host header.';
  if (host === 0 && req.httpVersionMajor === 1 && req.httpVersionMinor >= 1) return 'An HTTP/1.1 request must carry a Host header.';
  return undefined;
}
