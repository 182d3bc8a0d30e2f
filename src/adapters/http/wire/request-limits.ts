/** The largest request body read; a larger one is a 413 and closes the connection. */
export const MAX_BODY_BYTES = 16 * 1024;

/** How long a connection may take over a request's headers, over the whole request, and idle between requests: every listener of the service. */
export const CONNECTION_LIMITS = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000 } as const;

/**
 * What the server still reads, and throws away, of a body it answered without reading (401,
 * 404, 405, 413, 415, 429): from the answer on, up to `bytes` of it or for `ms`, then it closes.
 * Closing at once, with the client still sending, made the kernel reset the connection, and a
 * client still writing its body then lost the answer it had been sent (EPIPE, ECONNRESET: 2 of
 * 6 pushes of 50 MB). Reading on for a bounded while lets it read the answer first.
 */
export const REFUSED_BODY_DRAIN = { bytes: 1024 * 1024, ms: 1_000 } as const;
