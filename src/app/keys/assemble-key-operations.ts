import type { KeyAdmin } from '../../ports/api-key-registry.js';
import type { Clock } from '../../ports/clock.js';
import type { CreditLedger } from '../../ports/credit-ledger.js';
import type { QuotaStore } from '../../ports/quota-store.js';
import type { BanPolicy } from '../../domain/quota/quota-rule.js';
import { keyChangeLog, type KeyChangeSource } from '../logging/key-change-log.js';
import type { Logger } from '../logging/logger.js';
import { KeyOperations } from './key-operations.js';

/** The stores the key verbs work on: those every server instance shares. */
export interface KeyStores {
  readonly admin: KeyAdmin;
  /** The time keys are created, updated and revoked at. */
  readonly clock: Clock;
  /** The quota store the servers count in: a key's usage is read there (peeked, never counted). */
  quotas(): Promise<QuotaStore>;
  /** The credit ledger the servers spend from: resolved only by the verbs on credits. */
  credits(): Promise<CreditLedger>;
  /** Where each key change is logged. */
  readonly logger: Logger;
}

export interface KeyVerbSettings {
  /** The servers' ban policy, which a key's standing is read under. */
  readonly ban: BanPolicy;
  /** Which front end makes the changes, as the change log names it. */
  readonly by: KeyChangeSource;
  randomBytes(bytes: number): Uint8Array;
}

/** The key verbs of `petstore keys` and of the admin API, assembled the same way for both. */
export const assembleKeyOperations = ({ admin, clock, quotas, credits, logger }: KeyStores, { ban, by, randomBytes }: KeyVerbSettings): KeyOperations =>
  new KeyOperations({ admin, clock, quotas, credits, ban, randomBytes, changed: keyChangeLog(logger, by) });
