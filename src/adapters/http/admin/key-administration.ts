import type { Result } from '../../../domain/result.js';
import type { ManagedApiKey } from '../../../ports/api-key-registry.js';
import type { KeyStanding } from '../../key-view.js';

/** The fields of a request body as text (limits written as whole numbers), by their JSON names. */
export type KeyFieldText = Readonly<Record<string, string>>;

/** Why a verb changed nothing: no key has the id, the key is revoked (and stays so), or what is wrong with the fields. */
export type KeyRefusal = 'not_found' | 'revoked' | { readonly invalid: string };

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
  list(): Promise<readonly ListedKey[]>;
  show(id: string): Promise<Result<KeyStanding, KeyRefusal>>;
  update(id: string, fields: KeyFieldText, overrides: unknown): Promise<Result<ManagedApiKey, KeyRefusal>>;
  unban(id: string): Promise<Result<ManagedApiKey, KeyRefusal>>;
  /** `grace` as given: a duration, `0`, or absent for the default. */
  roll(id: string, grace: string | undefined): Promise<Result<IssuedKey, KeyRefusal>>;
  revoke(id: string): Promise<Result<{ readonly key: ManagedApiKey }, KeyRefusal>>;
}
