import { ALL_SECTIONS } from '../config/config.js';
import { KEY_VERBS } from './keys/verbs.js';
import { flaggedSettings, flagUsage } from './setting-flags.js';

/** The server reads every section: each setting's flag mirrors its environment variable (docs/configuration.md) and wins over it. */
export const SERVER_FLAGS = flaggedSettings(ALL_SECTIONS);

export const USAGE = `Usage: petstore ${flagUsage(SERVER_FLAGS, ' '.repeat('Usage: petstore '.length))}
       petstore keys ${KEY_VERBS.map((verb) => verb.name).join('|')} ...   (see petstore keys --help)
       petstore migrate [--dry-run] ...   (see petstore migrate --help)
Every flag can be given as its environment variable instead (see docs/configuration.md).`;
