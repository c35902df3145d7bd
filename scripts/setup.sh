#!/usr/bin/env bash
# Installs what Sovereign Browser needs to build (and, with --with-test-deps,
# to run its tests), skipping everything that is already there.
#
#   scripts/setup.sh [--with-test-deps]
#
# Also works when sourced from another script (start.sh and test.sh do this,
# so that a Rust toolchain found through ~/.cargo/env stays on their PATH).
# Pass the options explicitly when sourcing ("--" for none): a sourced script
# otherwise sees the caller's arguments. On failure it exits, taking a
# sourcing script with it.
#
# Environment: SETUP_WITH_TEST_DEPS=1 is the same as --with-test-deps.
#
# System packages are installed on Debian 12 / Ubuntu with apt-get, as root
# or through sudo. The Rust toolchain is not installed: get it with rustup.

set -euo pipefail

setup_log() { printf 'setup: %s\n' "$*" >&2; }
setup_die() {
	printf 'setup: error: %s\n' "$*" >&2
	exit 1
}

# Packages needed to build and run the browser.
SETUP_BUILD_PACKAGES=(
	libwebkit2gtk-4.1-dev libgtk-3-dev libsoup-3.0-dev libxdo-dev
	libxtst6 xvfb xauth pkg-config build-essential
)
SETUP_MIN_RUST="1.85"
SETUP_MIN_NODE_MAJOR=20

setup_usage() {
	cat >&2 <<'EOF'
usage: scripts/setup.sh [--with-test-deps]

Installs the missing system packages needed to build Sovereign Browser and
checks for the Rust toolchain.

  --with-test-deps   also make sure Node.js, npm, Chromium, xdotool, xclip, pdftotext, python3 with pip,
                     podman, runc and mmdebstrap are present, and install the test suite's npm and
                     Python packages
EOF
}

# True when the Debian package is installed (not merely known or removed).
setup_pkg_installed() {
	local status
	status=$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null) || return 1
	[[ $status == "install ok installed" ]]
}

# Runs apt-get as root: directly, through sudo, or explains what to do.
setup_apt_get() {
	if [[ $(id -u) -eq 0 ]]; then
		env DEBIAN_FRONTEND=noninteractive apt-get "$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo env DEBIAN_FRONTEND=noninteractive apt-get "$@"
	else
		setup_die "installing packages needs root and sudo is not available; as root, run:
  apt-get update && apt-get install -y ${SETUP_MISSING[*]}
then run this script again"
	fi
}

