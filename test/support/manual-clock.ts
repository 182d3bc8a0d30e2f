/** The kit's clock: one clock for the contracts and the repository's own tests. */
export { ManualClock } from '../../src/testing/manual-clock.js';
