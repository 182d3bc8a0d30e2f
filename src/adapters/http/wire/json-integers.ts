// Only digits before '.', 'e' or 'E' can make a fraction or an exponent: most bodies skip the scan.
const FRACTION_OR_EXPONENT = /[0-9][.eE]/;
const NUMBER = /-?([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?/y;

/** Whether the decimal text `digits` × 10^(exponent) with a point after `integerDigits` digits is a whole number. */
const isWholeNumber = (integerPart: string, fraction: string, exponent: number): boolean => {
  const digits = integerPart + fraction;
  const point = integerPart.length + exponent;
  for (let i = Math.max(0, point); i < digits.length; i++) if (digits.charCodeAt(i) !== 48) return false;
  return true;
};

export interface DisguisedFraction {
  /** The object member the number is the value of, when there is one. */
  readonly member: string | undefined;
  readonly source: string;
}

/**
 * The first number of valid JSON text that is not a whole number in its source text although
 * JSON.parse makes it one: `9007199254740990.5` parses to 9007199254740990 and
 * `1.0000000000000000001` to 1. Every number this API reads is an integer, so such a number
 * is refused rather than rounded. `3.0` and `1e2` are whole numbers and pass.
 */
export function findDisguisedFraction(json: string): DisguisedFraction | undefined {
  if (!FRACTION_OR_EXPONENT.test(json)) return undefined;
  let lastString: string | undefined;
  let member: string | undefined;
  for (let i = 0; i < json.length; i++) {
    const char = json.charCodeAt(i);
    if (char === 34 /* " */) {
      const start = i + 1;
      for (i = start; json.charCodeAt(i) !== 34; i++) if (json.charCodeAt(i) === 92 /* \ */) i++;
      lastString = json.slice(start, i);
    } else if (char === 58 /* : */) {
      member = lastString === undefined ? undefined : (JSON.parse(`"${lastString}"`) as string);
    } else if (char === 45 /* - */ || (char >= 48 && char <= 57)) {
      NUMBER.lastIndex = i;
      const match = NUMBER.exec(json)!;
      const [source, integerPart = '', fraction = '', exponent = '0'] = match;
      if (!isWholeNumber(integerPart, fraction, Number(exponent)) && Number.isInteger(Number(source))) {
        return { member, source };
      }
      i += source.length - 1;
    }
  }
  return undefined;
}
