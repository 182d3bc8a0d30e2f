/** The target of the `rel="next"` link of an RFC 8288 `Link` field, resolved against `base`; undefined when there is none. */
export function nextLink(field: string | null, base: string): URL | undefined {
  if (field === null) return undefined;
  for (const [, target = '', params = ''] of field.matchAll(/<([^>]*)>([^,<]*)/g)) {
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;"]+))/i.exec(params);
    const relations = (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/);
    if (relations.includes('next')) return new URL(target, base);
  }
  return undefined;
}
