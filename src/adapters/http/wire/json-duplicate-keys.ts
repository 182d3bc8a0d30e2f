/**
 * The first member name that appears twice in one object of valid JSON text, compared after
 * unescaping (`"a"` and `"\u0061"` are one name). JSON.parse keeps the last silently, and
 * another parser downstream (a proxy, a log reader) may keep the first: a body must have one
 * meaning, whoever reads it.
 */
export function findDuplicateKey(json: string): string | undefined {
  // One entry per open container: an object's names so far, or null for an array.
  const open: (Set<string> | null)[] = [];
  for (let i = 0; i < json.length; i++) {
    const char = json.charCodeAt(i);
    if (char === 123 /* { */) open.push(new Set());
    else if (char === 91 /* [ */) open.push(null);
    else if (char === 125 /* } */ || char === 93 /* ] */) open.pop();
    else if (char === 34 /* " */) {
      const start = i + 1;
      let escaped = false;
      for (i = start; json.charCodeAt(i) !== 34; i++) {
        if (json.charCodeAt(i) === 92 /* \ */) {
          escaped = true;
          i++;
        }
      }
      const names = open.at(-1);
      // In an object, a string is a member name exactly when it follows `{` or `,`; after `:` it is a value.
      if (names === null || names === undefined || !isName(json, start - 1)) continue;
      const raw = json.slice(start, i);
      const name = escaped ? (JSON.parse(`"${raw}"`) as string) : raw;
      if (names.has(name)) return name;
      names.add(name);
    }
  }
  return undefined;
}

/** Whether the string starting at `quote` stands where an object's member name does: after `{` or `,`. */
function isName(json: string, quote: number): boolean {
  for (let i = quote - 1; i >= 0; i--) {
    const char = json.charCodeAt(i);
    // JSON's whitespace: space, tab, line feed, carriage return.
    if (char === 32 || char === 9 || char === 10 || char === 13) continue;
    return char === 123 /* { */ || char === 44 /* , */;
  }
  return false;
}
