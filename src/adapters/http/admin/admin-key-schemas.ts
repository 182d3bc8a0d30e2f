import Type, { type TSchema } from 'typebox';
import { ErrorSchema, RuleCostSchema, RuleKindSchema, RuleMatchSchema, RuleModeSchema, RuleRefundSchema } from '../contract/schemas.js';
import { ROLES, type Role } from '../../../domain/access/caller.js';
import { MAX_RULE_LIMIT } from '../../../domain/quota/decidable-policy.js';
import { RULE_MODES, type RuleMode } from '../../../domain/quota/quota-rule.js';
import { KEY_STATES, type KeyState } from '../../../ports/api-key-registry.js';
import { DEFAULT_ROLL_GRACE, DURATION_RANGE, MAX_LABEL_LENGTH } from '../../../domain/keys/key-fields.js';
import { MAX_CREDITS } from '../../../domain/credits/credit-rule.js';

/*
 * The admin API's wire shapes, from the same constants the key verbs check against. Times are
 * RFC 3339 UTC strings, as an operator reads them; an absent time is null.
 */

const time = (description: string) => Type.String({ format: 'date-time', description });
const timeOrNull = (description: string) => Type.Union([time(description), Type.Null()]);
const plan = Type.String({
  minLength: 1,
  description: 'free, pro and business have fixed limits; enterprise takes perMinute and perDay; any other is a plan of the PETSTORE_PLANS file.',
});
const role = Type.Unsafe<Role>({ type: 'string', enum: [...ROLES], description: 'customer: its own orders; staff: every order, and pets of any status.' });
const limit = (window: string) => Type.Integer({ minimum: 1, maximum: MAX_RULE_LIMIT, description: `Requests admitted in any rolling ${window}.` });
const DURATION_PATTERN = '^[0-9]{1,7}[smhd]$';

const overrideLimit = Type.Integer({
  minimum: 1,
  maximum: MAX_RULE_LIMIT,
  description: "The key's own limit of the rule, at least the rule's largest cost. The window, match and cost stay the plan's.",
});

/** One rule's override, as a key is given it. */
export const RuleOverrideSchema = Type.Object(
  { limit: overrideLimit, mode: Type.Optional(Type.Unsafe<RuleMode>({ type: 'string', enum: [...RULE_MODES], description: "Absent: the plan's mode." })) },
  { additionalProperties: false },
);

/** A rule of a key's plan, as the key's requests are decided: the plan's (built in, or of the PETSTORE_PLANS file), the key's overrides applied. */
export const PlanRuleSchema = Type.Object(
  {
    name: Type.String({ description: 'As in RateLimit-Policy: `minute`, `day`, or a plans file rule.' }),
    limit: Type.Integer({ minimum: 1, maximum: MAX_RULE_LIMIT, description: 'Units (requests, or their costs) admitted in any rolling window; a burst rule’s bucket size.' }),
    windowMs: Type.Integer({ minimum: 1, description: 'The rolling window, or a burst rule’s time to refill completely, in milliseconds.' }),
    kind: Type.Optional(RuleKindSchema),
    mode: RuleModeSchema,
    match: Type.Optional(RuleMatchSchema),
    cost: Type.Optional(RuleCostSchema),
    refund: Type.Optional(RuleRefundSchema),
    overridden: Type.Optional(
      Type.Object(
        {
          limit: Type.Integer({ minimum: 1, maximum: MAX_RULE_LIMIT, description: "The plan's own limit." }),
          mode: Type.Unsafe<RuleMode>({ type: 'string', enum: [...RULE_MODES], description: "The plan's own mode." }),
        },
        { additionalProperties: false, description: "Present when the key overrides the rule: the plan's own terms, which `limit` and `mode` replace for this key." },
      ),
    ),
  },
  { additionalProperties: false },
);

