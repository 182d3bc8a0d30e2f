/* The accuracy benchmark's results: their file, the table, the chart and the guide's section. */
import type { LimiterId, StoreName } from './limiters.js';
import type { PropertyResult } from './property.js';

export interface Row {
  readonly limiter: LimiterId;
  readonly limiterLabel: string;
  readonly store: StoreName;
  readonly storeLabel: string;
  readonly shape: string;
  readonly shapeLabel: string;
  readonly sent: number;
  readonly admitted: number;
  readonly peakExcess: number;
  readonly excessAdmissions: number;
  readonly underAdmissions: number;
  /** Store errors: neither admitted nor refused. */
  readonly failed: number;
  /** Where decisions/s was measured: the store, instances and latency of the shape. */
  readonly setting: string;
  /** In that setting, with a limit out of reach. */
  readonly decisionsPerSecond: number | null;
}

export interface PropertyRow extends PropertyResult {
  readonly limiter: LimiterId;
  readonly limiterLabel: string;
  readonly store: StoreName;
  readonly storeLabel: string;
}

export interface AccuracyResults {
  readonly generatedAt: string;
  readonly machine: Readonly<Record<string, string>>;
  readonly limit: number;
  readonly windowMs: number;
  readonly edgeMs: number;
  readonly toleranceMs: number;
  readonly quick: boolean;
  readonly rows: readonly Row[];
  readonly properties: readonly PropertyRow[];
  readonly notes: readonly string[];
}

const rate = (value: number | null): string => (value === null ? 'n/a' : value >= 10_000 ? `${Math.round(value / 1000)}k` : String(Math.round(value)));

/** The table, in markdown (stdout and the guide alike). */
export const renderTable = (results: AccuracyResults): string => {
  const lines = [
    '| limiter (store) | shape | sent | admitted | most over the limit in a rolling window | excess admissions | refused under the limit | decisions/s |',
    '|---|---|--:|--:|--:|--:|--:|--:|',
  ];
  for (const row of results.rows) {
    const failed = row.failed > 0 ? ` (${row.failed} failed)` : '';
    lines.push(
      `| ${row.limiterLabel} (${row.storeLabel}) | ${row.shapeLabel} | ${row.sent}${failed} | ${row.admitted} | ${row.peakExcess === 0 ? '0' : `**+${row.peakExcess}**`} | ${row.excessAdmissions} | ${row.underAdmissions} | ${rate(row.decisionsPerSecond)} |`,
    );
  }
  return lines.join('\n');
};

/** The kit's message without its replay line: limiters that failed on the same schedule alike share one quote. */
const traceOf = (counterexample: string): string => counterexample.replace(/\n\(fast-check seed [^\n]*\)$/, '');

/**
 * A failure of the kit's property names over-admission only where the shrunk schedule went over
 * the limit itself: the model counts its oldest sub-window whole, so a limiter exact over rolling
 * windows admits some requests the model refuses without ever holding more than the limit.
 */
const failureOf = (p: PropertyRow): string => {
  const overByItsTimes = (p.admittedInWindow ?? 0) > p.limit;
  const overAsRun = p.admittedInWindowAsRun === undefined || p.admittedInWindowAsRun > p.limit;
  if (p.disagreement === 'over-admission' && !overByItsTimes) return "disagrees: admits what the model's sub-windows refuse, never over the limit";
  if (p.disagreement === 'over-admission' && !overAsRun) return 'over the limit by the schedule’s times only, not as it ran';
  return `**fails**: ${p.disagreement === 'over-admission' ? 'over the limit' : (p.disagreement ?? '')}`;
};

export const renderProperties = (results: AccuracyResults): string => {
  const lines = [
    '| limiter (store) | property | clock | limit / window | result | cases run | most admitted in a rolling window, shrunk schedule: by its times | as it ran |',
    '|---|---|---|---|---|--:|--:|--:|',
  ];
  const quoted = new Map<string, { readonly message: string; readonly limiters: string[] }>();
  for (const p of results.properties) {
    const label = `${p.limiterLabel} (${p.storeLabel})`;
    const result = p.passed ? (p.interrupted === true ? 'held (time limit)' : 'held') : failureOf(p);
    const asRun = p.admittedInWindowAsRun === undefined ? '' : p.admittedInWindowAsRun > p.limit ? String(p.admittedInWindowAsRun) : `at most ${p.limit}`;
    lines.push(`| ${label} | ${p.property} | ${p.clock} | ${p.limit} / ${p.windowMs / 1000} s | ${result} | ${p.runs ?? ''} | ${p.admittedInWindow ?? ''} | ${asRun} |`);
    if (p.counterexample === undefined) continue;
    const trace = traceOf(p.counterexample);
    const entry = quoted.get(trace) ?? { message: p.counterexample, limiters: [] };
    entry.limiters.push(`${label}, ${p.property}`);
    quoted.set(trace, entry);
  }
  for (const { message, limiters } of quoted.values()) {
    lines.push('', `${limiters.join(', ')}: the kit's shrunk counterexample, as it throws it:`, '', '```', message, '```');
  }
  return lines.join('\n');
};

