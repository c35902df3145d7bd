#!/usr/bin/env bash
# Installs what is missing, builds the release binary and starts Sovereign
# Browser, ready for MCP clients. Arguments are passed to the browser:
#
#   scripts/start.sh [--port N] [--profile DIR] [--ephemeral] ...
#
# With no DISPLAY the browser runs on its own private Xvfb display
# (--headless). Only the browser's own start-up lines go to standard output;
# set-up and build progress go to standard error.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Sourced, so that a toolchain found through ~/.cargo/env stays on PATH.
# shellcheck source=scripts/setup.sh
source "$root/scripts/setup.sh" -- >&2

export WEBKIT_DISABLE_DMABUF_RENDERER="${WEBKIT_DISABLE_DMABUF_RENDERER:-1}"

echo "start: building the release binary (cargo build --release)" >&2
(cd "$root" && cargo build --release) >&2

# Cargo reads a relative CARGO_TARGET_DIR against the directory it ran in.
target_dir=${CARGO_TARGET_DIR:-target}
[[ $target_dir == /* ]] || target_dir="$root/$target_dir"
bin="$target_dir/release/sovereign-browser"

args=("$@")
if [[ -z ${DISPLAY:-} ]]; then
	headless=0
	for arg in "$@"; do
		[[ $arg == --headless ]] && headless=1
	done
	if ((headless == 0)); then
		echo "start: no DISPLAY, starting on a private Xvfb display (--headless)" >&2
		args=(--headless "${args[@]}")
	fi
fi

exec "$bin" "${args[@]}"