export const AdminKeySchema = Type.Object(
  {
    id: Type.String({ description: 'Public: what the verbs take. Never the key nor its digest.' }),
    label: Type.String(),
    plan,
    perMinute: Type.Optional(limit('minute (built-in plans only)')),
    perDay: Type.Optional(limit('day (built-in plans only)')),
    rules: Type.Array(PlanRuleSchema, {
      minItems: 1,
      description: "The plan's rules, in its order, with the key's overrides applied (each marked `overridden`): every one counts each request it matches.",
    }),
    role,
    state: Type.Unsafe<KeyState>({ type: 'string', enum: [...KEY_STATES] }),
    createdAt: time('When the key was created.'),
    updatedAt: timeOrNull('The last update; null: never updated.'),
    expiresAt: timeOrNull('From when the key is refused; null: never.'),
    revokedAt: timeOrNull('When the key was revoked; null: it is not.'),
    rolledAt: timeOrNull('The last roll; null: never rolled.'),
    previousKeyUntil: timeOrNull('Until when the key before the last roll is accepted (it may be past); null: not at all.'),
  },
  { additionalProperties: false, description: 'A managed key: everything about it but the key itself.' },
);

export const RuleUsageSchema = Type.Object(
  {
    name: Type.String({ description: '`minute` or `day`.' }),
    limit: Type.Integer({ minimum: 1 }),
    used: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'Requests counted in the rolling window now; null during a ban, when it is not known.' }),
    remaining: Type.Integer({ minimum: 0 }),
    resetAt: timeOrNull('When `remaining` next rises, rounded up to the second; null when the rule counts nothing.'),
  },
  { additionalProperties: false },
);

export const KeyStandingSchema = Type.Object(
  {
    key: AdminKeySchema,
    rules: Type.Array(RuleUsageSchema, { description: "The plan's rules as the key's next request would find them, counting nothing." }),
    bannedUntil: timeOrNull("The ban's end, from when the key is admitted again; null: not banned."),
    strikes: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description: "Refused requests that count towards a ban now, within the ban policy's strike window (0 during a ban); null when the quota store cannot tell.",
    }),
  },
  { additionalProperties: false },
);

export const KeyListSchema = Type.Object(
  {
    keys: Type.Array(
      Type.Object(
        { key: AdminKeySchema, usedToday: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'Requests counted in the rolling day; null during a ban.' }) },
        { additionalProperties: false },
      ),
      { description: 'Every managed key, revoked and expired ones too, oldest first.' },
    ),
  },
  { additionalProperties: false },
);

export const KeyAnswerSchema = Type.Object({ key: AdminKeySchema }, { additionalProperties: false });

export const IssuedKeySchema = Type.Object(
  {
    key: AdminKeySchema,
    secret: Type.String({ description: 'The API key (`ps_` and 43 base64url characters), shown this once: the store keeps only its SHA-256 digest.' }),
  },
  { additionalProperties: false },
);

const keyFields = {
  plan,
  perMinute: limit('minute (enterprise only)'),
  perDay: limit('day (enterprise only)'),
  role,
  label: Type.String({ maxLength: MAX_LABEL_LENGTH, description: `At most ${MAX_LABEL_LENGTH} characters, no control characters.` }),
  expiresIn: Type.String({ pattern: DURATION_PATTERN, description: `From now: a whole number and a unit s, m, h or d (90s, 30m, 12h, 7d), ${DURATION_RANGE}.` }),
};

/** The body field of a key's overrides: the key verbs read it as JSON (key-overrides.ts), the other fields as text. */
export const OVERRIDES_FIELD = 'overrides';

export const NewKeySchema = Type.Object(
  {
    ...keyFields,
    role: Type.Optional(keyFields.role),
    label: Type.Optional(keyFields.label),
    perMinute: Type.Optional(keyFields.perMinute),
    perDay: Type.Optional(keyFields.perDay),
    expiresIn: Type.Optional(keyFields.expiresIn),
    [OVERRIDES_FIELD]: Type.Optional(
      Type.Record(Type.String(), RuleOverrideSchema, {
        description: 'Limits (and modes) of rules of the plan, by rule name, of this key only: `{"search": {"limit": 60}}`.',
      }),
    ),
  },
  { additionalProperties: false, description: 'role defaults to customer, label to empty; no expiresIn: the key never expires.' },
);

export const KeyChangesSchema = Type.Object(
  {
    ...(Object.fromEntries(Object.entries(keyFields).map(([name, schema]) => [name, Type.Optional(schema)])) as {
      [Name in keyof typeof keyFields]: ReturnType<typeof Type.Optional<(typeof keyFields)[Name]>>;
    }),
    [OVERRIDES_FIELD]: Type.Optional(
      Type.Record(Type.String(), Type.Union([RuleOverrideSchema, Type.Null()]), {
        description: "Overrides to set, by rule name, replacing what the rule had; null gives a rule back its plan's terms. Rules not named keep theirs.",
      }),
    ),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description: 'Only what is given changes; perMinute and perDay go with plan enterprise. A new plan keeps the key\'s overrides; one naming a rule the plan has not must be removed (null) in the same change.',
  },
);

