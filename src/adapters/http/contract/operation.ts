import type { OrderService } from '../../../domain/orders/order-service.js';
import type { PetCatalog } from '../../../domain/pets/pet-catalog.js';
import type { IdempotencyStore } from '../../../ports/idempotency-store.js';
import type { RequestContext } from '../wire/request-context.js';
import type { OperationDeclaration } from './operation-declaration.js';
import type { TagName } from './tags.js';
import type { CallScope } from '../../../ports/tracer.js';

export {
  OPERATION_METHODS,
  isErrorResponse,
  type ErrorResponse,
  type OperationDeclaration,
  type OperationMethod,
  type ParameterDeclaration,
  type SuccessResponse,
} from './operation-declaration.js';

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

/** A declaration and its behaviour over the services of its API (the public API's, or the admin API's). */
export interface HandledOperation<Services, Tag extends string = TagName> extends OperationDeclaration<Tag> {
  readonly handler: (ctx: RequestContext, services: Services) => void | Promise<void>;
}

/** What a read ahead resolves to: the answer, sent once the request is admitted. */
export type ReadAnswer = (ctx: RequestContext) => void;

/** One operation of the public API: its declaration and its behaviour. */
export interface Operation extends HandledOperation<OperationServices> {
  /**
   * Reports the caller's quota (`ctx.standing`) and leaves it uncounted: a request with a key is
   * counted against RATE_LIMIT_STATUS_RULE under a subject of its own, never the plan's.
   */
  readonly quotaStatus?: true;
  /**
   * The handler's read, which the pipeline may start beside the quota decision when that
   * decision waits on a remote store, so both travel to it together (one round trip, not two).
   * It must change nothing: a request refused, or its query found wrong, drops what it read.
   */
  readonly readAhead?: (query: Readonly<Record<string, unknown>>, services: OperationServices, scope: CallScope | undefined) => Promise<ReadAnswer>;
}
