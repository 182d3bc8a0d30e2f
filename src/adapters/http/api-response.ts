import { ServerResponse, type IncomingMessage } from 'node:http';
import { errorBody, HTTP_ERRORS, type HttpErrorCode } from './http-errors.js';

/** Header names and values, alternating: what `writeHead` takes without building an object. */
export type HeaderList = (string | number)[];

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The server's response class: it carries the headers decided before routing (the rate-limit
 * fields) to whichever handler answers, including find-my-way's default and bad-URL routes,
 * which receive no per-request context.
 */
export class ApiResponse extends ServerResponse<IncomingMessage> {
  readonly headerList: HeaderList = [];

  sendJson(status: number, body: string, extra?: readonly (string | number)[]): void {
    const headers = this.headerList;
    if (extra !== undefined) for (let i = 0; i < extra.length; i++) headers.push(extra[i]!);
    headers.push('content-type', JSON_TYPE, 'content-length', Buffer.byteLength(body));
    this.writeHead(status, headers);
    this.end(body);
  }

  sendError(code: HttpErrorCode, message?: string, extra?: readonly (string | number)[]): void {
    this.sendJson(HTTP_ERRORS[code].status, errorBody(code, message), extra);
  }
}
