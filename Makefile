# ralph-watch: build, test, demo, install.
PREFIX  ?= /usr/local
DESTDIR ?=
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
GO      ?= go
BIN     := bin/ralph-watch
LDFLAGS := -X main.version=$(VERSION)
# Where each shell looks for completions it loads by itself.
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d

.PHONY: all build unit test test-agents test-latest bench soak sim demo install uninstall lint fuzz clean player

all: build

build:
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/ralph-watch

# The tests in tiers (watch/tmux/tmuxtest/tier.go), each with go test's
# usual output, then its ten slowest tests (bench/slowest):
#   make unit         no real tmux and no agent: the in-memory tmux, the
#                     virtual clock, the simulation's seeds; -short, so
#                     without the slow ones (go install, Chromium)
#   make test         unit plus the tests against real tmux servers on
#                     private sockets (no agents; the soak tests: make soak)
#   make test-agents  only the real agents' tests, the agents offline
#                     ($RALPH_TEST_CLAUDE, ..., else the programs on PATH)
# Tests wait on tmux and agents far more than they compute, so more of them
# run at once than there are cores: TESTPARALLEL tests of a package,
# TESTPACKAGES packages (watch, cmd/ralph-watch and scripts side by side,
# not the longest last). The real agents' tests share RALPH_TEST_AGENTS
# places (3) across packages (tmuxtest.HoldAgentPlaces).
TESTPARALLEL ?= 8
TESTPACKAGES ?= 4
GOTEST = $(GO) run ./bench/slowest -n 10 -- $(GO) test -json -count=1 -timeout 30m -p $(TESTPACKAGES) -parallel $(TESTPARALLEL)
# The names of the real agents' tests: tmuxtest.AgentTests, which fails an
# agent's test named otherwise, so that the pick misses none.
AGENT_TESTS = RealAgent|Claude|Codex|Gemini|OpenCode|Copilot
# What the tests build (ralph-watch, the fake agent) is built once for all
# the packages, in a folder removed at the end (tmuxtest.BuiltVar).
SHARE_BUILDS = built=$$(mktemp -d "$${TMPDIR:-/tmp}/ralph-bin-XXXXXX") && trap 'rm -rf "$$built"' EXIT && RALPH_TEST_BUILT=$$built
unit:
	RALPH_TEST_TIER=unit $(GOTEST) -short ./...
test:
	$(GO) vet ./...
	$(SHARE_BUILDS) RALPH_TEST_TIER=tmux $(GOTEST) ./...
test-agents:
	$(SHARE_BUILDS) RALPH_TEST_TIER=agents $(GOTEST) -run '$(AGENT_TESTS)' ./...

# The newest release of each agent pinned in watch/doctor/versions, from
# the npm registry, installed into a cache (testdata/agents/install --latest):
# make test-agents, then ralph-watch doctor on each. CI keeps the pins.
PINNED_AGENTS = $(shell sed -e 's/\#.*//' -e '/^[[:space:]]*$$/d' watch/doctor/versions | cut -d' ' -f1)
test-latest: build
	@for a in $(PINNED_AGENTS); do unset RALPH_TEST_$$(echo $$a | tr a-z A-Z); done; \
	eval "$$(testdata/agents/install --latest $(PINNED_AGENTS))"; \
	env | grep '^RALPH_TEST_' | sort; \
	rc=0; \
	$(MAKE) test-agents || rc=1; \
	for a in $(PINNED_AGENTS); do \
		bin=$$(printenv RALPH_TEST_$$(echo $$a | tr a-z A-Z)) || continue; \
		./$(BIN) doctor --agent $$a -- "$$bin" || rc=1; \
	done; \
	exit $$rc

