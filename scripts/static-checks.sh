#!/usr/bin/env bash
# npm test's static checks side by side: one after another they took 62 s on 2 cores, and each is
# mostly one thread. Each check's output is shown once it ends, whole, so failures do not interleave.
#
# With a command (`static-checks.sh vitest run`), the command runs in the foreground beside the
# checks and their outputs follow its own: npm test's 60 s of checks overlap vitest's first
# minutes instead of coming before them. The exit status is non-zero if the command or any check failed.
set -u
checks=(typecheck lint lint:deps)
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
pids=()
for check in "${checks[@]}"; do
  npm run -s "$check" >"$logs/${check//:/-}.log" 2>&1 &
  pids+=($!)
done
status=0
if [ "$#" -gt 0 ]; then
  "$@" || status=1
fi
for i in "${!checks[@]}"; do
  check=${checks[$i]}
  if wait "${pids[$i]}"; then
    echo "npm run $check: passed"
  else
    status=1
    echo "npm run $check: FAILED"
  fi
  cat "$logs/${check//:/-}.log"
done
exit "$status"
