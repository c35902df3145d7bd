#!/usr/bin/env bash
# Installs what is missing and runs the whole test suite: formatting, lints,
# the debug build, the Rust unit tests, the integration tests (node's test
# runner over tests/, which starts the real browser under its own Xvfb), the
# container image built and run with podman (scripts/container.sh), then a
# minute of fuzzing the request parsing (scripts/fuzz.sh).
#
#   scripts/test.sh
#
# Stops at the first stage that fails and exits with its status. target/ is
# kept between runs (CARGO_TARGET_DIR is honoured); nothing is cleaned.
# SOVEREIGN_FUZZ_SECONDS sets how long the fuzzing runs (default 60). Each
# test stage has a time limit; one that passes it fails with exit 124.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

if (($# > 0)); then
	case $1 in
	-h | --help)
		sed -n '2,13s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
		exit 0
		;;
	*)
		echo "test: unknown argument: $1 (see --help)" >&2
		exit 2
		;;
	esac
fi

# Sourced, so that a toolchain found through ~/.cargo/env stays on PATH.
# shellcheck source=scripts/setup.sh
source "$root/scripts/setup.sh" --with-test-deps
cd "$root"

export WEBKIT_DISABLE_DMABUF_RENDERER="${WEBKIT_DISABLE_DMABUF_RENDERER:-1}"

# The integration tests start the debug binary; point them at the one this
# run builds, wherever the target directory is.
target_dir=${CARGO_TARGET_DIR:-target}
[[ $target_dir == /* ]] || target_dir="$root/$target_dir"
export SOVEREIGN_BIN="${SOVEREIGN_BIN:-$target_dir/debug/sovereign-browser}"

stage_names=("cargo fmt" "cargo clippy" "cargo build" "cargo test" "npm test" "container" "fuzz")
stage_results=()

summary() {
	local i
	echo "test: summary"
	for i in "${!stage_names[@]}"; do
		printf 'test:   %-13s %s\n' "${stage_names[i]}" "${stage_results[i]:-not run}"
	done
}

run_stage() {
	local index=$1
	shift
	local name=${stage_names[index]} start=$SECONDS status=0
	echo "test: ==> ${name}: $*"
	"$@" || status=$?
	local took=$((SECONDS - start))
	if ((status == 0)); then
		stage_results[index]="ok (${took}s)"
		echo "test: ${name}: ok (${took}s)"
	else
		stage_results[index]="FAILED (exit ${status}, ${took}s)"
		echo "test: ${name}: FAILED (exit ${status}, ${took}s)"
		summary
		echo "test: FAILED at ${name}"
		exit "$status"
	fi
}

# The fuzz crate is a workspace of its own: checked alongside.
check_format() {
	cargo fmt --all -- --check && cargo fmt --manifest-path fuzz/Cargo.toml -- --check
}

lint() {
	cargo clippy --all-targets -- -D warnings &&
		cargo clippy --manifest-path fuzz/Cargo.toml --target-dir "$target_dir" -- -D warnings
}

run_stage 0 check_format
run_stage 1 lint
run_stage 2 cargo build --all-targets
# A stage that hangs fails on its own limit, naming itself, rather than
# taking the whole run's time with it (timeout exits 124).
fuzz_seconds=${SOVEREIGN_FUZZ_SECONDS:-60}
run_stage 3 timeout --kill-after=30 1200 cargo test
run_stage 4 timeout --kill-after=30 3000 npm test
run_stage 5 timeout --kill-after=30 1800 bash scripts/container.sh
run_stage 6 timeout --kill-after=30 $((fuzz_seconds + 1200)) scripts/fuzz.sh "$fuzz_seconds"

summary
echo "test: all ${#stage_names[@]} stages ok"