# ralph-watch against the seed's polling loop, side by side, on private
# tmux servers (a few minutes; not part of test). Table on stdout, JSON in bin/.
bench:
	$(GO) run ./bench -json bin/bench.json
	@# Gemini CLI's loop against Claude Code's (hooks both), when both are installed: within 1.5x.
	@RALPH_TIMING=1 $(GO) test -count=1 -run 'TestGeminiLoopByItsHooksTakesAboutAsLongAsClaudeCodes$$' -v ./watch >bin/gemini-timing.log 2>&1; \
	rc=$$?; grep -E 'two loops of two iterations|over 1.5|^(ok|FAIL|--- SKIP)' bin/gemini-timing.log; exit $$rc

# The load tests (1,000 iterations; 50 loops of 20 iterations), which make
# test skips, printing what they measured, and two that make test runs
# smaller (floods of 10 MB, not 1; agents killed at random on five servers,
# not two); CI runs them after the tiers.
SOAK_TESTS = TestAThousandQuickIterationsLeakNothing|TestFiftyLoopsAtOnce|TestAStateFileIsNeverSeenHalfWritten|TestAnAgentPrintingGarbageOrFloodsIsWatchedToTheEnd|TestAgentsKilledAtRandomMomentsNeverTakeTheServerDown
soak:
	@mkdir -p bin
	@RALPH_SOAK=1 $(GO) test -p 1 -count=1 -timeout 30m -run '$(SOAK_TESTS)' -v ./watch/... ./cmd/... >bin/soak.log 2>&1; \
	rc=$$?; grep -E '^(soak:|--- |ok|FAIL|panic)' bin/soak.log; \
	[ $$rc = 0 ] || echo "make soak failed: the whole output is in bin/soak.log"; exit $$rc

# The loop and the fan tested by simulation (watch/sim_test.go on the
# in-memory tmux, watch/fan/sim_test.go on the fan's record with git as a
# model): SEEDS seeded scenarios of each, or one with SEED=N. make unit
# runs 500 of the loop's and 100 of the fan's, CI 10,000 of each.
SEEDS ?= 10000
sim:
	@mkdir -p bin
	@$(GO) test -count=1 -timeout 60m -run 'TestSimulatedLoops$$|TestSimulatedFans$$' -v ./watch ./watch/fan $(if $(SEED),-sim.seed $(SEED),-sim.seeds $(SEEDS)) > bin/sim.log 2>&1; rc=$$?; \
	grep -E '^(simulation:|ok|FAIL)|^ +(sim_test|--- FAIL|replay)' bin/sim.log; exit $$rc

# A loop of the built-in demo agent in a private tmux server.
demo: build
	./$(BIN) demo

# Short fuzzing runs of every fuzz function, in the package where it lives
# (PACKAGE:FUNCTION; TestMakeFuzzFuzzesEveryFuzzFunction keeps the list whole).
FUZZTIME ?= 30s
FUZZ = \
	./watch/agent:FuzzClassify \
	./watch/agent:FuzzDoneScanner \
	./watch/agent:FuzzHookDetail \
	./watch/agent:FuzzNormalizer \
	./watch/agent:FuzzParseReset \
	./watch/agent:FuzzPlaceArgs \
	./watch/cast:FuzzRead \
	./watch/checks:FuzzTailText \
	./watch/config:FuzzConfigFileListsEveryCommandItSets \
	./watch/control:FuzzLastLines \
	./watch/judge:FuzzParseVerdict \
	./watch/plan:FuzzParse \
	./watch/prompt:FuzzCompose \
	./watch/receipt:FuzzLoadReceipts \
	./watch/receipt:FuzzParseShortstat \
	./watch/receipt:FuzzReadClaude \
	./watch/receipt:FuzzReadCodex \
	./watch/receipt:FuzzReadGemini \
	./watch/state:FuzzLoad
# One command a function (PKG:FUNCTION in FUZZ), each run where it lives.
define newline


endef
fuzz:
	$(foreach target,$(FUZZ),$(GO) test -run '^$$' -fuzz '^$(word 2,$(subst :, ,$(target)))$$' -fuzztime $(FUZZTIME) $(word 1,$(subst :, ,$(target)))$(newline))

