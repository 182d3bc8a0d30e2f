/**
 * The one knob for every property's strength: PETSTORE_PROPERTY_RUNS scales each property's
 * run count (`1`, the default, is the full strength CI runs; `npm run test:unit` runs a tenth).
 * A scaled property still runs at least a handful of cases, so none turns into a no-op.
 */
const FLOOR = 10;

function scaleOf(text: string | undefined): number {
  if (text === undefined || text === '') return 1;
  const scale = Number(text);
  if (!(scale > 0) || !Number.isFinite(scale)) throw new Error(`PETSTORE_PROPERTY_RUNS must be a positive number (a share of each property's full run count), not ${JSON.stringify(text)}`);
  return scale;
}

const SCALE = scaleOf(process.env['PETSTORE_PROPERTY_RUNS']);

/** `full` cases at full strength, scaled by PETSTORE_PROPERTY_RUNS. */
export function runs(full: number): number {
  return Math.max(Math.min(full, FLOOR), Math.round(full * SCALE));
}

/**
 * A count a property at full strength is sure to exceed (how often a case it must exercise came
 * up), scaled alike; halved when scaled down, as fewer runs vary more.
 */
export function share(fullCount: number): number {
  return SCALE >= 1 ? fullCount : Math.floor((fullCount * SCALE) / 2);
}
