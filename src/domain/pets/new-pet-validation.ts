import { invalid, type DomainError } from '../errors.js';
import { isJsonObject } from '../json-object.js';
import { err, ok, type Result } from '../result.js';
import { isPetStatus, isValidId, MAX_ID, PET_STATUSES, type NewPet } from './pet.js';

export const MAX_NAME_LENGTH = 100;

const NEW_PET_FIELDS: ReadonlySet<string> = new Set(['name', 'categoryId', 'status']);
const CONTROL_CHARACTER = /\p{Cc}/u;
/**
 * What a name needs at least one of, as a regex class body (the document's schema builds its
 * pattern from it too): a character that is not white space, not one Unicode says to render
 * invisibly (Default_Ignorable_Code_Point: zero-width spaces and joiners, the Hangul fillers,
 * variation selectors, soft hyphen), and not the blank Braille pattern.
 */
export const VISIBLE_CHARACTER_CLASS = '[^\\s\\p{Default_Ignorable_Code_Point}\\u2800]';
const VISIBLE_CHARACTER = new RegExp(VISIBLE_CHARACTER_CLASS, 'u');
// In a `u` regex a surrogate pair is one code point, so this finds only unpaired halves,
// which no store can encode as UTF-8 and give back unchanged.
const LONE_SURROGATE = /\p{Cs}/u;

const validateName = (value: unknown): Result<string, DomainError> => {
  if (value === undefined) return err(invalid('name', 'name is required'));
  const lengthError = invalid('name', `name must be a string of 1 to ${MAX_NAME_LENGTH} characters`);
  if (typeof value !== 'string') return err(lengthError);
  const name = value.trim();
  if (CONTROL_CHARACTER.test(name)) return err(invalid('name', 'name must not contain control characters'));
  if (LONE_SURROGATE.test(name)) return err(invalid('name', 'name must be well-formed Unicode text'));
  const length = Array.from(name).length; // code points, not UTF-16 units
  if (length < 1 || length > MAX_NAME_LENGTH) return err(lengthError);
  if (!VISIBLE_CHARACTER.test(name)) return err(invalid('name', 'name must hold at least one visible character'));
  return ok(name);
};

const validateCategoryId = (value: unknown): Result<number, DomainError> => {
  if (value === undefined) return err(invalid('categoryId', 'categoryId is required'));
  // JSON.parse has already made 3.0 the integer 3, and 9007199254740993 the unsafe 2^53: a safe-integer check decides.
  if (typeof value !== 'number' || !isValidId(value)) {
    return err(invalid('categoryId', `categoryId must be an integer from 1 to ${MAX_ID}`));
  }
  return ok(value);
};

const validateStatus = (value: unknown): Result<NewPet['status'], DomainError> => {
  if (value === undefined) return ok('available');
  if (!isPetStatus(value)) return err(invalid('status', `status must be one of ${PET_STATUSES.join(', ')}`));
  return ok(value);
};

const own = (body: Readonly<Record<string, unknown>>, key: string): unknown =>
  Object.hasOwn(body, key) ? body[key] : undefined;

/**
 * The body of createPet. The first offending field is reported, in a fixed order
 * (unknown fields, name, categoryId, status), so the same body always gets the same message.
 */
export const validateNewPet = (input: unknown): Result<NewPet, DomainError> => {
  if (!isJsonObject(input)) return err(invalid('body', 'body must be a JSON object'));
  const unknownField = Object.keys(input).find((key) => !NEW_PET_FIELDS.has(key));
  if (unknownField !== undefined) return err(invalid(unknownField, `unknown field: ${unknownField}`));

  const name = validateName(own(input, 'name'));
  if (!name.ok) return name;
  const categoryId = validateCategoryId(own(input, 'categoryId'));
  if (!categoryId.ok) return categoryId;
  const status = validateStatus(own(input, 'status'));
  if (!status.ok) return status;
  return ok({ name: name.value, categoryId: categoryId.value, status: status.value });
};
