/**
 * pino's time field (`,"time":"2026-11-23T08:00:00.123Z"`) for a time in epoch milliseconds. Under
 * load many lines share a millisecond and all lines of a second share everything up to the
 * milliseconds: `toISOString` (about 900 ns) runs once per second, and a new millisecond only
 * writes its three digits.
 */
export const isoTimeField = (): ((time: number) => string) => {
  let at = Number.NaN;
  let field = '';
  let second = Number.NaN;
  let upToMillis = '';
  return (time) => {
    if (time === at) return field;
    at = time;
    const millis = ((time % 1_000) + 1_000) % 1_000;
    if (time - millis !== second) {
      second = time - millis;
      const iso = new Date(time).toISOString();
      // Everything but the milliseconds and the Z: `2026-11-23T08:00:00.`
      upToMillis = `,"time":"${iso.slice(0, -4)}`;
    }
    field = `${upToMillis}${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}Z"`;
    return field;
  };
};
