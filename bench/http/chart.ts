import type { BenchResults, Summary } from './report.js';
import type { ServerName } from './servers.js';

const COLOURS: Record<ServerName, string> = { ceiling: '#9e9e9e', peer: '#e07b39', router: '#c9a227', memory: '#2f6fb0', operated: '#6a9fd4', 'five-rules': '#1d4a78', redis: '#b03a2e', cluster: '#7b2d8e', postgres: '#2e8b57' };
/** The order of the bars in every group, whichever servers a scenario measured. */
const SERVER_ORDER: readonly ServerName[] = ['ceiling', 'peer', 'router', 'memory', 'operated', 'five-rules', 'redis', 'cluster', 'postgres'];
const SHORT_TITLES: Record<string, string> = {
  list: 'GET /pets?limit=20',
  limited: '429 path',
  create: 'POST /pets',
  spread: 'GET, 10,000 keys',
  order: 'order + cancel',
};

const WIDTH = 960;
const LEFT = 70;
const RIGHT = 20;
const PANEL_HEIGHT = 300;
const escape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

interface Panel {
  readonly title: string;
  readonly top: number;
  readonly value: (summary: Summary) => number | null;
  /** Whiskers, when the panel has them. */
  readonly range?: (summary: Summary) => readonly [number, number];
  readonly tick: (value: number) => string;
  readonly label: (value: number) => string;
}

/**
 * Two grouped bar charts drawn from the results file: median req/s per scenario and server
 * (min–max as whiskers), and the server's CPU time per request. Every group has a place for
 * each server of the run, so a server's bar sits at the same place in every group; where a
 * scenario did not measure one (the peer has no orders), its place says `n/a`.
 */
export const renderChart = (results: BenchResults): string => {
  const parts: string[] = [];
  const text = (x: number, y: number, content: string, attributes = ''): void => {
    parts.push(`<text x="${x.toFixed(1)}" y="${y.toFixed(1)}" ${attributes}>${escape(content)}</text>`);
  };
  const plotWidth = WIDTH - LEFT - RIGHT;
  const groupWidth = plotWidth / Math.max(1, results.scenarios.length);
  const legend = new Map<ServerName, string>();
  for (const name of SERVER_ORDER) {
    const found = results.scenarios.flatMap((s) => s.servers).find(({ server }) => server === name);
    if (found !== undefined) legend.set(name, found.label);
  }
  const slots = [...legend.keys()];

  const drawPanel = ({ title, top, value, range, tick, label }: Panel): void => {
    const plotTop = top + 30;
    const plotHeight = PANEL_HEIGHT - 60;
    const values = results.scenarios.flatMap((s) => s.servers.map(({ summary }) => (range?.(summary)[1] ?? value(summary)) ?? 0));
    const step = niceStep(Math.max(1e-9, ...values) / 5);
    const max = Math.ceil(Math.max(...values, step) / step) * step;
    const y = (v: number): number => plotTop + plotHeight * (1 - v / max);
    text(LEFT, top + 16, title, 'font-size="14" font-weight="bold"');
    for (let v = 0; v <= max + step / 2; v += step) {
      parts.push(`<line x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#e4e4e4"/>`);
      text(LEFT - 8, y(v) + 4, tick(v), 'font-size="11" text-anchor="end" fill="#555"');
    }
    results.scenarios.forEach((scenario, g) => {
      const barWidth = (groupWidth * 0.8) / Math.max(1, slots.length);
      const groupLeft = LEFT + g * groupWidth + groupWidth * 0.1;
      slots.forEach((server, b) => {
        const x = groupLeft + b * barWidth;
        const middle = x + barWidth / 2;
        const summary = scenario.servers.find((result) => result.server === server)?.summary;
        if (summary === undefined) {
          text(middle, plotTop + plotHeight - 5, 'n/a', 'font-size="10" text-anchor="middle" fill="#999"');
          return;
        }
        const measured = value(summary);
        if (measured === null) return;
        const barTop = y(measured);
        parts.push(
          `<rect x="${(x + 2).toFixed(1)}" y="${barTop.toFixed(1)}" width="${(barWidth - 4).toFixed(1)}" height="${(plotTop + plotHeight - barTop).toFixed(1)}" fill="${COLOURS[server]}"/>`,
        );
        let labelAt = barTop;
        if (range !== undefined) {
          const [low, high] = range(summary);
          parts.push(`<line x1="${middle.toFixed(1)}" x2="${middle.toFixed(1)}" y1="${y(low).toFixed(1)}" y2="${y(high).toFixed(1)}" stroke="#222"/>`);
          labelAt = y(high);
        }
        text(middle, labelAt - 5, label(measured), 'font-size="10" text-anchor="middle"');
      });
      text(LEFT + (g + 0.5) * groupWidth, plotTop + plotHeight + 18, SHORT_TITLES[scenario.id] ?? scenario.id, 'font-size="12" text-anchor="middle"');
    });
  };

  const { connections, rounds, seconds } = results.settings;
  text(LEFT, 22, `HTTP bench: ${connections} connections, median of ${rounds} interleaved rounds of ${seconds} s`, 'font-size="16" font-weight="bold"');
  text(LEFT, 40, `${results.machine['cpu'] ?? ''}, node ${results.machine['node'] ?? ''}, ${results.generatedAt.slice(0, 10)}`, 'font-size="12" fill="#555"');
  drawPanel({
    title: 'Requests per second (higher is better; whiskers: min–max of the rounds)',
    top: 50,
    value: (s) => s.requestsPerSecond,
    range: (s) => [s.minRequestsPerSecond, s.maxRequestsPerSecond],
    tick: (v) => (v === 0 ? '0' : `${v / 1000}k`),
    label: (v) => `${(v / 1000).toFixed(1)}k`,
  });
  drawPanel({
    title: 'Server CPU per request, µs (lower is better; the Redis server’s own CPU not included)',
    top: 50 + PANEL_HEIGHT,
    value: (s) => s.serverCpuUsPerRequest,
    tick: (v) => String(v),
    label: (v) => v.toFixed(0),
  });

  const legendTop = 50 + 2 * PANEL_HEIGHT + 10;
  [...legend].forEach(([server, label], i) => {
    const x = LEFT + i * (plotWidth / Math.max(1, legend.size));
    parts.push(`<rect x="${x.toFixed(1)}" y="${legendTop - 10}" width="12" height="12" fill="${COLOURS[server]}"/>`);
    text(x + 18, legendTop, label, 'font-size="12"');
  });

  const height = legendTop + 20;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif">`,
    `<rect width="${WIDTH}" height="${height}" fill="#fff"/>`,
    ...parts,
    '</svg>',
    '',
  ].join('\n');
};

/** 1, 2 or 5 times a power of ten, at least `raw`. */
const niceStep = (raw: number): number => {
  const power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * power).find((candidate) => candidate >= raw) ?? 10 * power;
};
