/** The largest request body read; a larger one is a 413 and closes the connection. */
export const MAX_BODY_BYTES = 16 * 1024;
