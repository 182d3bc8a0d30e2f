/** The kit's: the tests and the kit's checks hold the engine to one reading of the header. */
export { toldRetryAt } from '../../src/testing/told-retry-at.js';
