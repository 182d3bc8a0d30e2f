/** Samples of a Prometheus text exposition, keyed `name{a="x",b="y"}` with labels sorted by name. */
export function parsePrometheus(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match === null) throw new Error(`not a sample line: ${line}`);
    const [, name = '', labels = '', value = ''] = match;
    const pairs = [...labels.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map(([, key, val]) => `${key}="${val}"`).sort();
    samples.set(pairs.length === 0 ? name : `${name}{${pairs.join(',')}}`, Number(value));
  }
  return samples;
}

/** Every sample of `name` (exactly that name), as key → value. */
export const samplesOf = (samples: Map<string, number>, name: string): Record<string, number> =>
  Object.fromEntries([...samples].filter(([key]) => key === name || key.startsWith(`${name}{`)));
