import { err, ok, type Result } from '../../domain/result.js';

/**
 * The sections of the settings table, in the order the docs list them, each with its title: a
 * command reads the sections it needs (`loadSettings`), never the server's whole configuration.
 */
export const SECTIONS = {
  environment: 'Environment',
  logging: 'Logging',
  http: 'HTTP server',
  store: 'Store',
  redis: 'Redis',
  postgres: 'PostgreSQL',
  plans: 'Plans',
  keys: 'API keys',
  quota: 'Quotas',
  ban: 'Bans',
  admin: 'Admin listener',
  traces: 'Traces',
  shutdown: 'Shutdown',
  workers: 'Workers',
} as const;
export type SectionName = keyof typeof SECTIONS;

/** What a setting accepts, as data: its parser refuses by it, and the usage and the docs print it. */
export type Range =
  | { readonly kind: 'whole'; readonly min: number; readonly max: number; readonly auto: boolean }
  | { readonly kind: 'oneOf'; readonly values: readonly string[] }
  | { readonly kind: 'text'; readonly accepts: string };

/** One setting: one environment variable, its flag if any, its default, parser, range and description. */
export interface Setting<Value, Section extends SectionName = SectionName> {
  readonly variable: string;
  /** Without its `--`; undefined: the variable only (a secret on a command line shows in the process list). */
  readonly flag: string | undefined;
  readonly section: Section;
  readonly description: string;
  readonly range: Range;
  /** The flag's value in a usage line: `N`, `URL`, `memory|redis|postgres`. */
  readonly metavar: string;
  /** Described, never echoed, in a refusal. */
  readonly secret: boolean;
  /** The default as the docs print it, staging and production's too when they differ. */
  readonly defaultText: string;
  defaultFor(deployed: boolean): Value;
  parse(raw: string): Result<Value, string>;
}

interface Common<Section extends SectionName> {
  readonly variable: string;
  readonly flag?: string;
  readonly section: Section;
  readonly description: string;
  readonly secret?: boolean;
}

interface Defaults<Value> {
  readonly default: Value;
  /** The default in staging and production, where it differs. */
  readonly deployed?: Value;
  /** The default in words, where its value does not say it (none, or another component's). */
  readonly defaultText?: string;
}

const code = (text: string): string => `\`${text}\``;

function setting<Value, Section extends SectionName>(
  spec: Common<Section> & Defaults<Value>,
  shape: { readonly range: Range; readonly metavar: string; readonly show: (value: Value) => string; parse(raw: string): Result<Value, string> },
): Setting<Value, Section> {
  const { default: local, deployed = local } = spec;
  const shown = spec.defaultText ?? (local === deployed ? code(shape.show(local)) : `${code(shape.show(local))} (${code(shape.show(deployed))} in staging and production)`);
  return {
    variable: spec.variable,
    flag: spec.flag,
    section: spec.section,
    description: spec.description,
    secret: spec.secret ?? false,
    range: shape.range,
    metavar: shape.metavar,
    defaultText: shown,
    defaultFor: (isDeployed) => (isDeployed ? deployed : local),
    parse: shape.parse,
  };
}

/** A whole number from `min` to `max`; with `auto`, that word too, standing for the number it computes. */
export function wholeNumber<Value extends number | undefined, Section extends SectionName>(
  spec: Common<Section> & Defaults<Value> & { readonly min: number; readonly max: number; readonly metavar?: string; readonly auto?: () => number },
): Setting<Value | number, Section> {
  const { min, max, auto } = spec;
  const range = { kind: 'whole', min, max, auto: auto !== undefined } as const;
  return setting<Value | number, Section>(spec, {
    range,
    metavar: `${spec.metavar ?? 'N'}${auto === undefined ? '' : '|auto'}`,
    show: String,
    parse: (raw) => {
      if (auto !== undefined && raw === 'auto') return ok(auto());
      const value = /^[0-9]+$/.test(raw) ? Number(raw) : Number.NaN;
      return value >= min && value <= max ? ok(value) : err(`must be ${describeRange(range)}`);
    },
  });
}

/** One of a few words. */
export function oneOf<const Word extends string, Section extends SectionName>(
  spec: Common<Section> & Defaults<NoInfer<Word>> & { readonly values: readonly Word[] },
): Setting<Word, Section> {
  const { values } = spec;
  return setting<Word, Section>(spec, {
    range: { kind: 'oneOf', values },
    metavar: values.join('|'),
    show: String,
    parse: (raw) => {
      const found = values.find((value) => value === raw);
      return found === undefined ? err(`must be ${describeRange({ kind: 'oneOf', values })}`) : ok(found);
    },
  });
}

/** `on` or `off`. */
export function onOff<Section extends SectionName>(spec: Common<Section> & Defaults<boolean>): Setting<boolean, Section> {
  return setting<boolean, Section>(spec, {
    range: { kind: 'oneOf', values: ['on', 'off'] },
    metavar: 'on|off',
    show: (value) => (value ? 'on' : 'off'),
    parse: (raw) => (raw === 'on' ? ok(true) : raw === 'off' ? ok(false) : err('must be on or off')),
  });
}

/** Text of a shape its parser knows, which `accepts` states for the docs. */
export function text<Value, Section extends SectionName>(
  spec: Common<Section> &
    Defaults<Value> & {
      readonly accepts: string;
      readonly metavar: string;
      readonly parse: (raw: string) => Result<Value, string>;
      readonly show?: (value: Value) => string;
    },
): Setting<Value, Section> {
  return setting<Value, Section>(spec, { range: { kind: 'text', accepts: spec.accepts }, metavar: spec.metavar, show: spec.show ?? String, parse: spec.parse });
}

/** What a range accepts, in the words of a refusal: `must be ...`. */
export function describeRange(range: Range): string {
  switch (range.kind) {
    case 'whole':
      return `${range.auto ? 'auto or ' : ''}a whole number from ${range.min} to ${range.max}`;
    case 'oneOf':
      return `one of ${range.values.join(', ')}`;
    case 'text':
      return range.accepts;
  }
}
