/** What stands for any run of characters (none included) in a subject pattern. */
export const SUBJECT_WILDCARD = '*';

/** A pattern cut at its wildcards, once: `partner:*:eu` is `['partner:', ':eu']`. */
type Glob = readonly string[];

/**
 * Whether `subject` is `parts` joined by runs of any characters: the first part a prefix, the
 * last a suffix, each one between found leftmost after the one before (leftmost leaves the
 * most room to the rest, so it finds a match whenever there is one). No regular expression:
 * a subject is read a few times over, whatever the pattern.
 */
function matches(subject: string, parts: Glob): boolean {
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  const end = subject.length - last.length;
  if (end < first.length || !subject.startsWith(first) || !subject.endsWith(last)) return false;
  let at = first.length;
  for (let i = 1; i < parts.length - 1; i++) {
    const part = parts[i]!;
    const found = subject.indexOf(part, at);
    if (found === -1 || found + part.length > end) return false;
    at = found + part.length;
  }
  return true;
}

/**
 * What a subject gets of `entries` (a pattern and its value each): the value of the pattern
 * equal to it (one without a wildcard) before any other; else of the first pattern, in the
 * order given, that matches it; else `otherwise`. Patterns are cut once, here; an exact
 * subject costs one map lookup, a miss one pass over the patterns.
 */
export function subjectPicker<Value>(entries: readonly (readonly [pattern: string, value: Value])[], otherwise: Value): (subject: string) => Value {
  const exact = new Map<string, Value>();
  const globs: { readonly parts: Glob; readonly value: Value }[] = [];
  for (const [pattern, value] of entries) {
    if (pattern.includes(SUBJECT_WILDCARD)) globs.push({ parts: pattern.split(SUBJECT_WILDCARD), value });
    else if (!exact.has(pattern)) exact.set(pattern, value);
  }
  return (subject) => {
    const named = exact.get(subject);
    if (named !== undefined) return named;
    for (const { parts, value } of globs) if (matches(subject, parts)) return value;
    return otherwise;
  };
}
