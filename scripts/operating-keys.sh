#!/usr/bin/env bash
# The "Operating keys" walk-through of docs/keys.md, replayed against a fresh server on the local Redis
# (127.0.0.1:6379) under a prefix of its own: `petstore keys` creates a key, curl uses it, and the
# key is updated, shown, spent until banned, unbanned, rolled and revoked; then the same through
# the admin API with curl. Each step is printed as written below, then its output, so docs/keys.md
# shows exactly this. Bounded: under 80 requests, all to 127.0.0.1. At the end it deletes its own
# prefix's Redis keys, nothing else.
set -euo pipefail
cd "$(dirname "$0")/.."
npm run -s build

export PETSTORE_ENV=development PETSTORE_STORE=redis REDIS_URL=redis://127.0.0.1:6379
export PETSTORE_REDIS_PREFIX="walkthrough-$RANDOM$RANDOM:"
unset REDIS_CLUSTER_NODES REDIS_PASSWORD PETSTORE_WORKERS
prefix=$PETSTORE_REDIS_PREFIX
TOKEN=$(openssl rand -hex 32)
log=$(mktemp)
PORT=0 PETSTORE_ADMIN_PORT=0 PETSTORE_ADMIN_TOKEN=$TOKEN node dist/src/app/cli/cli.js >"$log" 2>&1 &
server=$!
cleanup() {
  kill "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  # Only this run's keys: never FLUSHDB.
  redis-cli -h 127.0.0.1 -p 6379 --scan --pattern "$prefix*" | xargs -r redis-cli -h 127.0.0.1 -p 6379 del >/dev/null
  rm -f "$log"
}
trap cleanup EXIT
for _ in $(seq 1 100); do grep -q '^Admin listening on' "$log" && break; sleep 0.1; done
if ! grep -q '^Admin listening on' "$log"; then cat "$log" >&2; exit 1; fi
B=$(grep -o -m 1 'http://127\.0\.0\.1:[0-9]*/v1' "$log")
ADMIN=$(sed -n 's/^Admin listening on \(http:[^ ]*\).*/\1/p' "$log")

# What docs/keys.md calls `petstore`: the built CLI, on the store exported above.
petstore() { node dist/src/app/cli/cli.js "$@"; }

# Prints one step as written (read from a here-document), then runs it and prints its output,
# without the headers that change at every run. The output is kept in $last.
last=''
show() {
  local command
  command=$(cat)
  printf '$ %s\n' "$command"
  last=$(eval "$command" 2>&1 | grep -v -i -E '^(date|connection|keep-alive|x-request-id):') || true
  if [ -n "$last" ]; then printf '%s\n' "$last"; fi
  echo
}
# A line of the last `petstore keys` output (`id:`, `key:`), or a string of the last JSON answer.
line() { sed -n "s/^$1: *//p" <<<"$last"; }
json() { sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p" <<<"$last"; }

show <<'EOF'
petstore keys create --plan pro --label "walk-through"
EOF
ID=$(line id) KEY=$(line key)
show <<'EOF'
curl -si -H "Authorization: Bearer $KEY" "$B/pets?limit=1"
EOF
show <<'EOF'
petstore keys update $ID --plan enterprise --per-minute 5 --per-day 100
EOF
show <<'EOF'
sleep 5   # each server caches a key for 5 s
EOF
show <<'EOF'
curl -si -H "Authorization: Bearer $KEY" "$B/pets?limit=1"
EOF
show <<'EOF'
petstore keys show $ID
EOF
show <<'EOF'
for i in $(seq 1 23); do curl -s -o /dev/null -w '%{http_code} ' -H "Authorization: Bearer $KEY" $B/pets; done; echo   # 3 left, a 429, 19 strikes
EOF
show <<'EOF'
curl -s -H "Authorization: Bearer $KEY" $B/pets
EOF
show <<'EOF'
petstore keys show $ID
EOF
show <<'EOF'
petstore keys unban $ID
EOF
show <<'EOF'
sleep 5
EOF
show <<'EOF'
curl -s -o /dev/null -w '%{http_code}\n' -H "Authorization: Bearer $KEY" $B/pets
EOF
show <<'EOF'
petstore keys roll $ID --grace 1h
EOF
NEW=$(line key)
show <<'EOF'
curl -s -o /dev/null -w '%{http_code}\n' -H "Authorization: Bearer $KEY" $B/pets   # the old key, in its grace
EOF
show <<'EOF'
curl -s -o /dev/null -w '%{http_code}\n' -H "Authorization: Bearer $NEW" $B/pets
EOF
show <<'EOF'
petstore keys show $ID
EOF
show <<'EOF'
petstore keys revoke $ID
EOF
show <<'EOF'
sleep 5
EOF
show <<'EOF'
curl -s -H "Authorization: Bearer $NEW" $B/pets
EOF
show <<'EOF'
petstore keys list
EOF

# The admin API: the same verbs over HTTP, on the admin listener, with the admin token.
show <<'EOF'
curl -si -X POST -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
     -d '{"plan":"free","label":"from the admin API"}' $ADMIN/keys
EOF
ID=$(json id) KEY=$(json secret)
show <<'EOF'
curl -s -o /dev/null -w '%{http_code}\n' -H "Authorization: Bearer $KEY" $B/pets
EOF
show <<'EOF'
curl -s -H "Authorization: Bearer $TOKEN" $ADMIN/keys/$ID
EOF
show <<'EOF'
curl -s -X PATCH -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
     -d '{"plan":"enterprise","perMinute":600}' $ADMIN/keys/$ID
EOF
show <<'EOF'
curl -s -X PATCH -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
     -d '{"plan":"enterprise","perMinute":600,"perDay":50000}' $ADMIN/keys/$ID
EOF
show <<'EOF'
curl -s -X POST -H "Authorization: Bearer $TOKEN" $ADMIN/keys/$ID/unban
EOF
show <<'EOF'
curl -s -X POST -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
     -d '{"grace":"0"}' $ADMIN/keys/$ID/roll
EOF
NEW=$(json secret)
show <<'EOF'
sleep 5
EOF
show <<'EOF'
curl -s -o /dev/null -w '%{http_code}\n' -H "Authorization: Bearer $KEY" $B/pets   # the old key: no grace
EOF
show <<'EOF'
curl -s -o /dev/null -w '%{http_code}\n' -H "Authorization: Bearer $NEW" $B/pets
EOF
show <<'EOF'
curl -s -X POST -H "Authorization: Bearer $TOKEN" $ADMIN/keys/$ID/revoke
EOF
show <<'EOF'
curl -s -X PATCH -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
     -d '{"label":"too late"}' $ADMIN/keys/$ID
EOF
show <<'EOF'
curl -s -H "Authorization: Bearer $TOKEN" $ADMIN/keys
EOF
show <<'EOF'
curl -si -H "Authorization: Bearer not-the-admin-token" $ADMIN/keys
EOF
