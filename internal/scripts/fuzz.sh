#!/usr/bin/env bash
# Runs every fuzz target of the module for FUZZTIME each (make fuzz).
# Seeds (f.Add and testdata/fuzz corpora) already run in make test; this
# explores beyond them. Failing inputs land in testdata/fuzz/ of the package,
# to be committed as regression seeds once fixed.
set -euo pipefail
cd "$(dirname "$0")/../.."
fuzztime=${FUZZTIME:-10s}
status=0
for pkg in $(go list ./...); do
  targets=$(go test -list '^Fuzz' "$pkg" 2>/dev/null | grep '^Fuzz' || true)
  for target in $targets; do
    echo "== $pkg $target ($fuzztime)"
    if ! go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$pkg" 2>&1 | tail -3; then
      status=1
    fi
  done
done
exit $status
