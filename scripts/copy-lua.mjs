// The build's second step: tsc compiles src/ into dist/src/ but copies nothing else, and the
// Redis adapters read their .lua files beside their compiled modules (lua-source.ts).
import { cpSync, statSync } from 'node:fs';

cpSync('src', 'dist/src', { recursive: true, filter: (path) => statSync(path).isDirectory() || path.endsWith('.lua') });
