import { invalid, type DomainError } from './errors.js';
import { err, ok, type Result } from './result.js';

export const isJsonObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The value of `field` in a JSON object holding exactly that field (any other is a 400), or the first problem. */
export const onlyField = (input: unknown, field: string): Result<unknown, DomainError> => {
  if (!isJsonObject(input)) return err(invalid('body', 'body must be a JSON object'));
  const unknownField = Object.keys(input).find((key) => key !== field);
  if (unknownField !== undefined) return err(invalid(unknownField, `unknown field: ${unknownField}`));
  if (!Object.hasOwn(input, field)) return err(invalid(field, `${field} is required`));
  return ok(input[field]);
};
