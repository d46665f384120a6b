# wright — build, test, demo. `make test` and `make demo` work on a fresh
# machine: they install what is missing (Chromium from the distribution,
# Go modules from the module proxy) first.

GO      ?= go
BIN     ?= bin/wright
SUDO    := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all build test test-deps test-short bench bench-scale demo docs deps chromium bwrap npm slurm ffmpeg jaeger xvfb fmt vet cross release clean

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

# Slurm and munge: the one-machine cluster that deploy's TestSlurmCluster*
# runs the project's array job on (Debian's packages; elsewhere the test
# skips and says why).
ifeq ($(UNAME),Darwin)
slurm:
	@:
else
slurm:
	@{ command -v slurmd >/dev/null 2>&1 || [ -x /usr/sbin/slurmd ]; } && { command -v munged >/dev/null 2>&1 || [ -x /usr/sbin/munged ]; } || { \
	    command -v apt-get >/dev/null 2>&1 || { \
	      echo "no Slurm: install slurm-wlm and munge with your package manager for the cluster test (it skips without them)"; \
	      exit 0; }; \
	    echo "installing slurm-wlm and munge (apt)"; \
	    $(SUDO) apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends slurmctld slurmd slurm-client munge >/dev/null; }
endif

# npm installs the pages no one here wrote that browser's role agreement
# test and bench/measure/perf run on, and the playwright-core whose trace viewer
# TestTraceViewer opens wright's traces in, and har-validator, which checks
# the HAR files wright writes (internal/peerpages pins the
# versions; their tests skip, saying so, without npm).
ifeq ($(UNAME),Darwin)
npm:
	@command -v npm >/dev/null 2>&1 || echo "no npm: the tests on npm pages skip (brew install node)"
else
npm:
	@command -v npm >/dev/null 2>&1 || { \
	    command -v apt-get >/dev/null 2>&1 || { \
	      echo "no npm: the tests on npm pages skip; install npm with your package manager"; \
	      exit 0; }; \
	    echo "installing npm (apt)"; \
	    $(SUDO) apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq npm >/dev/null; }
endif

# ffmpeg (with ffprobe) encodes the videos of record_video_dir and
# WRIGHT_VIDEO (browser/video) and checks them in the tests; without it
# recording a video is a clear error and its tests skip.
ifeq ($(UNAME),Darwin)
ffmpeg:
	@command -v ffmpeg >/dev/null 2>&1 || echo "no ffmpeg: videos cannot be recorded and their tests skip (brew install ffmpeg)"
else
ffmpeg:
	@{ command -v ffmpeg >/dev/null 2>&1 && command -v ffprobe >/dev/null 2>&1; } || { \
	    command -v apt-get >/dev/null 2>&1 || { \
	      echo "no ffmpeg: videos cannot be recorded and their tests skip; install ffmpeg with your package manager"; \
	      exit 0; }; \
	    echo "installing ffmpeg (apt)"; \
	    $(SUDO) apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends ffmpeg >/dev/null; }
endif

# Xvfb is the private display of a headed browser on a machine without one
# (browser/launcher/xvfb.go): the headed tests launch under it. macOS has a
# display of its own.
ifeq ($(UNAME),Darwin)
xvfb:
	@:
else
xvfb:
	@command -v Xvfb >/dev/null 2>&1 || { \
	    command -v apt-get >/dev/null 2>&1 || { \
	      echo "no Xvfb: headed browsers need a display; install xvfb with your package manager"; \
	      exit 0; }; \
	    echo "installing xvfb (apt)"; \
	    $(SUDO) apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends xvfb >/dev/null; }
endif

# What wright itself needs to build and run (and so `make build` and
# `make demo`): Chromium, bubblewrap for the sandbox, python3 and the Go
# modules. The tests need more (test-deps): npm for the pages no one here
# wrote and the trace viewer, Slurm and munge for the cluster test, ffmpeg
# for videos, and Jaeger for the trace export test.
deps: chromium bwrap
	@command -v python3 >/dev/null 2>&1 || { echo "python3 is required"; exit 1; }
	$(GO) mod download

