import type { CreditRule } from '../../../domain/credits/credit-rule.js';
import type { Result } from '../../../domain/result.js';
import type { ManagedApiKey } from '../../../ports/api-key-registry.js';
import type { CreditStanding } from '../../../ports/credit-ledger.js';
import type { KeyStanding } from '../../key-view.js';

/** The fields of a request body as text (limits written as whole numbers), by their JSON names. */
export type KeyFieldText = Readonly<Record<string, string>>;

/**
 * Why a verb changed nothing: no key has the id, the key is revoked (and stays so), its plan
 * carries no credits (the credit verbs), or what is wrong with the fields.
 */
export type KeyRefusal = 'not_found' | 'revoked' | 'no_credits' | 'not_banned' | { readonly invalid: string };

/** A key just made or rolled, with its secret, shown this once. */
export interface IssuedKey {
  readonly key: ManagedApiKey;
  readonly secret: string;
}

export interface ListedKey {
  readonly key: ManagedApiKey;
  /** Requests counted in the rolling day; absent during a ban. */
  readonly usedToday: number | undefined;
}

/** A key's credits: its plan's rule and its balance; `before`: the balance before the change just made. */
export interface KeyCreditsAnswer {
  readonly key: ManagedApiKey;
  readonly rule: CreditRule;
  readonly standing: CreditStanding;
  readonly before?: number;
}

/** The usage ledger's export, formatted: `json`, a JSON array; `csv`, RFC 4180 text with a header line. */
export interface UsageExport {
  readonly format: 'csv' | 'json';
  readonly body: string;
}

/**
 * The key verbs as the admin operations call them: the app's use cases, the fields read by the
 * readers of `petstore keys` flags so both front ends accept and refuse alike. Declared here
 * and implemented in the app, as adapters never import the app.
 */
export interface KeyAdministration {
  /** Whether `id` can name a key at all: any other is a 404 without asking a store or reading a body. */
  isKeyId(id: string): boolean;
  /** `overrides`: the body's JSON `overrides` as given; undefined when absent. */
  create(fields: KeyFieldText, overrides: unknown): Promise<Result<IssuedKey, KeyRefusal>>;
  /** `query`: `limit`, `cursor`, `plan` and `status` as given; `next`: the query of the next page, when one follows. */
  list(query: KeyFieldText): Promise<Result<{ readonly keys: readonly ListedKey[]; readonly next?: string }, KeyRefusal>>;
  show(id: string): Promise<Result<KeyStanding, KeyRefusal>>;
  update(id: string, fields: KeyFieldText, overrides: unknown): Promise<Result<ManagedApiKey, KeyRefusal>>;
  /** Refused `not_banned`, changing nothing, for a key without a ban. */
  unban(id: string): Promise<Result<ManagedApiKey, KeyRefusal>>;
  reset(id: string): Promise<Result<ManagedApiKey, KeyRefusal>>;
  /** `grace` as given: a duration, `0`, or absent for the default. */
  roll(id: string, grace: string | undefined): Promise<Result<IssuedKey, KeyRefusal>>;
  revoke(id: string): Promise<Result<{ readonly key: ManagedApiKey }, KeyRefusal>>;
  credits(id: string): Promise<Result<KeyCreditsAnswer, KeyRefusal>>;
  /** `fields`: `set` or `add`, as whole numbers in text. */
  changeCredits(id: string, fields: KeyFieldText): Promise<Result<KeyCreditsAnswer, KeyRefusal>>;
  /** `query`: the export's `key`, `from`, `to` and `format` as given. */
  usage(query: KeyFieldText): Promise<Result<UsageExport, KeyRefusal>>;
}
