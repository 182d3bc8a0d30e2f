import type { CreditChange } from '../../domain/credits/credit-balance.js';
import type { CreditRule } from '../../domain/credits/credit-rule.js';
import { keySubject } from '../../domain/quota/request-admission.js';
import { err, ok, type Result } from '../../domain/result.js';
import type { KeyAdmin, ManagedApiKey, StoredApiKey } from '../../ports/api-key-registry.js';
import type { Clock } from '../../ports/clock.js';
import type { CreditLedger, CreditStanding } from '../../ports/credit-ledger.js';
import type { UsageRange } from './credit-fields.js';
import { exportRows, type UsageExportRow } from './usage-export.js';

export interface KeyCreditsDependencies {
  readonly admin: KeyAdmin;
  /** The time a balance is read and changed at (its refill, the usage row's period). */
  readonly clock: Clock;
  /** The ledger the servers spend from; resolved only by the verbs that read or change credits. */
  credits(): Promise<CreditLedger>;
  /** Told of each change, once the ledger made it: the audit line of who changed which key's balance. */
  readonly changed: (change: CreditsChanged) => void;
}

/** An operator's change as the audit log tells it. */
export interface CreditsChanged {
  readonly keyId: string;
  readonly rule: string;
  readonly before: number;
  readonly after: number;
  readonly change: CreditChange;
}

/** Why nothing was read or changed: no key has the id, or its plan carries no credits. */
export type CreditsRefusal = 'not_found' | 'no_credits';

/** A key's credits as they stand: its plan's rule and the ledger's balance. */
export interface KeyCreditStanding {
  readonly key: ManagedApiKey;
  readonly rule: CreditRule;
  readonly standing: CreditStanding;
}

/** A change as made: the balance before it, and the standing after. */
export interface KeyCreditChange extends KeyCreditStanding {
  readonly before: number;
}

/**
 * A key's credits are its plan's (Plan.credits) and its balance is kept under the subject its
 * requests spend from: `keySubject` of the digest it was created with, which a roll keeps.
 */
const creditsOf = (stored: StoredApiKey): { readonly rule: CreditRule; readonly subject: string } | undefined =>
  stored.key.plan.credits === undefined ? undefined : { rule: stored.key.plan.credits, subject: keySubject(stored.digest) };

/**
 * The credit verbs of `petstore keys` and the admin API: a key's balance read, set or topped up
 * (a revoked key's too: its balance is a record an operator may still settle), and the usage
 * ledger exported by key id.
 */
export class KeyCredits {
  constructor(private readonly deps: KeyCreditsDependencies) {}

  async read(id: string): Promise<Result<KeyCreditStanding, CreditsRefusal>> {
    const found = await this.find(id);
    if (!found.ok) return found;
    const { stored, rule, subject } = found.value;
    const standing = await (await this.deps.credits()).standing(subject, rule, this.deps.clock.now());
    return ok({ key: stored.key, rule, standing });
  }

  /** `change` as read by readCreditChange (in range): the ledger checks it again and refuses with a RangeError. */
  async change(id: string, change: CreditChange): Promise<Result<KeyCreditChange, CreditsRefusal>> {
    const found = await this.find(id);
    if (!found.ok) return found;
    const { stored, rule, subject } = found.value;
    const { before, after } = await (await this.deps.credits()).change(subject, rule, change, this.deps.clock.now());
    this.deps.changed({ keyId: id, rule: rule.name, before, after: after.balance, change });
    return ok({ key: stored.key, rule, standing: after, before });
  }

  /**
   * The ledger's usage rows of one key (`keyId`) or of all, periods in `range`, each subject named
   * by its key's id; a subject no listed key has (its key gone) keeps its subject.
   */
  async usage(keyId: string | undefined, range: UsageRange): Promise<Result<UsageExportRow[], 'not_found'>> {
    const { admin } = this.deps;
    const stored = keyId === undefined ? await admin.listKeys() : [await admin.findKey(keyId)];
    const keys = stored.filter((key): key is StoredApiKey => key !== undefined);
    if (keys.length < stored.length) return err('not_found');
    const idOf = new Map(keys.map(({ key, digest }) => [keySubject(digest), key.id]));
    const [only] = keys;
    const query = { ...range, ...(keyId === undefined || only === undefined ? {} : { subject: keySubject(only.digest) }) };
    const rows = await (await this.deps.credits()).usage(query);
    return ok(exportRows(rows, (subject) => idOf.get(subject)));
  }

  private async find(id: string): Promise<Result<{ readonly stored: StoredApiKey; readonly rule: CreditRule; readonly subject: string }, CreditsRefusal>> {
    const stored = await this.deps.admin.findKey(id);
    if (stored === undefined) return err('not_found');
    const credits = creditsOf(stored);
    return credits === undefined ? err('no_credits') : ok({ stored, ...credits });
  }
}
