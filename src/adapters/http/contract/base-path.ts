/** Where the operations are served unless told otherwise: `/v1/pets`, `/v1/openapi.json`. */
export const DEFAULT_BASE_PATH = '/v1';

// Segments of unreserved characters only: find-my-way gives `:` and `*` a meaning, and the
// path is written into Location/Link headers and a regular expression of the document as is.
const BASE_PATH_SHAPE = /^(\/[A-Za-z0-9._~-]+)*$/;

/** The base path, checked: `''` (the root) or `/segment/...` without a trailing slash. Throws otherwise. */
export function checkedBasePath(basePath: string): string {
  if (!BASE_PATH_SHAPE.test(basePath)) {
    throw new Error(
      `basePath ${JSON.stringify(basePath)} must be empty or /-separated segments of letters, digits, '.', '_', '~' and '-', without a trailing slash (e.g. '/v1', '/petstore/v1')`,
    );
  }
  return basePath;
}
