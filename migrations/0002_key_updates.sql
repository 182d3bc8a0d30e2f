-- rollout: expand (a nullable column the release before never reads)
-- When `petstore keys update` last changed a key (epoch milliseconds); NULL: never.
ALTER TABLE api_keys ADD COLUMN updated_at bigint;
