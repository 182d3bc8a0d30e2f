import { err, ok, type Result } from '../../domain/result.js';
import { SECTIONS, type SectionName, type Setting } from './setting.js';
import { SETTINGS, type Environment, type Settings } from './settings.js';
import { withoutPassword } from './value-parsers.js';

export type Environ = Readonly<Record<string, string | undefined>>;

type ValueOf<S> = S extends Setting<infer Value> ? Value : never;

/**
 * The values of the settings of `Section`, by their names in SETTINGS; the environment always,
 * since defaults depend on it.
 */
export type SettingsOf<Section extends SectionName> = { readonly environment: Environment } & {
  readonly [Name in keyof Settings as Settings[Name]['section'] extends Section ? Name : never]: ValueOf<Settings[Name]>;
};

/** The settings of `sections`, each read from its variable or, when unset or empty, its default. */
export function loadSettings<Section extends SectionName>(environ: Environ, sections: readonly Section[]): Result<SettingsOf<Section>, readonly string[]> {
  const { values, problems } = readSettings(environ, sections);
  return problems.length === 0 ? ok(values) : err(problems);
}

/** Every section: what a server reads. */
export const ALL_SECTIONS = Object.keys(SECTIONS) as SectionName[];

/**
 * Like loadSettings, and the values even when some are refused (their defaults stand in), so that
 * a caller's own rules across settings report their mistakes beside these: every mistake, one line each.
 */
export function readSettings<Section extends SectionName>(environ: Environ, sections: readonly Section[]): { values: SettingsOf<Section>; problems: string[] } {
  const problems: string[] = [];
  const read = <Value>(setting: Setting<Value>, deployed: boolean): Value => {
    const raw = environ[setting.variable];
    if (raw === undefined || raw === '') return setting.defaultFor(deployed);
    const parsed = setting.parse(raw);
    if (parsed.ok) return parsed.value;
    // Keys, tokens and passwords are described, never echoed; a URL is echoed without its password.
    const named = setting.secret ? setting.variable : `${setting.variable}=${JSON.stringify(withoutPassword(raw))}`;
    // A refusal of several mistakes (a plans file's) has one per line: each is a problem of its own.
    for (const problem of parsed.error.split('\n')) problems.push(`${named}: ${problem}`);
    return setting.defaultFor(deployed);
  };
  const environment = read(SETTINGS.environment, false);
  const deployed = environment === 'staging' || environment === 'production';
  const values: Record<string, unknown> = { environment };
  for (const [name, setting] of Object.entries(SETTINGS)) {
    if (name !== 'environment' && (sections as readonly SectionName[]).includes(setting.section)) values[name] = read<unknown>(setting, deployed);
  }
  if ((sections as readonly SectionName[]).includes('redis')) problems.push(...redisProblems(environ));
  return { values: values as SettingsOf<Section>, problems };
}

/**
 * REDIS_CLUSTER_NODES names a Cluster, REDIS_URL one Redis: both set is a mistake, not a choice
 * made for the operator. A Cluster's password is REDIS_PASSWORD, the same on every node; one
 * Redis's stays in its URL, so REDIS_PASSWORD without a Cluster is a mistake too.
 */
function redisProblems(environ: Environ): string[] {
  const given = ({ variable }: Setting<unknown>): boolean => environ[variable] !== undefined && environ[variable] !== '';
  const { redisUrl, redisClusterNodes, redisPassword } = SETTINGS;
  if (given(redisClusterNodes)) {
    return given(redisUrl)
      ? [`${redisUrl.variable} and ${redisClusterNodes.variable} are both set: set ${redisUrl.variable} for one Redis, or ${redisClusterNodes.variable} for a Redis Cluster`]
      : [];
  }
  return given(redisPassword)
    ? [`${redisPassword.variable} is for the nodes of ${redisClusterNodes.variable}; the password of one Redis goes in ${redisUrl.variable} (redis://:PASSWORD@host:6379)`]
    : [];
}
