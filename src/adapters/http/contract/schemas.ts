import Type, { type Static, type TSchema } from 'typebox';
import { MAX_NAME_LENGTH, VISIBLE_CHARACTER_CLASS } from '../../../domain/pets/new-pet-validation.js';
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from '../../../domain/paging/page-limits.js';
import { ORDER_STATUSES, type OrderStatus } from '../../../domain/orders/order.js';
import { STAFF_STATUSES, type StaffStatus } from '../../../domain/orders/order-status-machine.js';
import { MAX_ID, PET_STATUSES, type PetStatus } from '../../../domain/pets/pet.js';
import { ANSWER_CLASS_PATTERN } from '../../../domain/quota/rule-refunds.js';
import { RULE_KINDS, RULE_MODES, type RuleKind, type RuleMode } from '../../../domain/quota/quota-rule.js';
import { HTTP_ERRORS, type HttpErrorCode } from '../wire/http-errors.js';

/*
 * The wire shapes of the API, built from the domain's own constants with TypeBox: each schema
 * is a plain JSON Schema object (what the OpenAPI document serves) and, through `Static`, the
 * TypeScript type of what it describes, so the document and the types cannot disagree.
 * Patterns are ECMA-262 with the `u` flag, as JSON Schema 2020-12 reads them.
 */

// What String.prototype.trim removes is exactly ECMA-262's \s; Cc are the control characters,
// and a lone surrogate (no UTF-8 encoding) is the only code point in D800-DFFF under the u flag.
const NAME_CHAR = '[^\\u0000-\\u001F\\u007F-\\u009F\\uD800-\\uDFFF]';
const NAME_EDGE = '[^\\s\\u0000-\\u001F\\u007F-\\u009F\\uD800-\\uDFFF]';
const TRIMMED_NAME = `${NAME_EDGE}(?:${NAME_CHAR}{0,${MAX_NAME_LENGTH - 2}}${NAME_EDGE})?`;

export const idSchema = (description: string) =>
  Type.Integer({ format: 'int64', minimum: 1, maximum: MAX_ID, description });

export const PetStatusSchema = Type.Unsafe<PetStatus>({
  type: 'string',
  enum: [...PET_STATUSES],
  description: 'Availability of an animal.',
});

export const NewPetSchema = Type.Object(
  {
    name: Type.String({
      // The lookahead: at least one visible character anywhere (white space is not one, so trimming changes nothing).
      pattern: `^(?=[\\s\\S]*${VISIBLE_CHARACTER_CLASS})\\s*${TRIMMED_NAME}\\s*$`,
      description: `Trimmed, then 1 to ${MAX_NAME_LENGTH} characters (code points) without control characters, at least one of them visible (not white space, nor one Unicode renders invisibly, such as a zero-width space); stored trimmed.`,
    }),
    categoryId: idSchema('Identifier of the category the animal belongs to.'),
    // Said in words, not as `default`: generators such as openapi-typescript make a property with a default required.
    status: Type.Optional(
      Type.Unsafe<PetStatus>({ ...PetStatusSchema, description: `Availability of the animal; \`${PET_STATUSES[0]}\` when absent.` }),
    ),
  },
  {
    additionalProperties: false,
    description: 'A new animal. Any field not listed here, `id` included, is a 400.',
  },
);
export type NewPetBody = Static<typeof NewPetSchema>;

export const PetUpdateSchema = Type.Object(
  { status: PetStatusSchema },
  { additionalProperties: false, description: "The status staff give an animal." },
);

export const PetSchema = Type.Object(
  {
    id: { ...idSchema('Assigned by the service on creation.'), readOnly: true },
    name: Type.String({ pattern: `^${TRIMMED_NAME}$` }),
    categoryId: idSchema('Identifier of the category the animal belongs to.'),
    status: PetStatusSchema,
  },
  { additionalProperties: false },
);
export type PetBody = Static<typeof PetSchema>;

export const PetsSchema = Type.Array(PetSchema, { maxItems: MAX_PAGE_LIMIT });