# Compares dotted versions: true when $1 >= $2.
setup_version_at_least() {
	local IFS=.
	local -a have want
	read -r -a have <<<"$1"
	read -r -a want <<<"$2"
	local i
	for i in 0 1 2; do
		local h=${have[i]:-0} w=${want[i]:-0}
		if ((10#$h > 10#$w)); then return 0; fi
		if ((10#$h < 10#$w)); then return 1; fi
	done
	return 0
}

setup_install_missing() {
	SETUP_MISSING=()
	if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
		setup_log "not a Debian/Ubuntu system: make sure the equivalents of these are installed:"
		setup_log "  ${SETUP_BUILD_PACKAGES[*]}"
		if [[ $SETUP_WITH_TEST_DEPS == 1 ]]; then
			setup_log "  and, for the tests: Node.js ${SETUP_MIN_NODE_MAJOR}+ with npm, and Chromium"
		fi
		return 0
	fi

	local pkg
	for pkg in "${SETUP_BUILD_PACKAGES[@]}"; do
		setup_pkg_installed "$pkg" || SETUP_MISSING+=("$pkg")
	done
	if [[ $SETUP_WITH_TEST_DEPS == 1 ]]; then
		# Node.js may come from elsewhere than Debian's archive: look for the
		# commands, not the packages.
		command -v node >/dev/null 2>&1 || SETUP_MISSING+=(nodejs)
		command -v npm >/dev/null 2>&1 || SETUP_MISSING+=(npm)
		if ! command -v chromium >/dev/null 2>&1 && ! setup_pkg_installed chromium; then
			SETUP_MISSING+=(chromium)
		fi
		# Real X input for the window tests (a person's clicks and keys).
		command -v xdotool >/dev/null 2>&1 || SETUP_MISSING+=(xdotool)
		# Another program's copy, for the clipboard tests (what the person copies).
		command -v xclip >/dev/null 2>&1 || SETUP_MISSING+=(xclip)
		# A test CA and its sites' certificates, for the https routes tests.
		command -v openssl >/dev/null 2>&1 || SETUP_MISSING+=(openssl)
		# A PDF reader to check the PDFs the browser prints.
		command -v pdftotext >/dev/null 2>&1 || SETUP_MISSING+=(poppler-utils)
		# Closing the window as a window manager would (tests/support/close_window.py),
		# and the MCP Python SDK's client (installed with pip, see below).
		command -v python3 >/dev/null 2>&1 || SETUP_MISSING+=(python3)
		python3 -m pip --version >/dev/null 2>&1 || SETUP_MISSING+=(python3-pip)
		# The container image's build and tests (scripts/container.sh).
		for pkg in podman runc mmdebstrap; do
			setup_pkg_installed "$pkg" || SETUP_MISSING+=("$pkg")
		done
	fi

	if ((${#SETUP_MISSING[@]} == 0)); then
		setup_log "system packages: all present"
		return 0
	fi
	setup_log "installing missing packages: ${SETUP_MISSING[*]}"
	setup_apt_get update -qq >&2 || setup_die "apt-get update failed"
	setup_apt_get install -y -q "${SETUP_MISSING[@]}" >&2 ||
		setup_die "apt-get install failed for: ${SETUP_MISSING[*]}"
	setup_log "installed: ${SETUP_MISSING[*]}"
}

setup_check_rust() {
	if ! command -v cargo >/dev/null 2>&1 && [[ -f "${HOME:-}/.cargo/env" ]]; then
		# shellcheck source=/dev/null
		. "$HOME/.cargo/env"
	fi
	if ! command -v cargo >/dev/null 2>&1; then
		cat >&2 <<EOF
setup: error: cargo was not found (looked on PATH and in \$HOME/.cargo/env).
setup: Sovereign Browser needs Rust ${SETUP_MIN_RUST} or newer. Install it with rustup:
setup:   curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh
setup: then open a new shell (or run: . "\$HOME/.cargo/env") and run this again.
EOF
		exit 1
	fi
	local version
	version=$(rustc --version 2>/dev/null | awk '{print $2}') || version=""
	version=${version%%-*}
	if [[ -z $version ]]; then
		setup_die "cargo is on PATH but rustc does not answer; check the Rust installation"
	fi
	if ! setup_version_at_least "$version" "$SETUP_MIN_RUST"; then
		setup_die "Rust ${SETUP_MIN_RUST} or newer is needed, found ${version}; update it with: rustup update stable"
	fi
	setup_log "rust: ${version}"
}

# rustfmt and clippy for the test suite's format and lint stages.
setup_check_rust_components() {
	local missing=()
	if command -v rustup >/dev/null 2>&1; then
		local installed
		installed=$(cd "$SETUP_ROOT" && rustup component list --installed 2>/dev/null) || installed=""
		grep -q '^rustfmt' <<<"$installed" || missing+=(rustfmt)
		grep -q '^clippy' <<<"$installed" || missing+=(clippy)
		if ((${#missing[@]} > 0)); then
			setup_log "adding Rust components: ${missing[*]}"
			(cd "$SETUP_ROOT" && rustup component add "${missing[@]}") >&2 ||
				setup_die "rustup component add ${missing[*]} failed"
		fi
	else
		command -v rustfmt >/dev/null 2>&1 || missing+=(rustfmt)
		command -v cargo-clippy >/dev/null 2>&1 || missing+=(clippy)
		if ((${#missing[@]} > 0)); then
			setup_die "the tests need these Rust components: ${missing[*]} (install them with your Rust toolchain)"
		fi
	fi
}

setup_check_node() {
	command -v node >/dev/null 2>&1 || setup_die "node was not found after installing nodejs"
	command -v npm >/dev/null 2>&1 || setup_die "npm was not found after installing npm"
	local version major
	version=$(node --version)
	major=${version#v}
	major=${major%%.*}
	if ! [[ $major =~ ^[0-9]+$ ]] || ((major < SETUP_MIN_NODE_MAJOR)); then
		setup_die "the tests need Node.js ${SETUP_MIN_NODE_MAJOR} or newer, found ${version}; install a newer Node.js and run this again"
	fi
	setup_log "node: ${version}, npm: $(npm --version)"
}

setup_npm_install() {
	cd "$SETUP_ROOT"
	if [[ -f package-lock.json ]]; then
		setup_log "installing npm packages (npm ci)"
		npm ci --no-audit --no-fund >&2 || setup_die "npm ci failed"
	else
		setup_log "installing npm packages (npm install; no package-lock.json)"
		npm install --no-audit --no-fund >&2 || setup_die "npm install failed"
	fi
}

# The tests' Python packages (tests/requirements.txt), in a folder of the
# checkout's own: nothing is installed for the system or the user. Trac
# has a folder of its own: its `multipart` is another package than the one
# of that name the MCP SDK brings.
setup_python_install() {
	setup_python_folder tests/requirements.txt target/python-tests
	setup_python_folder tests/requirements-trac.txt target/python-trac
}

# Installs the packages a requirements file names into a folder, unless the
# folder holds them already.
setup_python_folder() {
	local requirements="$SETUP_ROOT/$1" dir="$SETUP_ROOT/$2" wanted
	wanted=$(cat "$requirements")
	if [[ -f $dir/.installed && $(cat "$dir/.installed") == "$wanted" ]]; then
		setup_log "python test packages ($1): present"
		return 0
	fi
	setup_log "installing python test packages ($1) into $2"
	rm -rf "$dir"
	# A target folder changes no environment, so Debian's guard against
	# pip in the system's Python does not apply.
	PIP_BREAK_SYSTEM_PACKAGES=1 PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check \
		--no-warn-conflicts --no-warn-script-location --target "$dir" \
		-r "$requirements" >&2 || setup_die "pip install of $1 failed"
	printf '%s' "$wanted" >"$dir/.installed"
}

setup_main() {
	case ${SETUP_WITH_TEST_DEPS:-0} in
	1 | true | yes) SETUP_WITH_TEST_DEPS=1 ;;
	*) SETUP_WITH_TEST_DEPS=0 ;;
	esac
	while (($# > 0)); do
		case $1 in
		--with-test-deps) SETUP_WITH_TEST_DEPS=1 ;;
		-h | --help)
			setup_usage
			exit 0
			;;
		--) break ;;
		*)
			setup_usage
			setup_die "unknown option: $1"
			;;
		esac
		shift
	done

	SETUP_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

	setup_install_missing
	setup_check_rust
	if [[ $SETUP_WITH_TEST_DEPS == 1 ]]; then
		setup_check_rust_components
		setup_check_node
		setup_npm_install
		setup_python_install
	fi
	setup_log "ready"
}

# Run in the current shell so that PATH changes reach a sourcing script; the
# working directory is put back afterwards.
SETUP_OLDPWD=$PWD
setup_main "$@"
cd "$SETUP_OLDPWD"
unset SETUP_OLDPWD
