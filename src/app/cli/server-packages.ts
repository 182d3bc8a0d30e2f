import { createRequire } from 'node:module';

/**
 * Optional peers a server start does not need: fast-check is petstore-service/testing's,
 * PGlite's 3 MB of WebAssembly is loaded only by the store that uses it, when it opens it (which
 * then says what to install), and @opentelemetry/api only by tracing, which is off without it
 * (PETSTORE_TRACES=on then says what to install).
 */
const NOT_AT_EVERY_START = new Set(['fast-check', '@electric-sql/pglite', '@opentelemetry/api']);

/**
 * The packages the server loads that an install of this package alone leaves out: its optional
 * peer dependencies, as the manifest lists them (the core, the limiter and the client need none),
 * but those of one store only.
 */
export function missingServerPackages(): string[] {
  const manifest = createRequire(import.meta.url)('petstore-service/package.json') as { peerDependencies?: Record<string, string> };
  return Object.keys(manifest.peerDependencies ?? {}).filter((name) => {
    if (NOT_AT_EVERY_START.has(name)) return false;
    try {
      import.meta.resolve(name);
      return false;
    } catch {
      return true;
    }
  });
}
