/** A bench setting from the environment: a positive number, else the run stops saying which. */
export const positiveFromEnv = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!(value > 0)) throw new Error(`${name} must be a positive number`);
  return value;
};
