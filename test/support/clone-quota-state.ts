import type { QuotaState } from '../../src/domain/quota/quota-engine.js';

/** A copy to probe "what if" without touching the original. */
export const cloneQuotaState = (state: QuotaState): QuotaState => ({
  ...state,
  cells: state.cells.slice(),
  levels: state.levels === null ? null : state.levels.slice(),
  strikes: state.strikes === null ? null : { ...state.strikes, times: state.strikes.times.slice() },
});
