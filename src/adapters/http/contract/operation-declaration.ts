import type { TSchema } from 'typebox';
import type { HttpErrorCode } from '../wire/http-errors.js';
import type { HeaderComponentName } from './openapi-components.js';
import type { TagName } from './tags.js';

export const OPERATION_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type OperationMethod = (typeof OPERATION_METHODS)[number];

export interface ParameterDeclaration {
  readonly description: string;
  readonly schema: TSchema;
}

/** A success answer: its body schema and the headers it adds to the rate-limit fields. */
export interface SuccessResponse {
  readonly description: string;
  /** Absent: the answer has no body (a 304). */
  readonly body?: TSchema;
  /** The body's media types; `application/json` unless given. */
  readonly mediaTypes?: readonly [string, ...string[]];
  /** Name in the answer to the shared header component describing it. */
  readonly headers?: Readonly<Record<string, HeaderComponentName>>;
}

/** An error answer of this operation beyond the ones every operation shares (401, 429, 500, 503...). */
export interface ErrorResponse {
  readonly description: string;
  readonly errors: readonly [HttpErrorCode, ...HttpErrorCode[]];
}

/**
 * What the contract states of an operation, without its behaviour: the router, the allowed
 * query names, the 405 Allow lists, the OpenAPI document's `paths` and the client's types are
 * derived from these. Loads no node:http, so the client's types stand alone. `Tag`: the tags of
 * the document the operation is in (the public API's, or the admin API's).
 */
export interface OperationDeclaration<Tag extends string = TagName> {
  readonly operationId: string;
  readonly method: OperationMethod;
  /** OpenAPI template under the base path: `/pets/{petId}`. */
  readonly path: string;
  /**
   * `apiKey`: the bearer credential of its API is required, 401 otherwise (on the public API a
   * valid key, on the admin API the admin token); `public`: limited per client address.
   */
  readonly auth: 'apiKey' | 'public';
  readonly tags?: readonly Tag[];
  readonly summary: string;
  readonly description?: string;
  /** Every answer of a deprecated operation carries Deprecation, Sunset and its successor's link. */
  readonly deprecation?: { readonly sunsetAt: Date; readonly successor: string };
  readonly params?: Readonly<Record<string, ParameterDeclaration>>;
  readonly query?: Readonly<Record<string, ParameterDeclaration>>;
  /**
   * `optional`: a request may leave the body out (the document's requestBody is then not required);
   * `examples`: bodies the docs page's "Try it out" starts from, by name (OpenAPI's Example objects).
   */
  readonly body?: {
    readonly description: string;
    readonly schema: TSchema;
    readonly optional?: true;
    readonly examples?: Readonly<Record<string, { readonly summary: string; readonly value: unknown }>>;
  };
  /** Takes an optional Idempotency-Key: a repeat replays the first 201 instead of creating twice. */
  readonly idempotent?: true;
  readonly responses: Readonly<Record<number, SuccessResponse | ErrorResponse>>;
}

export const isErrorResponse = (response: SuccessResponse | ErrorResponse): response is ErrorResponse => 'errors' in response;
