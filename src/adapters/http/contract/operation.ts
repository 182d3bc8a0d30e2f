import type { TSchema } from 'typebox';
import type { OrderService } from '../../../domain/orders/order-service.js';
import type { PetCatalog } from '../../../domain/pets/pet-catalog.js';
import type { IdempotencyStore } from '../../../ports/idempotency-store.js';
import type { HttpErrorCode } from '../wire/http-errors.js';
import type { HeaderComponentName } from './openapi-components.js';
import type { RequestContext } from '../wire/request-context.js';

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

/** What the handlers use: the use cases, and what the server builds at start. */
export interface OperationServices {
  readonly catalog: PetCatalog;
  readonly orders: OrderService;
  readonly idempotency: IdempotencyStore;
  /** The served OpenAPI document, serialised once. */
  readonly openApiJson: string;
  /** Where clients reach the operations (`/v1`, `/petstore/v1`): every link written starts with it. */
  readonly basePath: string;
}

export type OperationHandler = (ctx: RequestContext, services: OperationServices) => void | Promise<void>;

/** What a read ahead resolves to: the answer, sent once the request is admitted. */
export type ReadAnswer = (ctx: RequestContext) => void;

/**
 * One operation of the API, declared once: the router, the allowed query names, the 405 Allow
 * lists and the OpenAPI document's `paths` are all derived from these declarations at start.
 */
export interface Operation {
  readonly operationId: string;
  readonly method: OperationMethod;
  /** OpenAPI template under the base path: `/pets/{petId}`. */
  readonly path: string;
  /** `apiKey`: a valid key is required (401 otherwise); `public`: limited per client address. */
  readonly auth: 'apiKey' | 'public';
  readonly tags?: readonly string[];
  readonly summary: string;
  readonly description?: string;
  /** Every answer of a deprecated operation carries Deprecation, Sunset and its successor's link. */
  readonly deprecation?: { readonly sunsetAt: Date; readonly successor: string };
  readonly params?: Readonly<Record<string, ParameterDeclaration>>;
  readonly query?: Readonly<Record<string, ParameterDeclaration>>;
  readonly body?: { readonly description: string; readonly schema: TSchema };
  /** Takes an optional Idempotency-Key: a repeat replays the first 201 instead of creating twice. */
  readonly idempotent?: true;
  readonly responses: Readonly<Record<number, SuccessResponse | ErrorResponse>>;
  readonly handler: OperationHandler;
  /**
   * The handler's read, which the pipeline may start beside the quota decision when that
   * decision waits on a remote store, so both travel to it together (one round trip, not two).
   * It must change nothing: a request refused, or its query found wrong, drops what it read.
   */
  readonly readAhead?: (query: Readonly<Record<string, unknown>>, services: OperationServices) => Promise<ReadAnswer>;
}

export const isErrorResponse = (response: SuccessResponse | ErrorResponse): response is ErrorResponse => 'errors' in response;
