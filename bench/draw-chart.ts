/* Redraws bench/results/latest.svg from bench/results/latest.json: `node dist/bench/draw-chart.js`. */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderChart } from './http/chart.js';
import type { BenchResults } from './http/report.js';

const results = fileURLToPath(new URL('../../bench/results/', import.meta.url));
writeFileSync(`${results}latest.svg`, renderChart(JSON.parse(readFileSync(`${results}latest.json`, 'utf8')) as BenchResults));
