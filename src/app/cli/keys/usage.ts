import { err, ok } from '../../../domain/result.js';
import { readUsageFormat, readUsageRange, type UsageFormat, type UsageRange } from '../../keys/credit-fields.js';
import { USAGE_COLUMNS, usageCsv, usageJson } from '../../keys/usage-export.js';
import { refused } from './key-lines.js';
import { single, type KeyVerb } from './key-verb.js';

const KEY = 'key';
const FROM = 'from';
const TO = 'to';
const FORMAT = 'format';

export const usageVerb: KeyVerb<{ readonly kind: 'usage'; readonly keyId?: string; readonly range: UsageRange; readonly format: UsageFormat }> = {
  name: 'usage',
  synopsis: 'usage [--key ID] [--from YYYY-MM[-DD]] [--to YYYY-MM[-DD]] [--format csv|json]',
  notes: `usage writes the credit ledger to stdout, one row per key and period (periods starting from
--from's first day through --to's last, UTC), as CSV with a header line (default) or a JSON array:
${USAGE_COLUMNS.map(([name, text]) => `  ${name.padEnd(10)}${text}`).join('\n')}
Over a key's life: balance = initial + refilled + adjusted - spent + refunded.`,
  flags: [KEY, FROM, TO, FORMAT],
  parse(operands, flags) {
    if (operands.length > 0) return err(`usage takes no argument: ${JSON.stringify(operands[0])} (--key ID names one key)`);
    const name = (field: string) => `--${field}`;
    const range = readUsageRange(single(flags[FROM]), single(flags[TO]), name);
    if (!range.ok) return range;
    const format = readUsageFormat(single(flags[FORMAT]), name, 'csv');
    if (!format.ok) return format;
    const keyId = single(flags[KEY]);
    return ok({ kind: 'usage', ...(keyId === undefined ? {} : { keyId }), range: range.value, format: format.value });
  },
  async run({ keyId, range, format }, { operations, output }) {
    const rows = await operations.credits.usage(keyId, range);
    if (!rows.ok) return refused(keyId ?? '', rows.error, output);
    // The CSV's lines end in CRLF (RFC 4180): the last line's LF is the one `out` adds.
    output.out(format === 'csv' ? usageCsv(rows.value).slice(0, -1) : usageJson(rows.value));
    return 0;
  },
};
