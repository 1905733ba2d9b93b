# yardstick: the two commands that matter on a fresh machine are
#   make demo   run the embedded default experiment (experiments/demo.cue)
#   make test   run the tests that need Go alone (CI runs them, then
#               make test-integration, through .ci/run)

GO        ?= go
VERSION   ?= $(shell git describe --always --dirty 2>/dev/null || echo devel)
LDFLAGS   := -X main.version=$(VERSION)
BIN       := bin
YARDSTICK := $(BIN)/yardstick
FUZZTIME  ?= 60s

.PHONY: all build targets frameworks frameworks-test slurm-test netns-test calibration design-trial pyenv test test-integration ruptures-reference demo study study-name bench lint fuzz golden deps interop-deps clean

all: build targets

build:
	$(GO) build -ldflags '$(LDFLAGS)' -o $(YARDSTICK) ./cmd/yardstick

# The sample services under test.
targets: deps-demo $(BIN)/sample-go $(BIN)/sample-jvm.jar

$(BIN)/sample-go: $(shell find targets/go -name '*.go' 2>/dev/null)
	$(GO) build -o $@ ./targets/go

# What every JVM target is built from besides its own sources: the shared
# module (targets/jvm-common) and the Maven reactor of the framework targets.
JVM_COMMON := targets/pom.xml targets/jvm-common/pom.xml targets/jvm-common/mvn-jar.sh \
	$(shell find targets/jvm-common/src -type f 2>/dev/null)

$(BIN)/sample-jvm.jar: targets/java/build.sh $(JVM_COMMON) $(shell find targets/java/src -name '*.java' 2>/dev/null)
	targets/java/build.sh $@

