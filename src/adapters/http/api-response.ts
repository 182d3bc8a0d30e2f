import { ServerResponse, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { errorBody, HTTP_ERRORS, type HttpErrorCode } from './http-errors.js';

/**
 * The server's response class: it carries the headers decided before routing (the rate-limit
 * fields) to whichever handler answers, including find-my-way's default and bad-URL routes,
 * which receive no per-request context.
 */
export class ApiResponse extends ServerResponse<IncomingMessage> {
  pending: OutgoingHttpHeaders = {};

  sendJson(status: number, body: string, extra?: OutgoingHttpHeaders): void {
    const headers = this.pending;
    if (extra !== undefined) Object.assign(headers, extra);
    headers['content-type'] = 'application/json; charset=utf-8';
    headers['content-length'] = Buffer.byteLength(body);
    this.writeHead(status, headers);
    this.end(body);
  }

  sendError(code: HttpErrorCode, message?: string, extra?: OutgoingHttpHeaders): void {
    this.sendJson(HTTP_ERRORS[code].status, errorBody(code, message), extra);
  }
}
