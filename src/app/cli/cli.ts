#!/usr/bin/env node
import { missingServerPackages } from './server-packages.js';

// Checked before the command loads them, so a light install gets one line saying what to add.
const missing = missingServerPackages();
if (missing.length > 0) {
  console.error(`petstore: the server needs ${missing.join(', ')}, which are not installed: npm install ${missing.join(' ')}`);
  process.exit(1);
}
await import('./petstore-command.js');
