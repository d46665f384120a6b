# wright — build, test, demo. `make test` and `make demo` work on a fresh
# machine: they install what is missing (Chromium from the distribution,
# Go modules from the module proxy) first.

GO      ?= go
BIN     ?= bin/wright
SUDO    := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all build test test-short bench demo docs deps chromium bwrap fmt vet cross release clean

all: build

build: deps
	$(GO) build -o $(BIN) ./cmd/wright

# Chromium comes from the distribution's packages on Linux; on macOS the
# Chrome or Chromium the user has is used (wright finds it on PATH or in
# /Applications). rod is never allowed to download a browser of its own.
UNAME := $(shell uname -s)
ifeq ($(UNAME),Darwin)
chromium:
	@if command -v chromium >/dev/null 2>&1 || command -v google-chrome >/dev/null 2>&1 || \
	  [ -n "$$WRIGHT_BROWSER" ]; then exit 0; fi; \
	for d in /Applications "$$HOME/Applications"; do \
	  for b in Chromium "Google Chrome" "Google Chrome for Testing" "Google Chrome Canary"; do \
	    [ -d "$$d/$$b.app" ] && exit 0; \
	  done; \
	done; \
	echo "no Chrome or Chromium found: install Google Chrome (https://www.google.com/chrome/)"; \
	echo "or Chromium (brew install --cask chromium), or set WRIGHT_BROWSER to a browser's path"; \
	exit 1
else
chromium:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
	  command -v google-chrome >/dev/null 2>&1 || [ -n "$$WRIGHT_BROWSER" ] || { \
	    command -v apt-get >/dev/null 2>&1 || { \
	      echo "no Chrome or Chromium found: install chromium with your package manager, or set WRIGHT_BROWSER"; \
	      exit 1; }; \
	    echo "installing chromium (apt)"; \
	    $(SUDO) apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium >/dev/null; }
endif

# bubblewrap is the sandbox of the model's processes (env.sandbox); macOS
# has none, and elsewhere wright runs without it (wright doctor says so).
ifeq ($(UNAME),Darwin)
bwrap:
	@:
else
bwrap:
	@command -v bwrap >/dev/null 2>&1 || { \
	    command -v apt-get >/dev/null 2>&1 || { \
	      echo "no bubblewrap: install it with your package manager for the sandbox (wright runs without it)"; \
	      exit 0; }; \
	    echo "installing bubblewrap (apt)"; \
	    $(SUDO) apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq bubblewrap >/dev/null; }
endif

deps: chromium bwrap
	@command -v python3 >/dev/null 2>&1 || { echo "python3 is required"; exit 1; }
	$(GO) mod download

test: deps
	$(GO) vet ./...
	$(GO) test -timeout 15m ./...

test-short: deps
	$(GO) test -short ./...

# The Go benchmarks, then bench/perf: wright side by side with Playwright on
# pages from npm (needs node and npm; PERF_ROUNDS, PERF_REPS to adjust).
PERF_ROUNDS ?= 3
PERF_REPS   ?= 5
bench: build
	$(GO) test -run '^$$' -bench . -benchtime 2s ./env/workspace ./browser/...
	@if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then \
	  bench/perf/run.sh $(PERF_ROUNDS) $(PERF_REPS); \
	else echo "bench/perf skipped: it needs node and npm"; fi

demo: build
	$(BIN) demo

# The generated references: docs/cli/ from the commands, docs/config.md from
# the built-in YAML and the key table (TestDocsUpToDate checks them).
docs:
	$(GO) run ./cmd/wright gen-docs docs

fmt:
	gofmt -w $$(git ls-files '*.go')

vet:
	$(GO) vet ./...

# Build and vet for every supported platform (linux and darwin, amd64 and
# arm64); CI runs it on every change.
cross:
	GO=$(GO) .ci/cross

# dist/wright_<version>_<os>_<arch>.tar.gz for each platform, and SHA256SUMS.
release:
	GO=$(GO) .ci/release

clean:
	rm -rf bin dist
