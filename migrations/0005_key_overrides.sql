-- rollout: expand (a nullable column the release before never reads: its instances decide a key
-- under its plan alone until they are replaced, so set overrides once the rollout is done)
-- A key's overrides of rules of its plan (petstore keys update --limit RULE=N):
-- {"search": {"limit": 60}, "burst": {"limit": 5, "mode": "shadow"}}. NULL or {}: none, as
-- every key made before this migration.
ALTER TABLE api_keys ADD COLUMN overrides jsonb;
