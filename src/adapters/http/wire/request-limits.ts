/** The largest request body read; a larger one is a 413 and closes the connection. */
export const MAX_BODY_BYTES = 16 * 1024;

/** How long a connection may take over a request's headers, over the whole request, and idle between requests: every listener of the service. */
export const CONNECTION_LIMITS = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000 } as const;
