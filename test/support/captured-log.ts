import { Writable } from 'node:stream';

/** A stream for a logger under test that keeps what is written to it: its JSON lines, parsed. */
export function capturedLog<Line = Record<string, unknown>>(): { readonly stream: Writable; lines(): Line[] } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return {
    stream,
    lines: () =>
      text
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Line),
  };
}