export const ErrorSchema = Type.Object(
  {
    code: Type.Unsafe<HttpErrorCode>({
      type: 'string',
      enum: Object.keys(HTTP_ERRORS),
      description: 'Machine-readable error code.',
    }),
    message: Type.String({ description: 'Human-readable description; a 400 names the offending field.' }),
    status: Type.Integer({ description: 'The HTTP status code of the response.' }),
  },
  { additionalProperties: false },
);
export type ErrorBody = Static<typeof ErrorSchema>;

export const OrderStatusSchema = Type.Unsafe<OrderStatus>({
  type: 'string',
  enum: [...ORDER_STATUSES],
  description: 'placed -> approved -> delivered; placed or approved -> cancelled.',
});

export const NewOrderSchema = Type.Object(
  { petId: idSchema('The pet to order: it must be `available`, and becomes `pending`.') },
  { additionalProperties: false },
);

export const OrderUpdateSchema = Type.Object(
  { status: Type.Unsafe<StaffStatus>({ type: 'string', enum: [...STAFF_STATUSES] }) },
  { additionalProperties: false },
);

export const OrderSchema = Type.Object(
  {
    id: { ...idSchema('Assigned by the service when the order is placed.'), readOnly: true },
    petId: idSchema('The ordered pet.'),
    status: OrderStatusSchema,
    placedAt: Type.String({ format: 'date-time', description: 'RFC 3339 UTC with milliseconds.' }),
  },
  { additionalProperties: false },
);
export type OrderBody = Static<typeof OrderSchema>;

export const OrdersSchema = Type.Array(OrderSchema, { maxItems: MAX_PAGE_LIMIT });

export const InventorySchema = Type.Object(
  Object.fromEntries(PET_STATUSES.map((status) => [status, Type.Integer({ minimum: 0 })])) as Record<PetStatus, ReturnType<typeof Type.Integer>>,
  { additionalProperties: false, description: 'How many pets have each status.' },
);

/** What a plan's rule counts and how (ruleTermsOf), here and in the admin API's keys. */
export const RuleModeSchema = Type.Unsafe<RuleMode>({
  type: 'string',
  enum: [...RULE_MODES],
  description: 'enforce: refuses a request it has no room for; shadow: counts and reports, never refuses (not in RateLimit-Policy). Sent for every rule.',
});
export const RuleKindSchema = Type.Unsafe<RuleKind>({
  type: 'string',
  enum: [...RULE_KINDS],
  description:
    'burst: a token bucket (GCRA) of `limit` units that refills completely in the window, one unit every window / limit, so a full bucket admits `limit` at once. Absent: window, a sliding window.',
});
export const RuleMatchSchema = Type.Array(Type.String(), { minItems: 1, description: 'The operationIds the rule counts; absent: every request.' });
export const RuleCostSchema = Type.Union([Type.Integer({ minimum: 1 }), Type.Record(Type.String(), Type.Integer({ minimum: 1 }))], {
  description: 'What a matched request spends: one number, or one per operationId with `default` for the others (1 when absent). Absent: 1.',
});

export const RuleRefundSchema = Type.Array(Type.String({ pattern: ANSWER_CLASS_PATTERN }), {
  minItems: 1,
  description: 'The answers whose requests get their cost under the rule back: answer classes (`5xx`) or statuses (`404`). Absent: none.',
});

export const RateLimitRuleSchema = Type.Object(
  {
    name: Type.String({ description: 'As in RateLimit-Policy: `minute`, `day`.' }),
    limit: Type.Integer({ minimum: 1, description: 'Units (requests, or their costs) admitted in any rolling window of the rule; a burst rule’s bucket size.' }),
    windowSeconds: Type.Integer({ minimum: 1, description: 'The rolling window, or a burst rule’s time to refill completely, in whole seconds rounded up, as RateLimit-Policy’s `w`.' }),
    remaining: Type.Integer({ minimum: 0, description: 'Requests the rule still admits now (0 during a ban).' }),
    reset: Type.Integer({
      minimum: 0,
      description: 'Unix time in whole seconds, rounded up, at which `remaining` next goes up (the current time when the rule counts nothing), as `X-RateLimit-Reset`.',
    }),
    // Optional so that a client of this document still reads a server from before plans had rules.
    kind: Type.Optional(RuleKindSchema),
    mode: Type.Optional(RuleModeSchema),
    match: Type.Optional(RuleMatchSchema),
    cost: Type.Optional(RuleCostSchema),
    refund: Type.Optional(RuleRefundSchema),
  },
  { additionalProperties: false },
);

