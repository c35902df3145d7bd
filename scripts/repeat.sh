#!/usr/bin/env bash
# Runs test files again and again, to find tests that pass only sometimes.
#
#   scripts/repeat.sh [-n N] [-k PATTERN] FILE...
#
#   -n N        how many runs (default 10)
#   -k PATTERN  run only the tests whose name matches PATTERN (a regular
#               expression, as node's --test-name-pattern takes it)
#
# Builds the debug binary first (as scripts/test.sh does), then runs the
# files with node's test runner N times in a row, each run on its own. Every
# run goes on whatever the one before did; the log of each failed run is
# kept in target/repeat/ and named at the end. Exits 1 when any run failed.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
usage() { sed -n '2,13s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; }

runs=10
pattern=""
while (($# > 0)); do
	case $1 in
	-n)
		runs=${2:?-n needs a number}
		shift 2
		;;
	-k)
		pattern=${2:?-k needs a pattern}
		shift 2
		;;
	-h | --help)
		usage
		exit 0
		;;
	--)
		shift
		break
		;;
	-*)
		echo "repeat: unknown option: $1 (see --help)" >&2
		exit 2
		;;
	*) break ;;
	esac
done
if (($# == 0)); then
	usage >&2
	exit 2
fi
if ! [[ $runs =~ ^[1-9][0-9]*$ ]]; then
	echo "repeat: -n takes a whole number of runs, got: $runs" >&2
	exit 2
fi
for file in "$@"; do
	[[ -f $file ]] || {
		echo "repeat: no such test file: $file" >&2
		exit 2
	}
done

cd "$root"
[[ -f "${HOME:-}/.cargo/env" ]] && ! command -v cargo >/dev/null 2>&1 && . "$HOME/.cargo/env"
target_dir=${CARGO_TARGET_DIR:-target}
[[ $target_dir == /* ]] || target_dir="$root/$target_dir"
export SOVEREIGN_BIN="${SOVEREIGN_BIN:-$target_dir/debug/sovereign-browser}"
export WEBKIT_DISABLE_DMABUF_RENDERER="${WEBKIT_DISABLE_DMABUF_RENDERER:-1}"
cargo build --quiet --bins

logs="$target_dir/repeat"
mkdir -p "$logs"
args=(--test --test-concurrency=1)
[[ -n $pattern ]] && args+=(--test-name-pattern "$pattern")

failed=()
total_start=$SECONDS
for ((run = 1; run <= runs; run++)); do
	log="$logs/run-$run.log"
	start=$SECONDS
	if node "${args[@]}" "$@" >"$log" 2>&1; then
		echo "repeat: run $run/$runs passed ($((SECONDS - start)) s)"
		rm -f "$log"
	else
		echo "repeat: run $run/$runs FAILED ($((SECONDS - start)) s), log: $log"
		grep -E '^not ok|^# (pass|fail)' "$log" | sed 's/^/repeat:   /' || true
		failed+=("$run")
	fi
done

passed=$((runs - ${#failed[@]}))
echo "repeat: ${passed} passed, ${#failed[@]} failed (${runs} runs in $((SECONDS - total_start)) s)"
((${#failed[@]} == 0))