# The framework targets of the shipped studies (Spring Cloud Gateway,
# Helidon, Vert.x, Quarkus, ...): each targets/<name>/target.mk adds its
# outputs under bin/ to FRAMEWORKS with the rule that builds them.
FRAMEWORKS :=
include $(wildcard targets/*/target.mk)
frameworks: deps-frameworks $(FRAMEWORKS)

# The framework targets' own tests (every endpoint, the access-log switch,
# named threads, SIGTERM), tagged `frameworks`: each starts real JVMs, some
# several times, which takes minutes on 2 cores, so they run beside make
# test (in .ci/run), not inside its 10 minutes.
frameworks-test: deps-demo frameworks
	$(GO) test -tags frameworks -count=1 -p 1 -timeout 20m ./targets/...

# yardstick slurm on a throwaway Slurm cluster on this host (munged,
# slurmctld and two slurmd nodes under a temporary directory, torn down on
# every exit; runner/slurm/testdata): the demo through `yardstick slurm
# --wait`, then a run whose array task is cancelled and resubmitted. It
# needs root, slurm-wlm and munge (.ci/deps slurm installs them), and takes about two
# minutes of real load, so it runs beside make test (in .ci/run).
slurm-test: deps-slurm deps-demo build targets
	$(GO) test -tags slurm -count=1 -p 1 -timeout 8m -v -run '^TestSlurm$$' ./runner/slurm/

# The two-host tests, tagged `netns`: a batch with its target in one
# network namespace and its load generator in another, joined by a veth
# pair. They need root and iproute2 (and fail without them), so they run
# beside make test (in .ci/run).
netns-test:
	./.ci/netns-test

# The decisions against differences known in advance, as a benchmark
# (cmd/calibrate; docs/methodology.md#calibration): real runs of the Go
# sample target with an identical twin and twins doing more work per
# request (adaptive repeats, 3 to 8 rounds), on the machine as it is and
# with another process loading both CPUs in bursts; this machine's
# variance components from the quiet runs; then 2,000 simulated adaptive
# batches per effect size (0%, 3%, 10%, 15%, 25% more cost per request;
# 20,000 of the A/A pair) through the rounds' own decision. Real and
# simulated batches are decided by both rules of a claimed difference
# (fairness.rule). It prints the rates of right decisions and false
# alarms, the rounds and minutes to a decision and the intervals'
# coverage. About 45 minutes; not in .ci/run.
calibration: build targets
	$(GO) run ./cmd/calibrate -yardstick $(YARDSTICK) -sample $(BIN)/sample-go

# The design trial (cmd/yardstick/design_trial_test.go, tagged
# `calibration`): the calibration batch's two questions answered by
# interleaved restarts and by alternating slices on warm processes, in
# alternation, while another process loads both CPUs in bursts; about 5
# minutes a trial of both (YARDSTICK_TRIALS, default 3). A measurement
# for docs/methodology.md#design-trial, not a check: not in make test or
# .ci/run.
design-trial:
	$(GO) test -tags calibration -count=1 -p 1 -timeout 90m -v -run '^TestDesignTrial$$' ./cmd/yardstick/

# The Python environment of the notebook readers and reference checks,
# pinned by requirements.txt, in the git-ignored .venv/; rebuilt when
# requirements.txt changes.
PYTHON ?= python3
VENV   := .venv
pyenv: $(VENV)/.installed

$(VENV)/.installed: requirements.txt
	rm -rf $(VENV)
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check -r requirements.txt
	touch $@

# deps-GROUP installs what one purpose needs on a fresh Debian 12 machine
# with Go, only what is missing, with apt-get (.ci/deps names the groups:
# demo, integration, frameworks, bench, slurm, netns); each target below names
# the groups it uses. deps installs them all (what .ci/run needs).
deps:
	@./.ci/deps all
deps-%:
	@./.ci/deps $*

# The datasets interop check's Node modules (@duckdb/node-api,
# hdr-histogram-js), pinned by package-lock.json, into the git-ignored
# datasets/interop/node_modules; reinstalled when the lock file changes.
INTEROP := datasets/interop
interop-deps: $(INTEROP)/node_modules/.package-lock.json

$(INTEROP)/node_modules/.package-lock.json: $(INTEROP)/package-lock.json
	cd $(INTEROP) && npm ci --no-audit --no-fund

# make test is the developer's loop and needs Go alone (no JDK, Node.js,
# Python or Chromium): vet, gofmt, the unit and golden tests and the CLI
# scripts of cmd/yardstick/testdata/script, no long real run. -p 1:
# packages one at a time, so that the scripts that measure short real runs
# (pinned to CPUs 0 and 1) are not disturbed by other packages' tests.
test:
	$(GO) vet ./...
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed on:"; gofmt -l .; exit 1; }
	$(GO) test -count=1 -p 1 -timeout 9m ./...

# The tests that need more than Go, or long real runs, tagged `integration`
# and named TestIntegration*: the CLI scripts of
# cmd/yardstick/testdata/integration (real targets for many seconds, the
# JVM sample, DuckDB/pandas/polars reading a run's tables, the notebook),
# the Parquet interop checks, the report in Chromium, the JVM sample's own
# tests, JVM thread names in /proc and ruptures run live against its
# recorded answers. .ci/run runs it after make test.
test-integration: deps-integration interop-deps pyenv
	$(GO) vet -tags integration ./...
	$(GO) test -tags integration -count=1 -p 1 -timeout 30m -run '^TestIntegration' ./...

# Record ruptures' answers for the changepoint reference check
# (stats/changepoint/testdata/ruptures_ref.json, committed; make test
# compares Detect with them): after a change to its cases or to the
# ruptures pin in requirements.txt. Review the diff before committing.
ruptures-reference: pyenv
	YARDSTICK_UPDATE=1 $(GO) test -count=1 -run '^TestRupturesReference$$' ./stats/changepoint

# The default experiment: Go vs JVM sample targets, 4 short cells. It
# needs Go and a JDK 17; .ci/deps demo installs the JDK if it is missing,
# and nothing else.
demo: deps-demo build targets
	$(YARDSTICK) run experiments/demo.cue

# The five studies (README.md#studies): make study STUDY=<name> builds
# what the study needs and runs its quick profile (-t profile=quick: 2
# CPUs, minutes); the full profile is the same file without the tag:
#   yardstick run experiments/<name>.cue
STUDIES := gateway payload-scaling rounds scenarios phases
STUDY_NEEDS_gateway         := $(BIN)/gateway-go $(BIN)/scg.jar
STUDY_NEEDS_payload-scaling := $(BIN)/sample-go $(BIN)/helidon.jar $(BIN)/helidon.aot
STUDY_NEEDS_rounds          := $(BIN)/sample-go $(BIN)/helidon.jar $(BIN)/helidon.aot
STUDY_NEEDS_scenarios       := $(BIN)/sample-go $(BIN)/vertx.jar $(BIN)/quarkus.jar $(BIN)/webflux.jar $(BIN)/tomcat.jar
STUDY_NEEDS_phases          := $(BIN)/sample-go $(BIN)/quarkus.jar $(BIN)/webflux.jar
# payload-scaling's processors scale with the machine: three quarters of
# its CPUs for the service, the rest for the load generator.
STUDY_TAGS_payload-scaling  := -t cpus=$(shell nproc)
study: study-name deps-demo deps-frameworks build
	$(MAKE) $(STUDY_NEEDS_$(STUDY))
	$(YARDSTICK) run experiments/$(STUDY).cue -t profile=quick $(STUDY_TAGS_$(STUDY))

study-name:
	@case " $(STUDIES) " in *" $(STUDY) "*) ;; *) echo "make study: STUDY=<name>, one of: $(STUDIES)" >&2; exit 2;; esac

# Benchmarks with ratios against peers measured in the same run:
#  1. the cost of measuring (docs/design.md#the-cost-of-measuring): the
#     load generator against wrk (same target, same pinning, 9 pairs whose
#     order flips each pair: rps and CPU per request, medians of the
#     ratios), then the yardstick run process's CPU during a measure window
#     at 100 ms sampling, then the hot path's allocations;
#  2. writing 1,000,000 timeseries rows: rows/s and the Parquet file's size
#     relative to the same rows as CSV;
#  3. holding WebSocket connections (cmd/bench-ws): the load generator's
#     own resident memory and CPU at 10,000 and 50,000 connections held
#     against the Go sample target, and those of a peer client written
#     with github.com/coder/websocket (a goroutine per connection) in the
#     same run, as ratios. 50,000 connections need RLIMIT_NOFILE above
#     50,256 in each process: it raises the limit when it may
#     (CAP_SYS_RESOURCE), else fails at once saying so.
bench: deps-bench build targets
	$(GO) run ./cmd/bench-loadgen -pairs 9 -duration 3s -interval 100ms
	$(GO) run ./cmd/bench-ws -counts 10000,50000
	$(GO) test -run '^$$' -bench . -benchmem ./loadgen
	$(GO) test -run '^$$' -bench BenchmarkTimeseries -benchtime 1x -benchmem ./datasets

lint:
	$(GO) vet ./...
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed on:"; gofmt -l .; exit 1; }
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.7.0 ./...

# Fuzz the definition loader, the load generator's HTTP response parser
# and WebSocket frame parser, then the run directory's checkpoint and plan readers, FUZZTIME each (60 s
# by default; FUZZTIME=10m for longer). A finding is written to the
# package's testdata/fuzz/ and fails the target.
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzLoad$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s ./schema
	$(GO) test -run '^$$' -fuzz '^FuzzParseResponse$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s ./loadgen
	$(GO) test -run '^$$' -fuzz '^FuzzParseFrames$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s ./loadgen/wsframe
	$(GO) test -run '^$$' -fuzz '^FuzzReadCheckpoint$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s ./pipeline
	$(GO) test -run '^$$' -fuzz '^FuzzReadPlan$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s ./pipeline

# Rewrite golden files (plans, diffs, scripts) from the current output;
# review the change with git diff before committing it.
golden:
	YARDSTICK_UPDATE=1 $(GO) test -count=1 ./cmd/... ./stages/...

clean:
	rm -rf $(BIN)
