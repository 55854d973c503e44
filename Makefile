# elicit — see README.md.
GO      ?= go
GOTEST  ?= $(GO) test -race -count=1
PKGS    ?= ./...

.PHONY: all test vet build generate check-generated bench bench-compare fuzz conformance demo vulncheck test-patched

BIN := bin

# MODULES are the repository's Go modules, as go.work lists them (see
# docs/modules.md): the root module, what only an adopter of one SDK, of
# NATS or of golangci-lint needs, the examples that use an SDK, and the
# developer programs. Every target below runs in each; PKGS is the package
# pattern inside each module. Targets that run one program (demo, bench, ...)
# use the workspace, go.work, from the root.
MODULES ?= . runtime/gosdk runtime/mcpgo runtime/natscluster gen/elicitform/golangci \
	examples/commit examples/gosdk examples/internal/booking examples/mcpgo examples/ze \
	internal/cmd

# each runs its command in every module: $(call each,go vet $(PKGS)).
each = set -e; for m in $(MODULES); do echo "== $$m: $(1)"; (cd $$m && $(1)); done

all: build test

build:
	@$(call each,$(GO) build -o /dev/null $(PKGS))

STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2

vet:
	@$(call each,$(GO) vet $(PKGS))
	@$(call each,$(GO) run $(STATICCHECK) $(PKGS))

# test runs everything the suite needs; it installs what it uses (Go modules,
# and under CI=true the Chromium the Inspector web UI test drives).
test: vet conformance chromium
	@$(call each,$(GOTEST) -timeout 20m $(PKGS))

# chromium installs Debian's chromium with apt-get when /usr/bin/chromium is
# missing and CI=true (CI runs as root on Debian); elsewhere the Inspector web
# UI test (internal/testsupport/interop/inspector) skips, saying why. That
# test installs its pinned Inspector, Node 22 and playwright-core itself, with
# npm ci from its committed package-lock.json.
.PHONY: chromium
chromium:
	@if [ "$$CI" = true ] && [ ! -x /usr/bin/chromium ]; then \
		echo "installing chromium for the Inspector web UI test"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium; \
	fi

generate:
	@$(call each,$(GO) generate $(PKGS))

# check-generated regenerates every committed generated file and fails if any changed.
check-generated: generate
	@git diff --exit-code --stat -- . || { echo "stale generated files: run 'make generate' and commit"; exit 1; }
	@test -z "$$(git status --porcelain --untracked-files=all -- '*_elicit.go')" || { git status --porcelain -- '*_elicit.go'; echo "untracked generated files"; exit 1; }

# demo generates, builds, starts examples/ze on a free loopback port and drives
# an accepted and a declined elicitation through it with mcptest --trace.
demo:
	$(GO) generate ./examples/ze
	$(GO) build -o $(BIN)/ ./examples/ze ./cmd/mcptest
	$(GO) run ./internal/cmd/demo -bin $(BIN) -scripts testdata/demo

# fuzz runs every fuzz target for FUZZTIME (default 10s) each.
FUZZTIME ?= 10s
fuzz:
	FUZZTIME=$(FUZZTIME) MODULES="$(MODULES)" bash internal/scripts/fuzz.sh

# bench runs internal/cmd/bench: the elicitation round trip, decoding and code
# generation side by side with go-sdk, mcp-go and a bare net/http floor (a few
# minutes on 2 cores). It prints the markdown report and leaves it, with raw
# benchstat-format output, in .tools/bench, with roundtrip.svg (round trips/s
# and p50 latency against concurrency). BENCHFLAGS=-quick: a smoke run;
# BENCHFLAGS='-conc 1,4,16,64 -plot internal/cmd/bench/roundtrip.svg': docs/benchmarks.md's plot.
bench:
	$(GO) run ./internal/cmd/bench $(BENCHFLAGS)

# bench-compare BASE=<commit> builds BASE's bench servers (a git worktree in
# a temporary directory) and the working tree's, and drives both with the
# working tree's load generator against the bare net/http floor, interleaved
# in one run (base, new and floor windows alternate every round, so machine
# noise hits all alike). It prints, per protocol (2025-11-25, 2026-07-28) and
# concurrency (1, 64), each one's time per round trip ÷ the floor's (median
# and interquartile range over rounds) and allocations per round trip, the
# memory per pending elicitation of both, and the load average at the start
# and end. The target (issue 23): at most 1.10× the floor on 2025-11-25 and
# 1.15× on 2026-07-28, at concurrency 1 and 64, and at most 37 kB per pending
# elicitation. Timings need a quiet machine: run it where the load average is
# below 1. BENCHFLAGS=-quick: a smoke run (3 short rounds; noise).
BASE ?= a72f6b6
bench-compare:
	$(GO) run ./internal/cmd/bench -compare $(BASE) $(BENCHFLAGS)

# load drives the runtime with 50 sessions × 20 concurrent eliciting calls in
# both eras (see internal/cmd/load) and fails on a lost result, a leak or a hang.
.PHONY: load
load:
	$(GO) run ./internal/cmd/load -sessions 50 -concurrency 20 -rounds 20

