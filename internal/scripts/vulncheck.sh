#!/usr/bin/env bash
# make vulncheck: govulncheck ./... in every module of MODULES (default:
# the root module) against a local copy of the Go
# vulnerability database.
#
# govulncheck normally asks the database's web service, which this project's
# machines and CI cannot reach. The same database is published as the Go
# module golang.org/x/vulndb (its data/osv folder holds every report as OSV
# JSON), so this script takes a pinned snapshot of that module from the module
# proxy, turns it into govulncheck's file layout with the database's own
# indexer (golang.org/x/vulndb/cmd/indexdb), and runs govulncheck -db file://.
# Nothing is added to this module's go.mod or go.sum.
#
# Settings (environment, set by the Makefile):
#   VULNDB_VERSION  the golang.org/x/vulndb version (a pinned pseudo-version,
#                   or "latest" for the newest snapshot the proxy serves)
#   VULN_GO         the Go toolchain whose standard library is checked
#                   ("local" = the machine's own go)
#   GOVULNCHECK     the govulncheck command, as a go run argument
#
# Exit status: govulncheck's — 0 when no vulnerable symbol is reachable from
# this module's code; 3 when one is. Findings in modules or packages that the
# code imports but never calls are printed and do not fail the check.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)

vulndb_version=${VULNDB_VERSION:?set VULNDB_VERSION}
vuln_go=${VULN_GO:-local}
govulncheck=${GOVULNCHECK:-golang.org/x/vuln/cmd/govulncheck@v1.9.0}

# Download outside this module so that go.sum is left alone.
json=$(cd / && go mod download -json "golang.org/x/vulndb@${vulndb_version}")
field() { printf '%s\n' "$json" | sed -n "s/^[[:space:]]*\"$1\": \"\(.*\)\",\{0,1\}\$/\1/p"; }
version=$(field Version)
src=$(field Dir)
if [ -z "$version" ] || [ -z "$src" ] || [ ! -d "$src/data/osv" ]; then
  echo "vulncheck: golang.org/x/vulndb@${vulndb_version} has no data/osv folder:" >&2
  printf '%s\n' "$json" >&2
  exit 1
fi

db="$root/.tools/vulndb/$version"
if [ ! -f "$db/index/db.json" ]; then
  echo "vulncheck: indexing $(ls "$src/data/osv" | wc -l) reports of golang.org/x/vulndb@$version"
  rm -rf "$db.tmp"
  mkdir -p "$(dirname "$db")"
  (cd / && go run "golang.org/x/vulndb/cmd/indexdb@$version" -vulns "$src/data/osv" -out "$db.tmp")
  rm -rf "$db"
  mv "$db.tmp" "$db"
fi

echo "vulncheck: database golang.org/x/vulndb@$version, toolchain $(GOTOOLCHAIN=$vuln_go go env GOVERSION)"
status=0
for mod in ${MODULES:-.}; do
  echo "vulncheck: module $mod"
  (cd "$root/$mod" && GOTOOLCHAIN=$vuln_go go run "$govulncheck" -db "file://$db" ./...) || status=$?
done
exit $status
