const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/** Text made of the unpadded base64url alphabet, as a JSON Schema pattern. */
export const BASE64URL_PATTERN = '^[A-Za-z0-9_-]*$';
const BASE64URL = new RegExp(BASE64URL_PATTERN);

/**
 * Unpadded base64url of Latin-1 text (every char code below 256), written by hand
 * because the domain may use neither node:buffer nor DOM globals.
 */
export const encodeBase64Url = (text: string): string => {
  let out = '';
  for (let i = 0; i < text.length; i += 3) {
    const a = text.charCodeAt(i);
    const b = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
    const c = i + 2 < text.length ? text.charCodeAt(i + 2) : 0;
    const bits = (a << 16) | (b << 8) | c;
    out += ALPHABET.charAt((bits >> 18) & 63) + ALPHABET.charAt((bits >> 12) & 63);
    if (i + 1 < text.length) out += ALPHABET.charAt((bits >> 6) & 63);
    if (i + 2 < text.length) out += ALPHABET.charAt(bits & 63);
  }
  return out;
};

/** The Latin-1 text of unpadded base64url, or undefined when it is not base64url at all. */
export const decodeBase64Url = (encoded: string): string | undefined => {
  if (!BASE64URL.test(encoded) || encoded.length % 4 === 1) return undefined;
  let out = '';
  for (let i = 0; i < encoded.length; i += 4) {
    const chunk = encoded.slice(i, i + 4);
    let bits = 0;
    for (let j = 0; j < 4; j += 1) bits = (bits << 6) | (j < chunk.length ? ALPHABET.indexOf(chunk.charAt(j)) : 0);
    out += String.fromCharCode((bits >> 16) & 255);
    if (chunk.length > 2) out += String.fromCharCode((bits >> 8) & 255);
    if (chunk.length > 3) out += String.fromCharCode(bits & 255);
  }
  return out;
};
