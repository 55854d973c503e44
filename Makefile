# elicit — see README.md.
GO      ?= go
GOTEST  ?= $(GO) test -race -count=1
PKGS    ?= ./...

.PHONY: all test vet build generate check-generated bench demo

BIN := bin

all: build test

build:
	$(GO) build ./...

vet:
	$(GO) vet ./...

# test runs everything the suite needs; it installs what it uses (Go modules).
test: vet
	$(GOTEST) -timeout 20m $(PKGS)

generate:
	$(GO) generate ./...

# check-generated regenerates every committed generated file and fails if any changed.
check-generated: generate
	@git diff --exit-code --stat -- . || { echo "stale generated files: run 'make generate' and commit"; exit 1; }
	@test -z "$$(git status --porcelain --untracked-files=all -- '*_elicit.go')" || { git status --porcelain -- '*_elicit.go'; echo "untracked generated files"; exit 1; }

# demo generates, builds, starts examples/ze on a free loopback port and drives
# an accepted and a declined elicitation through it with mcptest --trace.
demo:
	$(GO) generate ./examples/ze
	$(GO) build -o $(BIN)/ ./examples/ze ./cmd/mcptest
	$(GO) run ./internal/demo -bin $(BIN) -scripts testdata/demo

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