const COLOURS: Readonly<Record<LimiterId, string>> = {
  own: '#2f6fb0',
  'express-rate-limit': '#e07b39',
  'fastify-rate-limit': '#2e8b57',
  'rate-limiter-flexible': '#7b2d8e',
};
const ORDER: readonly LimiterId[] = ['own', 'express-rate-limit', 'fastify-rate-limit', 'rate-limiter-flexible'];
const escape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * Two horizontal bar charts: per shape and store, each limiter's most admissions over the limit
 * in one rolling window, and its refusals under the limit; one bar per limiter in each group.
 */
export const renderChart = (results: AccuracyResults): string => {
  const groups = [...new Set(results.rows.map((row) => `${row.shape}|${row.store}`))];
  const labelOf = (group: string): string => {
    const row = results.rows.find((r) => `${r.shape}|${r.store}` === group)!;
    return `${row.shapeLabel} · ${row.store}`;
  };
  const BAR = 7;
  const GROUP = ORDER.length * BAR + 10;
  const LEFT = 250;
  const PANEL = 330;
  const GAP = 40;
  const TOP = 70;
  const width = LEFT + 2 * PANEL + GAP + 20;
  const height = TOP + groups.length * GROUP + 50;
  const parts: string[] = [];
  const text = (x: number, y: number, content: string, attributes = ''): void => {
    parts.push(`<text x="${x.toFixed(1)}" y="${y.toFixed(1)}" ${attributes}>${escape(content)}</text>`);
  };
  text(10, 22, `Rate-limit accuracy: ${results.limit} requests per ${results.windowMs / 1000} s, per limiter, store and traffic shape`, 'font-size="16" font-weight="bold"');
  text(10, 40, `${results.machine['cpu'] ?? ''}, node ${results.machine['node'] ?? ''}, ${results.generatedAt.slice(0, 10)}; 0 everywhere is exact`, 'font-size="12" fill="#555"');
  const panels = [
    { title: 'most admitted over the limit in one rolling window', value: (row: Row) => row.peakExcess },
    { title: 'requests refused while under the limit', value: (row: Row) => row.underAdmissions },
  ];
  panels.forEach(({ title, value }, p) => {
    const left = LEFT + p * (PANEL + GAP);
    const max = Math.max(1, ...results.rows.map(value));
    text(left, TOP - 12, title, 'font-size="13" font-weight="bold"');
    parts.push(`<line x1="${left}" y1="${TOP - 4}" x2="${left}" y2="${TOP + groups.length * GROUP}" stroke="#999"/>`);
    groups.forEach((group, g) => {
      const top = TOP + g * GROUP;
      if (p === 0) text(LEFT - 8, top + GROUP / 2, labelOf(group), 'font-size="11" text-anchor="end"');
      ORDER.forEach((limiter, l) => {
        const row = results.rows.find((r) => `${r.shape}|${r.store}` === group && r.limiter === limiter);
        if (row === undefined) return;
        const length = (value(row) / max) * (PANEL - 40);
        const y = top + 3 + l * BAR;
        parts.push(`<rect x="${left}" y="${y}" width="${Math.max(length, 0.5).toFixed(1)}" height="${BAR - 1}" fill="${COLOURS[limiter]}"/>`);
        if (value(row) > 0) text(left + length + 3, y + BAR - 1, String(value(row)), 'font-size="8"');
      });
      parts.push(`<line x1="${left}" y1="${top + GROUP - 2}" x2="${left + PANEL}" y2="${top + GROUP - 2}" stroke="#eee"/>`);
    });
  });
  ORDER.forEach((limiter, l) => {
    const x = 10 + l * 230;
    const label = results.rows.find((row) => row.limiter === limiter)?.limiterLabel ?? limiter;
    parts.push(`<rect x="${x}" y="${height - 28}" width="12" height="12" fill="${COLOURS[limiter]}"/>`);
    text(x + 18, height - 18, label, 'font-size="12"');
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif">
<rect width="100%" height="100%" fill="white"/>
${parts.join('\n')}
</svg>
`;
};

export const SECTION_BEGIN = '<!-- bench:accuracy begin (written by npm run bench:accuracy) -->';
export const SECTION_END = '<!-- bench:accuracy end -->';

/** The guide's section between its markers: the run's settings, the table, the chart, the property's results, and `verdict`. */
export const renderSection = (results: AccuracyResults, verdict: string): string =>
  [
    SECTION_BEGIN,
    '',
    `Run of ${results.generatedAt.slice(0, 16).replace('T', ' ')} UTC${results.quick ? ' (BENCH_ACCURACY_QUICK: shortened)' : ''}; ${results.machine['cpu'] ?? ''}, node ${results.machine['node'] ?? ''}. ` +
      `Limit ${results.limit} per ${results.windowMs / 1000} s; the boundary bursts leave ${results.edgeMs} ms before and after the window's end; ` +
      `a decision is known only to lie within its call (Redis decides inside a round trip): over-admission counts admissions surely within one window, ` +
      `under-admission refusals under the limit whichever moment of the call decided, with ${results.toleranceMs} ms of slack for the clocks.`,
    '',
    verdict,
    '',
    renderTable(results),
    '',
    '![Admitted over the limit and refused under it, per limiter, store and shape](results/accuracy.svg)',
    '',
    'The testing kit\'s property, `limiterAgreesWithModel`, through the same harness: every request answered as the reference model answers it:',
    '',
    renderProperties(results),
    '',
    ...results.notes.map((note) => `- ${note}`),
    '',
    SECTION_END,
  ].join('\n');
