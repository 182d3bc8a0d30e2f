#!/usr/bin/env bash
# The README's curl session, replayed against a fresh server: start it, create and list pets,
# fetch one, make mistakes, open the docs page, order a pet and move the order through its
# statuses with a staff key, replay an idempotent POST, spend a Free key's minute, then get it
# banned and read its quota. Bounded: 100 requests.
set -euo pipefail
cd "$(dirname "$0")/.."
port=${PORT:-8089}
npm run -s build
log=$(mktemp)
PORT=$port node dist/src/app/cli/cli.js >"$log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 1 50); do grep -q 'listening on' "$log" && break; sleep 0.1; done
KEY=$(grep -o 'demo-free-[0-9a-f]*' "$log" | head -1)
PRO=$(grep -o 'demo-pro-[0-9a-f]*' "$log" | head -1)
STAFF=$(grep -o 'demo-staff-[0-9a-f]*' "$log" | head -1)
B=http://127.0.0.1:$port/v1
show() { echo "\$ $*"; "$@" | grep -v -i -E '^(date|connection|keep-alive):' ; echo; }
H="Authorization: Bearer $KEY"

show curl -si -X POST -H "$H" -H 'Content-Type: application/json' -d '{"name":"Rex","categoryId":1}' "$B/pets"
# Shown like every other request, so the session replays by hand as the README prints it.
show curl -s -X POST -H "Authorization: Bearer $STAFF" -H 'Content-Type: application/json' -d '{"name":"Tom","categoryId":2,"status":"sold"}' "$B/pets"
show curl -s -X POST -H "$H" -H 'Content-Type: application/json' -d '{"name":"Kit","categoryId":2}' "$B/pets"
show curl -si -H "$H" "$B/pets?limit=1&status=available"
show curl -si -H "$H" "$B/pets/1"
show curl -s -H "$H" -H 'Content-Type: application/json' -d '{"name":"","categoryId":1.5}' "$B/pets"
show curl -si "$B/pets"
show curl -si "$B/docs"
J='Content-Type: application/json'
show curl -si -X POST -H "Authorization: Bearer $PRO" -H "$J" -H 'Idempotency-Key: order-rex-1' -d '{"petId":1}' "$B/store/orders"
show curl -si -X POST -H "Authorization: Bearer $PRO" -H "$J" -H 'Idempotency-Key: order-rex-1' -d '{"petId":1}' "$B/store/orders"
show curl -s -X POST -H "Authorization: Bearer $PRO" -H "$J" -d '{"petId":1}' "$B/store/orders"
show curl -s -H "Authorization: Bearer $PRO" "$B/store/orders"
show curl -s -X PATCH -H "Authorization: Bearer $PRO" -H "$J" -d '{"status":"approved"}' "$B/store/orders/1"
show curl -s -X PATCH -H "Authorization: Bearer $STAFF" -H "$J" -d '{"status":"approved"}' "$B/store/orders/1"
show curl -s -X PATCH -H "Authorization: Bearer $STAFF" -H "$J" -d '{"status":"delivered"}' "$B/store/orders/1"
show curl -s -X DELETE -H "Authorization: Bearer $PRO" "$B/store/orders/1"
show curl -s -H "Authorization: Bearer $PRO" "$B/store/inventory"
echo "\$ # 55 more requests: 60 in this minute"
for _ in $(seq 1 55); do curl -s -o /dev/null -w '%{http_code} ' -H "$H" "$B/pets"; done; echo; echo
show curl -si -H "$H" "$B/pets"
echo "\$ # 19 more before Retry-After: strikes"
for _ in $(seq 1 19); do curl -s -o /dev/null -w '%{http_code} ' -H "$H" "$B/pets"; done; echo; echo
show curl -si -H "$H" "$B/pets"
show curl -s -H "$H" "$B/rate_limit"
