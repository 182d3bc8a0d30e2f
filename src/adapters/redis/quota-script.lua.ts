/*
 * The script of RedisQuotaStore (lua/quota.lua, where its hash, arguments and reply are
 * stated), composed once when this module loads with the constants below and the domain's: the
 * granule count and the buckets a rule counts are the domain's, never typed in Lua.
 */
import { MAX_BURST_LEVEL } from '../../domain/quota/burst-bucket.js';
import { GRANULES_PER_WINDOW, RING } from '../../domain/quota/sliding-window-counter.js';
import { composeLua } from './lua-source.js';

/** The verdicts as the script answers them: the index of each. */
export const VERDICT_CODES = ['admitted', 'rate_limited', 'banned'] as const;

/** How a decide call answers: as a decision, as a peek, or as a decision reporting a refusal's strikes. */
export const DECIDE_MODES = { decide: '', peek: 'p', reportStrikes: 's' } as const;

/** What stands for a call's number of values in the reply when it has none: no ban after strikes, or it failed (its error follows the packed replies). */
export const REPLY_MARKS = { none: -1, failed: -2 } as const;

/** A rule's mode as a policy's arguments give it. */
export const RULE_MODE_ARGS = { enforce: 'e', shadow: 's' } as const;

/**
 * Before a burst rule's windowMs in a policy's arguments (`b1000`), and so in the windows a
 * subject's hash was kept for: a burst rule's state is not a window's.
 */
export const BURST_WINDOW_MARK = 'b';

/** Between the costs of a decision's rules, when they differ (one number: that cost under every rule). */
export const COST_SEPARATOR = ',';

/** What a call of the batch is: its first argument. */
export const CALL_KINDS = { decide: 'd', strikes: 's', refund: 'f', reset: 'r' } as const;

/**
 * The layout of a subject's hash (its field `v`): what every field holds and how the rings are
 * packed, for GRANULES_PER_WINDOW. Raise it with any change of what the stored bytes mean (the
 * granule count, an encoding, a field), and migrate the layouts before it in the script: an
 * instance of the old script fails its calls on counters of the new layout (QUOTA_LAYOUT_ERROR)
 * rather than misread them, so during a rolling deploy the older instances answer those
 * subjects by their quota outage policy. A hash without `v` was made before layouts were
 * numbered, in layout 1's bytes.
 */
export const QUOTA_LAYOUT = 1;

/** The error code of a call on counters of another layout: an unavailable store to this instance (redis-failures.ts). */
export const QUOTA_LAYOUT_ERROR = 'QUOTALAYOUT';

/** Every call of RedisQuotaStore made in one event-loop turn, in one script call (lua/quota.lua). */
export const QUOTA_CALLS_LUA = composeLua('quota.lua', {
  ADMITTED: VERDICT_CODES.indexOf('admitted'),
  RATE_LIMITED: VERDICT_CODES.indexOf('rate_limited'),
  BANNED: VERDICT_CODES.indexOf('banned'),
  PEEK: DECIDE_MODES.peek,
  REPORT_STRIKES: DECIDE_MODES.reportStrikes,
  REPLY_NONE: REPLY_MARKS.none,
  REPLY_FAILED: REPLY_MARKS.failed,
  CALL_DECIDE: CALL_KINDS.decide,
  CALL_STRIKES: CALL_KINDS.strikes,
  CALL_REFUND: CALL_KINDS.refund,
  SHADOW: RULE_MODE_ARGS.shadow,
  BURST: BURST_WINDOW_MARK,
  MAX_BURST_LEVEL,
  COST_SEPARATOR,
  GRANULES: GRANULES_PER_WINDOW,
  RING,
  QUOTA_LAYOUT,
  LAYOUT_ERROR: QUOTA_LAYOUT_ERROR,
});
