import { createRequire } from 'node:module';

/**
 * Optional peers the server loads only for the store that uses them, when it opens it (which then
 * says what to install): PGlite's 3 MB of WebAssembly is no one else's concern.
 */
const STORE_PACKAGES = new Set(['@electric-sql/pglite']);

/**
 * The packages the server loads that an install of this package alone leaves out: its optional
 * peer dependencies, as the manifest lists them (the core, the limiter and the client need none),
 * but those of one store only.
 */
export function missingServerPackages(): string[] {
  const manifest = createRequire(import.meta.url)('petstore-service/package.json') as { peerDependencies?: Record<string, string> };
  return Object.keys(manifest.peerDependencies ?? {}).filter((name) => {
    if (STORE_PACKAGES.has(name)) return false;
    try {
      import.meta.resolve(name);
      return false;
    } catch {
      return true;
    }
  });
}
