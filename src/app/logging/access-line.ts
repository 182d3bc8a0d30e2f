import { pino } from 'pino';
import { RULE_MARKS, type RequestFinishedEvent } from '../../adapters/http/wire/request-finished.js';

/** Access lines are info lines. */
const INFO_LEVEL = pino.levels.values['info'];

/** Below this many hundredths a duration is written from integers; otherwise JSON's number text (null for what is not finite, as pino writes it). */
const INTEGER_DIGITS_UP_TO = 1e15;

/**
 * Milliseconds rounded to hundredths, as JavaScript writes `Math.round(ms * 100) / 100` (`7.76`,
 * `7.8`, `7`), from integers: writing a double takes five times as long.
 */
const hundredths = (ms: number): string => {
  const count = Math.round(ms * 100);
  if (!(count >= 0 && count < INTEGER_DIGITS_UP_TO)) return JSON.stringify(count / 100);
  const whole = Math.floor(count / 100);
  const fraction = count - whole * 100;
  if (fraction === 0) return `${whole}`;
  if (fraction % 10 === 0) return `${whole}.${fraction / 10}`;
  return `${whole}.${fraction < 10 ? '0' : ''}${fraction}`;
};

/** Distinct keys whose line endings are kept; past it they are forgotten and built again as they come. */
const REMEMBERED_KEYS = 10_000;

interface Ending {
  readonly plan: string;
  readonly verdict: string | null;
  readonly completed: boolean;
  readonly text: string;
}

/** The line from the key on; `marks` is the fields of rules named (RULE_MARKS), each with its comma, or empty. */
const endingText = (key: string, plan: string, verdict: string | null, marks: string, completed: boolean): string =>
  `,"key":${JSON.stringify(key)},"plan":${JSON.stringify(plan)},"verdict":${JSON.stringify(verdict)},${marks}${completed ? '' : '"aborted":true,'}"msg":"request"}\n`;

/** A field naming rules, with its comma; empty when it names none. */
const rulesField = (name: string, rules: readonly string[] | null): string => (rules === null ? '' : `"${name}":${JSON.stringify(rules)},`);

/**
 * Access lines, each byte for byte what pino writes for `info({ requestId, method, route,
 * status, durationMs, path, bytes, client, userAgent, key, plan, verdict[, shadowed][, refunded][, refundLost][, aborted] }, 'request')` with our base and time
 * fields (a property test holds the two to each other).
 *
 * A line is joined from five pieces: what comes before the request id (the same for every
 * line of a millisecond), the request id, the method, route and status (the same for every
 * request of an operation and status), the duration, and the key, plan and verdict (the same
 * for a caller's requests). The fixed pieces are built once and remembered, so a line costs
 * four string joins. Built field by field, a line took 25, and flattening them into one
 * string for the write cost as much again: together 4 of the 7 µs the access log added to a
 * request, where pino's generic serialisation of the same fields took twice that.
 */
export class AccessLines {
  #timeField = '';
  #start = '';
  readonly #middles = new Map<string, Map<string | null, Map<number, string>>>();
  readonly #endings = new Map<string, Ending>();

  /** `timeField` gives pino's `,"time":"…"` of a time, the same string for the same time. */
  constructor(
    private readonly pid: number,
    private readonly timeField: (time: number) => string,
  ) {}

  line(event: RequestFinishedEvent): string {
    // A request id needs no escaping (RequestId); a scan of its characters cost a tenth of the line.
    // Path, client and user agent vary by request: written as they come, as JSON.stringify writes them (as pino does).
    const { path, bytes, client, userAgent } = event;
    const asked = `,"path":${JSON.stringify(path)},"bytes":${bytes},"client":${JSON.stringify(client)},"userAgent":${userAgent === null ? 'null' : JSON.stringify(userAgent)}`;
    return `${this.#startOfLine(event.finishedAt)}${event.requestId}${this.#middle(event)}${hundredths(event.durationMs)}${asked}${this.#ending(event)}`;
  }

  #startOfLine(finishedAt: number): string {
    const time = this.timeField(finishedAt);
    if (time !== this.#timeField) {
      this.#timeField = time;
      this.#start = `{"level":${INFO_LEVEL}${time},"pid":${this.pid},"requestId":"`;
    }
    return this.#start;
  }

  #middle({ method, route, status }: RequestFinishedEvent): string {
    let routes = this.#middles.get(method);
    if (routes === undefined) this.#middles.set(method, (routes = new Map()));
    let statuses = routes.get(route);
    if (statuses === undefined) routes.set(route, (statuses = new Map()));
    let text = statuses.get(status);
    if (text === undefined) statuses.set(status, (text = `","method":${JSON.stringify(method)},"route":${JSON.stringify(route)},"status":${status},"durationMs":`));
    return text;
  }

  #ending(event: RequestFinishedEvent): string {
    const { key, plan, verdict, completed } = event;
    let marks = '';
    for (const mark of RULE_MARKS) marks += rulesField(mark, event[mark]);
    // A would-be refusal or a refund is rare and its names vary: its ending is built for it alone, never remembered.
    if (marks !== '') return endingText(key, plan, verdict, marks, completed);
    const known = this.#endings.get(key);
    if (known !== undefined && known.plan === plan && known.verdict === verdict && known.completed === completed) return known.text;
    if (this.#endings.size >= REMEMBERED_KEYS) this.#endings.clear();
    const text = endingText(key, plan, verdict, '', completed);
    this.#endings.set(key, { plan, verdict, completed, text });
    return text;
  }
}
