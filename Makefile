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

.PHONY: all build test test-latest bench soak sim demo install uninstall lint fuzz clean player

all: build

build:
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/ralph-watch

# The whole suite, against real tmux servers on private sockets.
test:
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 30m ./...

# The newest release of each agent pinned in watch/doctor/versions, from
# the npm registry, installed into a cache (testdata/agents/install --latest):
# their real-agent tests, then ralph-watch doctor on each. CI keeps the pins.
PINNED_AGENTS = $(shell sed -e 's/\#.*//' -e '/^[[:space:]]*$$/d' watch/doctor/versions | cut -d' ' -f1)
test-latest: build
	@for a in $(PINNED_AGENTS); do unset RALPH_TEST_$$(echo $$a | tr a-z A-Z); done; \
	eval "$$(testdata/agents/install --latest $(PINNED_AGENTS))"; \
	env | grep '^RALPH_TEST_' | sort; \
	rc=0; \
	$(GO) test -count=1 -timeout 30m -run 'RealAgent|Claude|Codex|Gemini' ./watch/... || rc=1; \
	for a in $(PINNED_AGENTS); do \
		bin=$$(printenv RALPH_TEST_$$(echo $$a | tr a-z A-Z)) || continue; \
		./$(BIN) doctor --agent $$a -- "$$bin" || rc=1; \
	done; \
	exit $$rc

# ralph-watch against the seed's polling loop, side by side, on private
# tmux servers (a few minutes; not part of test). Table on stdout, JSON in bin/.
bench:
	$(GO) run ./bench -json bin/bench.json

# The load tests at length (1,000 iterations; 50 loops of 20 iterations),
# printing what they measured.
soak:
	RALPH_SOAK=1 $(GO) test -count=1 -timeout 30m -run 'TestAThousandQuickIterationsLeakNothing|TestFiftyLoopsAtOnce|TestAStateFileIsNeverSeenHalfWritten' -v ./watch/... ./cmd/... | grep -E '^(soak:|--- |ok|FAIL)'

# The loop tested by simulation (watch/sim_test.go): SEEDS seeded scenarios
# on the in-memory tmux, or one with SEED=N. make test runs 2,000.
SEEDS ?= 10000
sim:
	@mkdir -p bin
	@$(GO) test -count=1 -timeout 60m -run 'TestSimulatedLoops$$' -v ./watch $(if $(SEED),-sim.seed $(SEED),-sim.seeds $(SEEDS)) > bin/sim.log 2>&1; rc=$$?; \
	grep -E '^(simulation:|ok|FAIL)|^ +(sim_test|--- FAIL|replay)' bin/sim.log; exit $$rc

# A loop of the built-in demo agent in a private tmux server.
demo: build
	./$(BIN) demo

# Short fuzzing runs of the parsers that see untrusted text.
fuzz:
	$(GO) test -run '^$$' -fuzz FuzzNormalizer -fuzztime 30s ./watch
	$(GO) test -run '^$$' -fuzz FuzzDoneScanner -fuzztime 30s ./watch
	$(GO) test -run '^$$' -fuzz FuzzTailText -fuzztime 30s ./watch
	$(GO) test -run '^$$' -fuzz FuzzCompose -fuzztime 30s ./watch
	$(GO) test -run '^$$' -fuzz FuzzClassify -fuzztime 30s ./watch
	$(GO) test -run '^$$' -fuzz FuzzParseReset -fuzztime 30s ./watch
	$(GO) test -run '^$$' -fuzz FuzzPlaceArgs -fuzztime 30s ./watch
	$(GO) test -run '^$$' -fuzz FuzzLoad -fuzztime 30s ./watch/state
	$(GO) test -run '^$$' -fuzz FuzzLastLines -fuzztime 30s ./watch/control

lint:
	@test -z "$$(gofmt -l .)" || { gofmt -l .; echo 'gofmt: files above need formatting'; exit 1; }
	$(GO) vet ./...
	shellcheck -x ralph.tmux scripts/*.sh

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
# npm package into watch/report/player/ (committed, so go build needs no npm).
PLAYER_VERSION ?= 3.18.0
player:
	rm -rf bin/player && mkdir -p bin/player
	cd bin/player && npm pack --silent asciinema-player@$(PLAYER_VERSION) >/dev/null && tar xzf asciinema-player-$(PLAYER_VERSION).tgz
	cp bin/player/package/dist/bundle/asciinema-player.min.js bin/player/package/dist/bundle/asciinema-player.css bin/player/package/LICENSE watch/report/player/
	echo "asciinema-player $(PLAYER_VERSION) (npm), dist/bundle/asciinema-player.min.js and .css, Apache-2.0 (LICENSE); refreshed by: make player" >watch/report/player/VERSION
