#!/usr/bin/env bash
# build.sh builds ralph-watch into the plugin's bin/ with go build, and says
# so: tpm installs the plugin from source, with no binary.

# shellcheck source=scripts/helpers.sh
source "$(dirname "${BASH_SOURCE[0]}")/helpers.sh"

cd "$PLUGIN_DIR" || exit 0
if ! go="$(command -v go)"; then
	say "ralph-watch is not installed and Go is missing: install Go 1.22 or newer (https://go.dev/dl/) and reload, or put ralph-watch on PATH"
	exit 0
fi
if [ ! -f go.mod ] || [ ! -d cmd/ralph-watch ]; then
	say "cannot build ralph-watch: $PLUGIN_DIR has no Go sources; put ralph-watch on PATH"
	exit 0
fi
mkdir -p bin
[ -e bin/.building ] && exit 0 # a build is under way
trap 'rm -f bin/.building bin/ralph-watch.new' EXIT
: >bin/.building
version="$( { [ -e .git ] && git describe --tags --always --dirty 2>/dev/null; } || echo devel)"
say "building ralph-watch $version with go build (first use; this takes a minute)"
if "$go" build -trimpath -ldflags "-X main.version=$version" -o bin/ralph-watch.new ./cmd/ralph-watch >bin/build.log 2>&1; then
	mv bin/ralph-watch.new bin/ralph-watch
	say "built $PLUGIN_DIR/bin/ralph-watch ($version)"
else
	say "go build failed: $(last_line "$(cat bin/build.log)") (all of it in $PLUGIN_DIR/bin/build.log)"
fi
exit 0