export const RollSchema = Type.Object(
  {
    grace: Type.Optional(
      Type.String({ pattern: `^0$|${DURATION_PATTERN}`, description: `How long the previous secret keeps working: a duration as expiresIn, or 0 for at once. Default ${DEFAULT_ROLL_GRACE}.` }),
    ),
  },
  { additionalProperties: false },
);

const units = (description: string) => Type.Integer({ minimum: 0, maximum: MAX_CREDITS, description });

/** A plan's credits (Plan.credits), as its keys spend them. */
export const CreditRuleSchema = Type.Object(
  {
    name: Type.String({ description: 'As GET /v1/rate_limit and the refusals name it.' }),
    credits: units("What each period's refill brings the balance up to; a balance above it (a top-up) is kept."),
    initial: Type.Optional(units("A key's first balance; absent: `credits`.")),
    refill: Type.Optional(
      Type.Union([Type.Literal('month'), Type.Integer({ minimum: 1 })], {
        description: '`month`: at 00:00 UTC on the first of each month; a number: every so many milliseconds, from the Unix epoch. Absent: never refilled.',
      }),
    ),
    match: Type.Optional(RuleMatchSchema),
    cost: Type.Optional(RuleCostSchema),
    refund: Type.Optional(RuleRefundSchema),
  },
  { additionalProperties: false },
);

export const KeyCreditsSchema = Type.Object(
  {
    key: AdminKeySchema,
    rule: CreditRuleSchema,
    balance: units('The units the key holds now, its refill due included.'),
    period: time('The start of the period the balance is of (1970-01-01T00:00:00.000Z: a rule that never refills).'),
    refillAt: timeOrNull('When the next refill comes; null: never.'),
    before: Type.Optional(units('The balance before the change just made (POST only).')),
  },
  { additionalProperties: false },
);

export const CreditChangeSchema = Type.Object(
  {
    set: Type.Optional(units('The balance, outright.')),
    add: Type.Optional(Type.Integer({ minimum: -MAX_CREDITS, maximum: MAX_CREDITS, description: 'Units to add; negative takes some away, never below 0.' })),
  },
  { additionalProperties: false, minProperties: 1, maxProperties: 1, description: 'Exactly one of set and add.' },
);

export const CreditUsageSchema = Type.Array(
  Type.Object(
    {
      key: Type.String({ description: "The key's id; a key no longer listed: its ledger subject." }),
      period: Type.String({ description: "The period's start, UTC: a date (2026-11-01) when it starts at midnight, else the instant; 1970-01-01: a rule that never refills." }),
      spent: units('Units spent by admitted requests.'),
      spends: units('Requests that spent them.'),
      refused: units('Requests refused for too few credits.'),
      refunded: units('Units given back.'),
      refunds: units('Requests that got units back.'),
      refilled: units("Units the period's refill added."),
      adjusted: Type.Integer({ description: 'Units operators added; negative: taken away.' }),
    },
    { additionalProperties: false },
  ),
  { description: 'One row per key and period, by key then period. Over a key’s life: balance = initial + refilled + adjusted − spent + refunded.' },
);

/** Schemas the admin document names under components/schemas. */
export const ADMIN_NAMED_SCHEMAS: Readonly<Record<string, TSchema>> = {
  AdminKey: AdminKeySchema,
  PlanRule: PlanRuleSchema,
  RuleOverride: RuleOverrideSchema,
  RuleUsage: RuleUsageSchema,
  KeyStanding: KeyStandingSchema,
  KeyList: KeyListSchema,
  KeyAnswer: KeyAnswerSchema,
  IssuedKey: IssuedKeySchema,
  NewKey: NewKeySchema,
  KeyChanges: KeyChangesSchema,
  Roll: RollSchema,
  CreditRule: CreditRuleSchema,
  KeyCredits: KeyCreditsSchema,
  CreditChange: CreditChangeSchema,
  CreditUsage: CreditUsageSchema,
  Error: ErrorSchema,
};
