/** The documented default of `Deprecation` (docs/configuration.md, PETSTORE_DEPRECATION_DATE). */
export const DEFAULT_DEPRECATED_AT = new Date('2026-01-01T00:00:00Z');
