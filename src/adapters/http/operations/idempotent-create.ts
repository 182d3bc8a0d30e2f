import { createHash } from 'node:crypto';
import type { DomainError } from '../../../domain/errors.js';
import { runIdempotently } from '../../../domain/idempotency/idempotent.js';
import { RATE_LIMIT_FIELD_NAMES } from '../../../domain/quota/rate-limit-fields.js';
import type { Result } from '../../../domain/result.js';
import type { IdempotencyClaim, IdempotentResult } from '../../../ports/idempotency-store.js';
import { sendDomainError } from '../wire/failures.js';
import { isIdempotencyKey } from '../wire/idempotency-key.js';
import type { JsonRequest } from '../wire/json-request.js';
import type { OperationServices } from '../contract/operation.js';
import { sendError, type RequestContext } from '../wire/request-context.js';
import type { CallScope } from '../../../ports/tracer.js';

const REPLAYED = ['idempotent-replayed', 'true'];
const RETRY_AFTER = RATE_LIMIT_FIELD_NAMES.retryAfter.toLowerCase();

export interface IdempotentCreation<T, Input> {
  readonly operationId: string;
  /** The domain's reading of the body: the parser the declared schema is held to. */
  validate(body: unknown): Result<Input, DomainError>;
  /** Creates from the validated body; with a claim, the store writes its record in the same step. */
  create(input: Input, claim: IdempotencyClaim | undefined, scope: CallScope | undefined): Promise<Result<T, DomainError>>;
  /** What a record replays, when it is one of this operation's. */
  replayOf(result: IdempotentResult): T | undefined;
  /** Answers 201 with what was created; `extra` marks a replay. */
  send(ctx: RequestContext, created: T, extra?: readonly string[]): void;
}

/**
 * A creating POST under an optional Idempotency-Key, scoped to the caller's API key: a repeat
 * with the same body replays the first 201 with `Idempotent-Replayed: true` and stores
 * nothing; another body is a 422; a repeat while the first runs (or before its failure is known
 * to have stored nothing) is a 409 whose Retry-After says when its fate is known.
 */
export async function createIdempotently<T, Input>(
  ctx: RequestContext,
  services: OperationServices,
  body: JsonRequest,
  creation: IdempotentCreation<T, Input>,
): Promise<void> {
  // Validated under the claim, as before: a key reused with another (even invalid) body stays a 422.
  const create = (claim?: IdempotencyClaim): Promise<Result<T, DomainError>> => {
    const input = creation.validate(body.value);
    return input.ok ? creation.create(input.value, claim, ctx.span) : Promise.resolve(input);
  };
  const key = ctx.req.headers['idempotency-key'];
  if (key === undefined) return answer(ctx, creation, await create());
  if (!isIdempotencyKey(key)) {
    return sendError(ctx, 'invalid_request', 'Idempotency-Key must be 1 to 255 visible ASCII characters, sent once.');
  }
  const claim: IdempotencyClaim = {
    scope: ctx.caller?.id ?? '',
    key,
    fingerprint: createHash('sha256').update(`${creation.operationId}\n`).update(body.bytes).digest('hex'),
  };
  const outcome = await runIdempotently(services.idempotency, claim, create, ctx.span);
  switch (outcome.kind) {
    case 'ran':
      return answer(ctx, creation, outcome.result);
    case 'in_flight':
      // Whole seconds rounded down: at least 1, and never past the mark's end (IDEMPOTENCY_MARK_RESOLUTION_MS).
      return sendError(ctx, 'idempotency_conflict', undefined, [RETRY_AFTER, Math.floor(outcome.leftMs / 1000)]);
    case 'reused':
      return sendError(ctx, 'idempotency_key_reused');
    case 'replay': {
      const replayed = creation.replayOf(outcome.result);
      // The fingerprint names the operation, so a record of another one cannot match it.
      if (replayed === undefined) return sendError(ctx, 'idempotency_key_reused');
      ctx.replayed = true;
      return creation.send(ctx, replayed, REPLAYED);
    }
  }
}

function answer<T>(ctx: RequestContext, creation: IdempotentCreation<T, unknown>, result: Result<T, DomainError>): void {
  if (!result.ok) return sendDomainError(ctx, result.error);
  creation.send(ctx, result.value);
}
