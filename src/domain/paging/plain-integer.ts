const DIGITS = /^[0-9]+$/;

/**
 * An integer given as a JSON number or as query/path text. Text must be plain decimal digits:
 * `Number()` alone would also accept '1e1', ' 5', '0x10' and ''.
 * The result may exceed the safe range; callers check their own bounds.
 */
export const parsePlainInteger = (value: unknown): number | undefined => {
  if (typeof value === 'number') return Number.isInteger(value) ? value : undefined;
  if (typeof value === 'string' && DIGITS.test(value)) return Number(value);
  return undefined;
};
