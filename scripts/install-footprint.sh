#!/usr/bin/env bash
# What `npm install` of this package pulls in: packages and disk, for the light install (the
# package alone: the core, the limiter, the client) and for the server (with the packages its
# entries load, its optional peers). Packs the built package (run `npm run build` first) into a
# temp folder and installs from the registry's cache where it can.
# Usage: scripts/install-footprint.sh [--write]   (--write: the table goes into docs/embedding.md, between its footprint markers)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tarball=$(cd "$repo" && npm pack --ignore-scripts --silent --pack-destination "$work")
peers=$(node -e "const p=require('$repo/package.json'); console.log(Object.entries(p.peerDependencies ?? {}).map(([n, v]) => n + '@' + v).join(' '))")
measure() {
  local name=$1; shift
  mkdir "$work/$name"
  (cd "$work/$name" && npm init -y >/dev/null && npm install "$work/$tarball" "$@" --omit=dev --no-audit --no-fund --prefer-offline --silent >/dev/null)
  local count size
  count=$(find "$work/$name/node_modules" -name package.json -not -path '*/node_modules/*/node_modules/*/*' -path '*/node_modules/*/package.json' | grep -Ev '/node_modules/(@[^/]+/)?[^/]+/.+/package.json' | wc -l)
  size=$(du -sk "$work/$name/node_modules" | cut -f1)
  printf '| %s | %s | %.1f MB |\n' "$name" "$count" "$(echo "$size / 1024" | bc -l)"
}
table() {
  echo "| install | packages in node_modules | size of node_modules |"
  echo "|---|---:|---:|"
  measure light
  if [ -n "$peers" ]; then
    # shellcheck disable=SC2086
    measure server $peers
  fi
}
result=$(table)
echo "$result"
if [ "${1:-}" = "--write" ]; then
  FOOTPRINT="$result" node -e '
    const fs = require("node:fs");
    const file = process.argv[1];
    const text = fs.readFileSync(file, "utf8");
    const pattern = /(<!-- footprint:start -->\n)[\s\S]*?(<!-- footprint:end -->)/;
    if (!pattern.test(text)) throw new Error(file + " has no footprint markers");
    fs.writeFileSync(file, text.replace(pattern, (_, start, end) => start + process.env.FOOTPRINT + "\n" + end));
  ' "$repo/docs/embedding.md"
fi
