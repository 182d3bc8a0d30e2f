/**
 * More than one Authorization or Host header. Node keeps the first and drops the others, so
 * which key the client meant, or which host, cannot be known: such a request is a 400.
 */
export function hasRepeatedCredentials(rawHeaders: readonly string[]): boolean {
  let authorization = 0;
  let host = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    // Lengths first: most headers are neither, and comparing lengths allocates nothing.
    if (name.length === 13 && name.toLowerCase() === 'authorization') authorization++;
    else if (name.length === 4 && name.toLowerCase() === 'host') host++;
  }
  return authorization > 1 || host > 1;
}
