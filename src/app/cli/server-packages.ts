import { createRequire } from 'node:module';

/**
 * The packages the server loads that an install of this package alone leaves out: its optional
 * peer dependencies, as the manifest lists them (the core, the limiter and the client need none).
 */
export function missingServerPackages(): string[] {
  const manifest = createRequire(import.meta.url)('petstore-service/package.json') as { peerDependencies?: Record<string, string> };
  return Object.keys(manifest.peerDependencies ?? {}).filter((name) => {
    try {
      import.meta.resolve(name);
      return false;
    } catch {
      return true;
    }
  });
}
