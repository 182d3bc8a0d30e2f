/** A bench setting from the environment: a positive number, else the run stops saying which. */
export const positiveFromEnv = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!(value > 0)) throw new Error(`${name} must be a positive number`);
  return value;
};

/** A comma list of names from the environment, each one of `known` (all of them unless given), else the run stops saying which. */
export const namesFromEnv = <Name extends string>(variable: string, known: readonly Name[]): Name[] => {
  const names = (process.env[variable] ?? known.join(',')).split(',').filter((name) => name !== '');
  for (const name of names) if (!(known as readonly string[]).includes(name)) throw new Error(`${variable}: ${name} is none of ${known.join(', ')}`);
  return names as Name[];
};
