import { createRequire } from 'node:module';

/** Optional peers the server never loads: fast-check is petstore-service/testing's. */
const NOT_THE_SERVERS = new Set(['fast-check']);

/**
 * The packages the server loads that an install of this package alone leaves out: its optional
 * peer dependencies, as the manifest lists them (the core, the limiter and the client need none).
 */
export function missingServerPackages(): string[] {
  const manifest = createRequire(import.meta.url)('petstore-service/package.json') as { peerDependencies?: Record<string, string> };
  return Object.keys(manifest.peerDependencies ?? {}).filter((name) => {
    if (NOT_THE_SERVERS.has(name)) return false;
    try {
      import.meta.resolve(name);
      return false;
    } catch {
      return true;
    }
  });
}
