/** Every operation's path is under this prefix; the document's servers end with it. */
export const BASE_PATH = '/v1';
