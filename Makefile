# teammem — the Makefile is the entry point; CI calls the same targets.
SHELL := /bin/bash
GO ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)
PKGS := ./...
BENCHTIME ?= 1s
FUZZTIME ?= 60s

.PHONY: all build dist run test test-go quickstart-test cross lint bench pgo load fuzz fuzz-smoke soak clean

all: build

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/ ./cmd/...

## dist: release archives of static binaries for linux, darwin and windows on
## amd64 and arm64 with SHA256SUMS, into dist/ (VERSION=v1.2.3 to name it).
dist:
	VERSION=$(VERSION) GO=$(GO) scripts/dist.sh

## run: the server on the embedded store, no setup (data in ./.teammem).
run:
	CGO_ENABLED=0 $(GO) run -trimpath -ldflags '$(LDFLAGS)' ./cmd/teammem-server serve

## test: every test, Postgres included (a throwaway cluster is started unless
## TEAMMEM_TEST_DATABASE_URL names one), plus lint, cross builds, the fuzz
## smoke run and the README quick start; fails if any process the tests
## started is still running afterwards (scripts/leakcheck.sh).
test: lint cross
	scripts/leakcheck.sh scripts/pg.sh with $(MAKE) --no-print-directory test-go fuzz-smoke quickstart-test

test-go:
	$(GO) test -count=1 -timeout 20m $(PKGS)

quickstart-test:
	scripts/quickstart-test.sh

cross:
	@for os in linux darwin windows; do \
		echo "cross-build $$os"; \
		GOOS=$$os GOARCH=amd64 CGO_ENABLED=0 $(GO) build -o /dev/null ./memcore/... ./client/... ./cmd/teammem-agent || exit 1; \
		GOOS=$$os GOARCH=amd64 CGO_ENABLED=0 $(GO) vet ./memcore/... ./client/... ./cmd/teammem-agent || exit 1; \
	done
	GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 $(GO) build -o /dev/null ./cmd/... 

lint:
	$(GO) vet $(PKGS)
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) tool staticcheck $(PKGS)

## bench: Go benchmarks, then the load generator against a real server.
bench:
	scripts/pg.sh with $(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) $(PKGS)
	scripts/bench-server.sh

## pgo: profile the server under load on both stores into
## cmd/teammem-server/default.pgo, which go build uses to optimise it.
pgo:
	scripts/pgo-profile.sh

fuzz-smoke:
	scripts/fuzz.sh 20000x

fuzz:
	scripts/fuzz.sh $(FUZZTIME)

## soak: the long runs: the randomized multi-agent run (e2e TestSoakRandomized)
## for SOAK_DURATION (SOAK_SEED=N replays a run's operations; make test runs
## it for 40 s), the in-process MEMORY.md append soak (-tags soak), 100 kills
## during a pull, the idle agent's CPU.
SOAK_DURATION ?= 10m
soak:
	SOAK=1 SOAK_DURATION=$(SOAK_DURATION) scripts/pg.sh with $(GO) test -tags soak -count=1 -timeout 120m -run 'Soak|KillDuringPull' ./...

clean:
	rm -rf bin dist .teammem
