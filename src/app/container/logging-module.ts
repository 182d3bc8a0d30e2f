import { ContainerModule } from 'inversify';
import { errorLogger, type PetStoreLogger } from '../logging/logger.js';
import { StoreOutageLog } from '../logging/store-outage-log.js';
import { TOKENS } from './tokens.js';
import { readinessPolicyOf } from '../admin/readiness.js';
import type { PetStoreConfig } from '../config/config.js';

/** Failures go to the process's logger (JSON lines, with the request id) in every environment. */
export const loggingModule = new ContainerModule(({ bind }) => {
  bind(TOKENS.logError)
    .toResolvedValue((log: PetStoreLogger) => errorLogger(log.logger), [TOKENS.logger])
    .inSingletonScope();
  bind(TOKENS.outageLog)
    .toResolvedValue(
      (log: PetStoreLogger, config: PetStoreConfig) => new StoreOutageLog(log.logger, undefined, undefined, readinessPolicyOf(config).fallbacks),
      [TOKENS.logger, TOKENS.config],
    )
    .inSingletonScope();
});
