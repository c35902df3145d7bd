#!/usr/bin/env bash
# Fuzzes what the browser reads from clients and pages
# (fuzz/fuzz_targets/requests.rs: /mcp messages, /agent messages, every
# tool's arguments, window.nostr calls) for a bounded time.
#
#   scripts/fuzz.sh [SECONDS]    default 60
#
# Builds the target with the instrumentation cargo-fuzz uses (no sanitizer),
# on the stable toolchain, into target/fuzz; `cargo fuzz run requests` does
# the same where cargo-fuzz is installed. The corpus grows in target/fuzz;
# fuzz/seeds is read only. A crash leaves its input in target/fuzz/artifacts
# and the exit status is not 0.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-60}
case $seconds in
-h | --help)
	sed -n '2,13s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
	exit 0
	;;
'' | *[!0-9]*)
	echo "fuzz: SECONDS must be a whole number, not '$seconds'" >&2
	exit 2
	;;
esac

target_dir=${CARGO_TARGET_DIR:-$root/target}
[[ $target_dir == /* ]] || target_dir="$root/$target_dir"
out="$target_dir/fuzz"
host=$(rustc -vV | sed -n 's/^host: //p')

# The flags cargo-fuzz passes for `-s none`. An explicit --target keeps them
# off build scripts and proc-macros, which must not be instrumented.
RUSTFLAGS="-Cpasses=sancov-module \
-Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
-Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares \
-Cllvm-args=-sanitizer-coverage-stack-depth \
-Cllvm-args=-simplifycfg-branch-fold-threshold=0 \
-Cdebug-assertions -Coverflow-checks --cfg fuzzing" \
	cargo build --release --locked --manifest-path "$root/fuzz/Cargo.toml" \
	--target "$host" --target-dir "$out" --bin requests

mkdir -p "$out/corpus/requests" "$out/artifacts/requests"
echo "fuzz: running requests for ${seconds}s"
# Each new input found prints a line; keep the log to progress and findings.
"$out/$host/release/requests" "$out/corpus/requests" "$root/fuzz/seeds/requests" \
	-dict="$root/fuzz/requests.dict" \
	-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
	-artifact_prefix="$out/artifacts/requests/" -print_final_stats=1 2>&1 |
	grep -Ev '^#[0-9]+[[:space:]]+(NEW|REDUCE)|# Uses: [0-9]+$|^[[:space:]]+NEW_FUNC'
