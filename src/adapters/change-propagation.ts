/**
 * How long an operator's change (a key updated or revoked, a key's quota reset by unban) may
 * take to reach every instance: the longest an instance answers from what it remembers.
 */
export const CHANGES_REACH_INSTANCES_MS = 5_000;

/** The bound as messages state it: `every instance refuses it ${WITHIN_CHANGES_REACH_INSTANCES}`. */
export const WITHIN_CHANGES_REACH_INSTANCES = `within ${CHANGES_REACH_INSTANCES_MS / 1_000} s`;
