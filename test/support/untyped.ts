/**
 * An input as an untyped caller could send it (parsed JSON, query text): the domain validates
 * every input whatever its type says, and these tests show it does.
 */
export const untyped = <T>(value: unknown): T => value as T;
