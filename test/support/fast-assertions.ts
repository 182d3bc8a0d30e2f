/** toEqual, without its cost on the passing path: the kit's, which the property tests and the kit's checks share. */
export { sameDecision as expectSameDecision } from '../../src/testing/assertions.js';

/** A failing check with its message; nothing to pay when it holds. */
export const check = (holds: boolean, message: () => string): void => {
  if (!holds) throw new Error(message());
};
