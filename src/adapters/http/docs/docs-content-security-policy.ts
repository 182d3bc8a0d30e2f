/**
 * The page runs only scripts and styles of this origin. Swagger UI sets inline style attributes
 * and its CSS inlines images as data: URLs; "Try it out" and the document fetch go to this
 * origin only.
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