# The linters, pinned, built from the Go module proxy into a cache the
# first time (a folder per set of versions, so a new pin builds anew).
STATICCHECK_VERSION = v0.8.2
ERRCHECK_VERSION    = v1.30.0
GOIMPORTS_VERSION   = v0.52.0
LINTBIN ?= $(HOME)/.cache/ralph-ci/lint/staticcheck-$(STATICCHECK_VERSION)_errcheck-$(ERRCHECK_VERSION)_goimports-$(GOIMPORTS_VERSION)
LINTERS = $(LINTBIN)/staticcheck $(LINTBIN)/errcheck $(LINTBIN)/goimports

$(LINTBIN)/staticcheck:
	GOBIN='$(LINTBIN)' $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
$(LINTBIN)/errcheck:
	GOBIN='$(LINTBIN)' $(GO) install github.com/kisielk/errcheck@$(ERRCHECK_VERSION)
$(LINTBIN)/goimports:
	GOBIN='$(LINTBIN)' $(GO) install golang.org/x/tools/cmd/goimports@$(GOIMPORTS_VERSION)

# gofmt, goimports (standard library, other modules, this module: three
# groups), go vet, staticcheck, errcheck (best-effort calls are marked
# `_ =` where they are made; .errcheck-excludes lists the kinds that always
# are, with the reasons), shellcheck.
lint: $(LINTERS)
	@test -z "$$(gofmt -l .)" || { gofmt -l .; echo 'gofmt: files above need formatting'; exit 1; }
	@test -z "$$('$(LINTBIN)/goimports' -l -local github.com/ralph-tmux/ralph.tmux .)" || { '$(LINTBIN)/goimports' -l -local github.com/ralph-tmux/ralph.tmux .; echo 'goimports: files above need their imports grouped (goimports -w -local github.com/ralph-tmux/ralph.tmux)'; exit 1; }
	$(GO) vet ./...
	'$(LINTBIN)/staticcheck' ./...
	'$(LINTBIN)/errcheck' -exclude .errcheck-excludes ./...
	shellcheck -x ralph.tmux scripts/*.sh .ci/run .ci/tmux-backports

install: build
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/ralph-watch
	install -d $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0644 man/ralph-watch.1 $(DESTDIR)$(PREFIX)/share/man/man1/ralph-watch.1
	install -d $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	install -m 0644 completions/ralph-watch.bash $(DESTDIR)$(BASHCOMPDIR)/ralph-watch
	install -m 0644 completions/_ralph-watch $(DESTDIR)$(ZSHCOMPDIR)/_ralph-watch
	install -m 0644 completions/ralph-watch.fish $(DESTDIR)$(FISHCOMPDIR)/ralph-watch.fish

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/ralph-watch
	rm -f $(DESTDIR)$(PREFIX)/share/man/man1/ralph-watch.1
	rm -f $(DESTDIR)$(BASHCOMPDIR)/ralph-watch
	rm -f $(DESTDIR)$(ZSHCOMPDIR)/_ralph-watch
	rm -f $(DESTDIR)$(FISHCOMPDIR)/ralph-watch.fish

clean:
	rm -rf bin

# The asciinema web player that report embeds in its pages, copied from its
# npm package into watch/report/third_party/asciinema-player/ (committed, so
# go build needs no npm).
PLAYER_VERSION ?= 3.18.0
player:
	rm -rf bin/player && mkdir -p bin/player
	cd bin/player && npm pack --silent asciinema-player@$(PLAYER_VERSION) >/dev/null && tar xzf asciinema-player-$(PLAYER_VERSION).tgz
	cp bin/player/package/dist/bundle/asciinema-player.min.js bin/player/package/dist/bundle/asciinema-player.css bin/player/package/LICENSE watch/report/third_party/asciinema-player/
	echo "asciinema-player $(PLAYER_VERSION) (npm), dist/bundle/asciinema-player.min.js and .css, Apache-2.0 (LICENSE); refreshed by: make player" \
		>watch/report/third_party/asciinema-player/VERSION
