import type { QuotaStore } from '../../src/ports/quota-store.js';

/** A QuotaStore that only decides, with `decide`: a test whose subject never peeks or resets. */
export const decidingStore = (decide: QuotaStore['decide']): QuotaStore => ({
  decide,
  peek: () => {
    throw new Error('this test does not peek');
  },
  reset: () => {
    throw new Error('this test does not reset');
  },
  refund: () => {
    throw new Error('this test does not refund');
  },
});

/** A remote store that fails every call with `error` (StoreUnavailableError: an outage). */
export const failingStore = (error: Error): QuotaStore => ({
  decide: () => Promise.reject(error),
  peek: () => Promise.reject(error),
  reset: () => Promise.reject(error),
  refund: () => Promise.reject(error),
});
