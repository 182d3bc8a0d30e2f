-- rollout: contract (the release before finds keys by `digest` alone: it would go on accepting
-- a secret a roll replaced, and refuse the new one)
-- Rolled keys (petstore keys roll). `digest` stays the digest a key was created with: its quota
-- and its orders are known by it, whatever its secret is now. After a roll, `secret_digest` is the
-- current secret's digest (NULL: `digest` itself), and `previous_digest` the secret before the
-- last roll, accepted until `previous_until` (epoch ms, exclusive), when it had a grace; both stay
-- until the next roll, so a digest is never handed out twice. Keys made before this migration are
-- keys never rolled.
ALTER TABLE api_keys
  ADD COLUMN secret_digest   text UNIQUE,
  ADD COLUMN previous_digest text UNIQUE,
  ADD COLUMN previous_until  bigint,
  ADD COLUMN rolled_at       bigint;
