#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Shared set-up for scripts/run, scripts/test and scripts/bench: install what is missing
# (Debian 12), configure and build. Build output goes to a log; only errors reach stderr.
set -euo pipefail

HEADROOM_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HEADROOM_PACKAGES=(build-essential cmake ninja-build pkg-config qt6-base-dev libqt6opengl6-dev
    qt6-charts-dev qt6-svg-dev qt6-qpa-plugins nlohmann-json3-dev libyaml-cpp-dev fonts-dejavu-core)

# Installs the Debian packages that are missing (apt-get as root; otherwise says how).
headroom_install() {
    local missing=()
    for package in "${HEADROOM_PACKAGES[@]}" "$@"; do
        if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
            missing+=("$package")
        fi
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" -ne 0 ]; then
        echo "headroom: missing packages; run this, then try again:" >&2
        echo "  sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
        exit 1
    fi
    echo "headroom: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-get install -y -qq --no-install-recommends "${missing[@]}" >/tmp/headroom-apt.log 2>&1; then
        apt-get update -qq >>/tmp/headroom-apt.log 2>&1 || true
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >>/tmp/headroom-apt.log 2>&1 || {
            tail -20 /tmp/headroom-apt.log >&2
            echo "headroom: apt-get install failed (log: /tmp/headroom-apt.log)" >&2
            exit 1
        }
    fi
}

# Configures (once) and builds incrementally into $1 with build type $2.
headroom_build() {
    local dir="$1" type="$2"
    shift 2
    local log="$dir/build.log"
    mkdir -p "$dir"
    if [ ! -f "$dir/build.ninja" ]; then
        if ! cmake -S "$HEADROOM_ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE="$type" "$@" >"$log" 2>&1; then
            grep -iE "error|could not|not found" "$log" >&2 || tail -20 "$log" >&2
            echo "headroom: configure failed (log: $log)" >&2
            exit 1
        fi
    fi
    if ! cmake --build "$dir" -- -j"$(nproc)" >>"$log" 2>&1; then
        grep -E "error|Error|FAILED" "$log" | head -40 >&2
        echo "headroom: build failed (log: $log)" >&2
        exit 1
    fi
}
