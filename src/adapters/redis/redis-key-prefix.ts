/**
 * Every key this service writes starts with the configured prefix. The prefix may not hold
 * braces: the adapters put a `{hash tag}` right after it so that the keys one script touches
 * share a Cluster slot, and a brace in the prefix would become the tag instead.
 */
export const assertValidKeyPrefix = (prefix: string): string => {
  if (/[{}]/.test(prefix)) throw new RangeError(`Redis key prefix must not contain braces: ${JSON.stringify(prefix)}`);
  return prefix;
};
