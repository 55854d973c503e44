#!/usr/bin/env bash
# Runs every fuzz target of every module in MODULES (default: the root
# module) for FUZZTIME each (make fuzz).
# Seeds (f.Add and testdata/fuzz corpora) already run in make test; this
# explores beyond them. Failing inputs land in testdata/fuzz/ of the package,
# to be committed as regression seeds once fixed.
set -euo pipefail
cd "$(dirname "$0")/../.."
fuzztime=${FUZZTIME:-10s}
status=0
root=$(pwd)
for mod in ${MODULES:-.}; do
  cd "$root/$mod"
  for pkg in $(go list ./...); do
    targets=$(go test -list '^Fuzz' "$pkg" 2>/dev/null | grep '^Fuzz' || true)
    for target in $targets; do
      echo "== $pkg $target ($fuzztime)"
      if ! go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$pkg" 2>&1 | tail -3; then
        status=1
      fi
    done
  done
done
exit $status