test-deps: deps npm slurm ffmpeg jaeger xvfb

# Jaeger's all-in-one binary, the real OTLP backend of the trace test
# (cmd/wright/otel_test.go), pinned in deploy/jaeger (a module of its own, so
# the project's go.mod does not carry Jaeger's requirements). Built once and
# cached: it takes minutes on two cores.
JAEGER_VERSION := v1.76.0
ifeq ($(UNAME),Darwin)
JAEGER_CACHE := $(HOME)/Library/Caches
else
JAEGER_CACHE := $(or $(XDG_CACHE_HOME),$(HOME)/.cache)
endif
JAEGER ?= $(or $(WRIGHT_JAEGER),$(JAEGER_CACHE)/wright/jaeger-$(JAEGER_VERSION)/jaeger)
jaeger:
	@[ -x "$(JAEGER)" ] || { echo "building jaeger $(JAEGER_VERSION) for the trace test (once, a few minutes)"; \
	  mkdir -p "$(dir $(JAEGER))" && cd deploy/jaeger && \
	  $(GO) build -o "$(JAEGER)" github.com/jaegertracing/jaeger/cmd/jaeger; }

test: test-deps
	$(GO) vet ./...
	$(GO) test -timeout 15m ./...

test-short: test-deps
	$(GO) test -short ./...

# The Go benchmarks, then bench/measure/perf: wright side by side with Playwright on
# pages from npm (needs node and npm; PERF_ROUNDS, PERF_REPS to adjust).
# BenchmarkHarnessStep runs whole recorded 40-step runs: a few are enough.
PERF_ROUNDS ?= 3
PERF_REPS   ?= 5
bench: build
	$(GO) test -run '^$$' -bench . -benchtime 2s ./env/workspace ./browser/...
	$(GO) test -run '^$$' -bench BenchmarkHarnessStep -benchtime 5x ./run/agent
	@if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then \
	  bench/measure/perf/run.sh $(PERF_ROUNDS) $(PERF_REPS); \
	else echo "bench/measure/perf skipped: it needs node and npm"; fi

# What a bench worker costs: builtin:demo's tasks in live and workspace
# mode, recorded replies, at --parallel 1, 4, 8 and 16; peak PSS of the
# bench's whole process tree per worker, tasks per minute and the harness's
# own time per attempt (docs/performance.md). SCALE_ARGS to adjust, e.g.
# SCALE_ARGS="-levels 1,16 -repeat 3".
SCALE_ARGS ?=
bench-scale: deps
	$(GO) run ./bench/measure/scale $(SCALE_ARGS)

# wright mcp side by side with @playwright/mcp (npm) through the official
# TypeScript MCP SDK client, on the same Chromium and npm pages: characters
# per call and over the sequence, tools/list, time per action
# (docs/performance.md). MCP_ARGS to adjust, e.g. MCP_ARGS="-reps 5".
MCP_ARGS ?=
.PHONY: bench-mcp
bench-mcp: build npm
	$(GO) run ./bench/measure/mcpcompare -wright $(BIN) $(MCP_ARGS)

# The five-line script (bench/measure/warm: launch, new page, goto, title,
# close) on wright's client with the run's warm browser, on wright's client
# with launch() cold, and on Playwright's Node client (playwright-core from
# npm, the system Chromium), interleaved, WARM_ROUNDS times each
# (docs/performance.md, "Warm browser").
WARM_ROUNDS ?= 20
.PHONY: bench-warm
bench-warm: deps npm
	WARM_ROUNDS=$(WARM_ROUNDS) $(GO) test ./run/harness/ -run '^$$' -bench BenchmarkWarmLaunch -benchtime 1x -v

demo: build
	$(BIN) demo

# The generated references: docs/cli/ from the commands, docs/config.md from
# the built-in YAML and the key table (TestDocsUpToDate checks them), and the
# layers and package map of docs/architecture.md from internal/arch and go
# list (TestPackageMapIsCurrent checks them).
docs:
	$(GO) run ./cmd/wright gen-docs docs
	$(GO) run ./internal/arch/archdoc docs/architecture.md

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