export const ConcurrencyCapSchema = Type.Object(
  {
    name: Type.String({ description: 'The cap’s name in the plan.' }),
    limit: Type.Integer({ minimum: 1, description: 'The most requests of the key in flight at once, on every instance together.' }),
    inFlight: Type.Integer({ minimum: 0, description: 'The key’s requests holding a slot of the cap now, on every instance.' }),
    match: Type.Optional(RuleMatchSchema),
  },
  { additionalProperties: false, description: 'The plan’s concurrency cap: a request past it is answered 429 `concurrency_limited`.' },
);

export const CreditsSchema = Type.Object(
  {
    name: Type.String({ description: 'The credits’ name in the plan.' }),
    balance: Type.Integer({ minimum: 0, description: 'Credits the key holds now; a request costing more is answered 402 `credits_exhausted`.' }),
    credits: Type.Integer({ minimum: 1, description: 'What each refill brings the balance up to (a topped-up balance above it is kept).' }),
    refill: Type.Union([Type.Literal('month'), Type.Literal('period'), Type.Literal('never')], {
      description: '`month`: on the first of each calendar month, 00:00 UTC; `period`: every `periodSeconds`, counted from the Unix epoch; `never`: only when topped up.',
    }),
    periodSeconds: Type.Optional(Type.Integer({ minimum: 1, description: 'The refill period, when `refill` is `period`.' })),
    refillAt: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'Unix time in whole seconds of the next refill; null when the credits never refill.' }),
    match: Type.Optional(RuleMatchSchema),
    cost: Type.Optional(RuleCostSchema),
    refund: Type.Optional(RuleRefundSchema),
  },
  { additionalProperties: false, description: 'The plan’s credits: a balance the key’s requests spend by their cost, refilled on a schedule.' },
);

export const RateLimitStatusSchema = Type.Object(
  {
    plan: Type.String({ description: "The key's plan: free, pro, business, enterprise or one of the server's plans file." }),
    rules: Type.Array(RateLimitRuleSchema, { minItems: 1, description: "The plan's rules, in the order of RateLimit-Policy." }),
    bannedUntil: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description:
        "Banned: Unix time in whole seconds, rounded up, from which the key is admitted again (the ban's end, or later when a rule is still spent then), where the Retry-After of the ban's 429s points. Not banned: null.",
    }),
    concurrency: Type.Optional(ConcurrencyCapSchema),
    credits: Type.Optional(CreditsSchema),
  },
  { additionalProperties: false, description: "The caller's quota as it stands, read without counting." },
);
export type RateLimitStatusBody = Static<typeof RateLimitStatusSchema>;

export const PageLimitSchema = Type.Integer({ minimum: 1, maximum: MAX_PAGE_LIMIT, default: DEFAULT_PAGE_LIMIT });

/** Schemas the document names under components/schemas and references wherever they appear. */
export const NAMED_SCHEMAS: Readonly<Record<string, TSchema>> = {
  PetStatus: PetStatusSchema,
  NewPet: NewPetSchema,
  PetUpdate: PetUpdateSchema,
  Pet: PetSchema,
  Pets: PetsSchema,
  OrderStatus: OrderStatusSchema,
  NewOrder: NewOrderSchema,
  OrderUpdate: OrderUpdateSchema,
  Order: OrderSchema,
  Orders: OrdersSchema,
  Inventory: InventorySchema,
  RateLimitRule: RateLimitRuleSchema,
  RateLimitStatus: RateLimitStatusSchema,
  ConcurrencyCap: ConcurrencyCapSchema,
  Credits: CreditsSchema,
  Error: ErrorSchema,
};
