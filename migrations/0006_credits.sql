-- rollout: expand (new tables the release before never reads)
-- Plans' credit balances and their usage ledger (src/ports/credit-ledger.ts): records, so a spend
-- acknowledged is never lost, as an order is not. Amounts are whole units up to MAX_CREDITS
-- (10^12), periods epoch milliseconds: bigint. Subjects compare byte by byte (COLLATE "C"), so the
-- usage's order by subject is the same on every server, whatever its locale.

-- A key's balance now: the period it is of, and the balance the last refill started from and its
-- period (a late refund of a request spent before the refill is reckoned against them).
CREATE TABLE credit_balances (
  subject        text COLLATE "C" PRIMARY KEY,
  balance        bigint NOT NULL CHECK (balance >= 0),
  period         bigint NOT NULL,
  before_balance bigint,
  before_period  bigint,
  CHECK ((before_balance IS NULL) = (before_period IS NULL))
);

-- One row per key and period, written in the transaction that moves its balance: over a key's
-- whole life, balance = initial + refilled + adjusted - spent + refunded.
CREATE TABLE credit_usage (
  subject  text COLLATE "C" NOT NULL,
  period   bigint NOT NULL,
  spent    bigint NOT NULL DEFAULT 0,
  spends   bigint NOT NULL DEFAULT 0,
  refused  bigint NOT NULL DEFAULT 0,
  refunded bigint NOT NULL DEFAULT 0,
  refunds  bigint NOT NULL DEFAULT 0,
  refilled bigint NOT NULL DEFAULT 0,
  adjusted bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (subject, period)
);
