import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorBody, HTTP_ERRORS, type HttpErrorCode } from './http-errors.js';

/** Node's parser errors by code, answered as Node itself would, but with an Error body. */
const CODES: Readonly<Record<string, HttpErrorCode>> = {
  HPE_HEADER_OVERFLOW: 'headers_too_large',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 'payload_too_large',
  ERR_HTTP_REQUEST_TIMEOUT: 'request_timeout',
};

const REASONS: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  413: 'Payload Too Large',
  431: 'Request Header Fields Too Large',
};

/** The whole answer, bytes on the socket: no ServerResponse exists for a request that could not be parsed. */
const rawAnswer = (code: HttpErrorCode): string => {
  const { status } = HTTP_ERRORS[code];
  const body = errorBody(code);
  return (
    `HTTP/1.1 ${status} ${REASONS[status]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`
  );
};

const ANSWERS = new Map<HttpErrorCode, string>(
  (['invalid_request', 'request_timeout', 'payload_too_large', 'headers_too_large'] as const).map((code) => [code, rawAnswer(code)]),
);

/** The response Node assigns to a socket while one is in flight (the field its own default handler reads). */
const inFlight = (socket: Duplex): ServerResponse | null | undefined => (socket as { _httpMessage?: ServerResponse | null })._httpMessage;

/** Sockets whose refused request waits for the answers of the requests before it; Node reports the error again on every later read. */
const waiting = new WeakSet<Duplex>();

/**
 * The server's `clientError` listener: a request Node's parser refused (malformed, headers too
 * large, too slow) is answered in the Error format with `Connection: close`. Requests pipelined
 * before it on the connection are answered first, in order (RFC 9112 §9.3.2): the error answer
 * waits until the last of their responses has finished, as raw bytes would corrupt one in flight.
 * A request whose own body was refused is answered at once, unless its answer has begun.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  if (waiting.has(socket)) return;
  const response = inFlight(socket);
  if (response !== null && response !== undefined && response.req.complete) {
    waiting.add(socket);
    // By then Node has handed the socket to the next queued response, if any: wait for that one too.
    response.once('finish', () => {
      waiting.delete(socket);
      answerClientError(error, socket);
    });
  } else if (response?.headersSent === true) {
    // The refused bytes are this request's own body, and its answer has begun.
    socket.destroy();
  } else {
    // Destroyed once written: the rest of what the client sends is never read.
    socket.end(ANSWERS.get(CODES[error.code ?? ''] ?? 'invalid_request'), () => socket.destroy());
  }
}
