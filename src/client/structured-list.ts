/** One member of a structured-field list (RFC 9651): its name and its integer parameters. */
export interface ListMember {
  readonly name: string;
  readonly params: ReadonlyMap<string, number>;
}

/** `text` cut at each `separator` outside double quotes. */
const splitOutsideQuotes = (text: string, separator: string): string[] => {
  const parts: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '\\' && quoted) i++;
    else if (char === '"') quoted = !quoted;
    else if (char === separator && !quoted) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
};

const unquote = (text: string): string => (/^".*"$/.test(text) ? text.slice(1, -1).replace(/\\(.)/g, '$1') : text);

/**
 * The members of a list such as `"minute";r=59;t=41, "day";r=999;t=86400`: each member's
 * string or token, with the parameters whose values are integers (others are left out).
 */
export function parseStructuredList(field: string): ListMember[] {
  return splitOutsideQuotes(field, ',').flatMap((member) => {
    const [item = '', ...parameters] = splitOutsideQuotes(member, ';').map((part) => part.trim());
    if (item === '') return [];
    const params = new Map<string, number>();
    for (const parameter of parameters) {
      const match = /^([a-z*][a-z0-9_.*-]*)=(-?\d{1,15})$/.exec(parameter);
      if (match?.[1] !== undefined) params.set(match[1], Number(match[2]));
    }
    return [{ name: unquote(item), params }];
  });
}
