import type { OutgoingHttpHeaders } from 'node:http';

/** RFC 9745 Deprecation (a structured date), RFC 8594 Sunset and the successor link of getPet. */
export function deprecationHeaders(deprecatedAt: Date, sunsetAt: Date, successor: string): OutgoingHttpHeaders {
  return {
    deprecation: `@${Math.floor(deprecatedAt.getTime() / 1000)}`,
    sunset: sunsetAt.toUTCString(),
    link: `<${successor}>; rel="successor-version"`,
  };
}