# load-hostile is the same run with the hostile mix of issue 15 beside it
# (batches, oversized initializes, a session flood, idle connections,
# unsolicited answers; see internal/cmd/load/hostile.go): it fails on a lost
# call, any check of the normal run, an idle connection the server did not
# close, an unsolicited answer that reached a handler,
# or a peak RSS above 384 MiB (the normal run alone peaks near 230).
.PHONY: load-hostile
load-hostile:
	$(GO) run ./internal/cmd/load -sessions 50 -concurrency 20 -rounds 20 -hostile -hostile-rounds 20

# demo-cluster starts 3 replicas clustered through an embedded NATS server
# (runtime/natscluster) behind a round-robin proxy without stickiness, on
# loopback, and drives mcptest through it in both eras (internal/cmd/cluster-demo).
.PHONY: demo-cluster
demo-cluster:
	$(GO) build -o $(BIN)/ ./cmd/mcptest
	$(GO) run ./internal/cmd/cluster-demo -mcptest $(BIN)/mcptest

# deploy-test runs internal/cmd/deploytest, issue 27's deployment test with
# real parts on loopback (about a minute): the real nats-server (built here
# at the version runtime/natscluster/go.mod requires), three examples/ze
# replicas clustered on it, Debian's nginx round-robin in front (the
# location block docs/deploy.md shows), go-sdk (2025-11-25) and mcptest's
# client (2026-07-28); a healthy load, a replica killed with kill -9, NATS
# restarted, a proxy read timeout shorter than the person and a dropped
# connection. It prints the table of lost calls and fails on a missed
# target. Under CI=true it installs nginx-light with apt-get when nginx is
# missing (as chromium does); elsewhere it skips without nginx, saying why.
# DEPLOYFLAGS=-keep keeps the run's directory (configurations and logs);
# DEPLOYFLAGS='-replica-flags="-v"' gives every ze process more flags.
.PHONY: deploy-test
deploy-test:
	@if [ "$$CI" = true ] && ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; then \
		echo "installing nginx-light for the deployment test"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nginx-light; \
	fi
	$(GO) build -o $(BIN)/ ./examples/ze
	cd runtime/natscluster && GOWORK=off $(GO) build -o ../../$(BIN)/nats-server github.com/nats-io/nats-server/v2
	$(GO) run ./internal/cmd/deploytest -ze $(BIN)/ze -nats-server $(BIN)/nats-server $(DEPLOYFLAGS)

# conformance runs the official MCP conformance suite, 0.1.16 and
# 0.2.0-alpha.12, against internal/cmd/conformance/fixture; every failure must be listed,
# with its reason, in internal/cmd/conformance/baseline.txt. Node 22 and both
# suites come from the committed package-lock.json (npm ci into .tools/).
CONFORMANCE_TOOLS ?= .tools/conformance

conformance: $(CONFORMANCE_TOOLS)/.installed
	$(GO) run ./internal/cmd/conformance -tools $(CONFORMANCE_TOOLS) -out $(CONFORMANCE_TOOLS)/out

$(CONFORMANCE_TOOLS)/.installed: internal/cmd/conformance/package.json internal/cmd/conformance/package-lock.json
	@command -v npm >/dev/null || { echo "make conformance needs npm (it installs Node 22 and the suite with npm ci)"; exit 1; }
	rm -rf $(CONFORMANCE_TOOLS)
	mkdir -p $(CONFORMANCE_TOOLS)
	cp internal/cmd/conformance/package.json internal/cmd/conformance/package-lock.json $(CONFORMANCE_TOOLS)/
	cd $(CONFORMANCE_TOOLS) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# vulncheck runs govulncheck ./... in every module against a pinned snapshot of the Go
# vulnerability database, taken from the module proxy as the module
# golang.org/x/vulndb (internal/scripts/vulncheck.sh says how). It fails when a
# vulnerable symbol is reachable from a module's code. The standard library
# checked is VULN_GO's: go1.27.3, the patched toolchain the module proxy serves
# here (this machine's go1.26.8 has ten reachable net/http, crypto/tls,
# crypto/x509 and net/textproto vulnerabilities, fixed in go1.26.9/go1.26.10;
# see them with VULN_GO=local). VULNDB_VERSION=latest: the newest snapshot.
VULNDB_VERSION ?= v0.0.0-20261105234957-e22db6528018
VULN_GO        ?= go1.27.3
GOVULNCHECK    ?= golang.org/x/vuln/cmd/govulncheck@v1.9.0

vulncheck:
	VULNDB_VERSION=$(VULNDB_VERSION) VULN_GO=$(VULN_GO) GOVULNCHECK=$(GOVULNCHECK) MODULES="$(MODULES)" bash internal/scripts/vulncheck.sh

# test-patched runs the race-enabled tests again on VULN_GO, the toolchain
# vulncheck vouches for, so that the release advice (build with it) is tested.
test-patched:
	@$(call each,GOTOOLCHAIN=$(VULN_GO) $(GOTEST) -timeout 20m $(PKGS))
