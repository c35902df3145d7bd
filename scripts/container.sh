#!/usr/bin/env bash
# Builds the container image with podman, without a registry, and runs its
# tests (tests/container.test.mjs: the image run for real, and the
# Kubernetes pod template played by podman).
#
#   scripts/container.sh          build the image, then test it
#   scripts/container.sh build    only build it (tag: localhost/sovereign-browser)
#
# Steps: the release binaries (cargo build --release --locked); a Debian 12
# base made by mmdebstrap and imported (kept in target/container/, made
# again after a week); the image, built from Containerfile with
# BINARIES=prebuilt. Podman runs with runc and open-file limits within the
# machine's hard limits (target/container/containers.conf). Installs
# podman, runc and mmdebstrap when they are missing (scripts/setup.sh).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mode=${1:-all}
case $mode in
all | build) ;;
-h | --help)
	sed -n '2,14s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
	exit 0
	;;
*)
	echo "container: unknown argument: $mode (see --help)" >&2
	exit 2
	;;
esac

# shellcheck source=scripts/setup.sh
source "$root/scripts/setup.sh" --with-test-deps
cd "$root"

log() { echo "container: $*" >&2; }

work="$root/target/container"
mkdir -p "$work"
image=localhost/sovereign-browser:latest
base_image=localhost/sovereign-base:bookworm

# Podman's defaults ask for more open files than this machine allows, and
# crun fails on its cgroup hierarchy: runc, and limits it can grant.
hard_nofile=$(ulimit -Hn)
[[ $hard_nofile == unlimited ]] && hard_nofile=1048576
cat >"$work/containers.conf" <<EOF
[containers]
default_ulimits = ["nofile=${hard_nofile}:${hard_nofile}", "nproc=32768:32768"]
[engine]
runtime = "runc"
EOF
export CONTAINERS_CONF="$work/containers.conf"

started=$SECONDS
log "release binaries (cargo build --release --locked)"
cargo build --release --locked --bin sovereign-browser --bin sovereign-browser-engine --bin sovereign

base_tar="$work/bookworm-minbase.tar"
if [[ ! -s $base_tar ]] || [[ -n $(find "$base_tar" -mtime +7) ]]; then
	log "a Debian 12 base (mmdebstrap --variant=minbase)"
	rm -f "$base_tar"
	mmdebstrap --quiet --variant=minbase --format=tar bookworm "$base_tar.part"
	mv "$base_tar.part" "$base_tar"
	podman rmi --force "$base_image" >/dev/null 2>&1 || true
fi
if ! podman image exists "$base_image"; then
	podman import --quiet "$base_tar" "$base_image" >/dev/null
fi

log "the image ($image)"
podman build --quiet --build-arg BASE="$base_image" --build-arg BINARIES=prebuilt \
	--tag "$image" --file Containerfile . >/dev/null
size=$(podman image inspect --format '{{.Size}}' "$image")
log "image $image: $((size / 1000000)) MB, built in $((SECONDS - started)) s"

if [[ $mode == build ]]; then
	exit 0
fi
log "testing it (tests/container.test.mjs)"
SOVEREIGN_IMAGE=$image node --test --test-concurrency=1 tests/container.test.mjs
log "done in $((SECONDS - started)) s"
