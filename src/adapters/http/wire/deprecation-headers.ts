/** RFC 9745 Deprecation (a structured date), RFC 8594 Sunset and the successor link of getPet, as a header list. */
export function deprecationHeaders(deprecatedAt: Date, sunsetAt: Date, successor: string): readonly string[] {
  return [
    'deprecation',
    `@${Math.floor(deprecatedAt.getTime() / 1000)}`,
    'sunset',
    sunsetAt.toUTCString(),
    'link',
    `<${successor}>; rel="successor-version"`,
  ];
}
