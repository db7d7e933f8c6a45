#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Shared set-up for scripts/run, scripts/test and scripts/bench: install what is missing
# (Debian 12), configure and build with progress on stderr. The full build output goes to
# <tree>/build.log; only errors reach the terminal. ccache is used when it is installed.
set -euo pipefail

HEADROOM_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HEADROOM_PACKAGES=(build-essential cmake ninja-build pkg-config qt6-base-dev libqt6opengl6-dev
    qt6-charts-dev qt6-svg-dev qt6-qpa-plugins nlohmann-json3-dev libyaml-cpp-dev libtomlplusplus-dev fonts-dejavu-core)
# What the packaging test checks the .deb with (lintian is optional: the test skips without it).
HEADROOM_PACKAGING_PACKAGES=(dpkg-dev desktop-file-utils appstream shared-mime-info man-db)
# What the tests compare with: PyYAML (our YAML reading against the frameworks' reader) and
# PyTorch on CPU (the probe for training scripts, tested with CUDA memory functions the test provides).
HEADROOM_TEST_PACKAGES=(python3-yaml python3-torch)
# The tree scripts/run and scripts/test share (same flags, built once).
HEADROOM_TREE="$HEADROOM_ROOT/build"
HEADROOM_TREE_FLAGS=(-DHEADROOM_WERROR=ON)
# How long a build from nothing takes on a 2-core Debian 12 machine without ccache (measured
# from a fresh clone, docs/performance.md); said before such a build starts. Scripts set it.
HEADROOM_FIRST_BUILD="about 11 minutes on 2 cores"

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

# Reads ninja's "[n/N] ..." lines on stdin and shows progress on stderr: one updating line on a
# terminal, a plain line every tenth of the way otherwise (logs, CI).
headroom_progress() {
    local line tty=0 columns=80 tenth=-1 n total
    if [ -t 2 ]; then
        tty=1
        columns=$(tput cols 2>/dev/null || echo 80)
    fi
    while IFS= read -r line; do
        [[ $line =~ ^\[([0-9]+)/([0-9]+)\]\  ]] || continue
        n=${BASH_REMATCH[1]}
        total=${BASH_REMATCH[2]}
        if [ $tty -eq 1 ]; then
            printf '\r\033[K%s' "${line:0:$((columns - 1))}" >&2
        elif [ $((n * 10 / total)) -gt $tenth ]; then
            tenth=$((n * 10 / total))
            echo "headroom: building [$n/$total]" >&2
        fi
    done
    if [ $tty -eq 1 ]; then printf '\r\033[K' >&2; fi
    return 0
}

# headroom_build DIR TYPE [cmake -D flags...] [-- targets...]
# Configures DIR (again only when the flags change) and builds it incrementally.
headroom_build() {
    local dir="$1" type="$2"
    shift 2
    local flags=() targets=()
    while [ $# -gt 0 ]; do
        if [ "$1" = "--" ]; then
            shift
            targets=("$@")
            break
        fi
        flags+=("$1")
        shift
    done
    if command -v ccache >/dev/null 2>&1; then
        # CCACHE_DISABLE=1 still turns it off; a shared base dir lets clones share the cache.
        flags+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
        export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$HEADROOM_ROOT}"
    fi
    local log="$dir/build.log" stamp="$dir/.headroom-flags"
    local wanted="-G Ninja -DCMAKE_BUILD_TYPE=$type ${flags[*]}"
    mkdir -p "$dir"
    : >"$log"
    if [ ! -f "$dir/build.ninja" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
        if ! cmake -S "$HEADROOM_ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE="$type" "${flags[@]}" >>"$log" 2>&1; then
            grep -iE "error|could not|not found" "$log" >&2 || tail -20 "$log" >&2
            echo "headroom: configure failed (log: $log)" >&2
            exit 1
        fi
        echo "$wanted" >"$stamp"
    fi
    local first=0 start=$SECONDS name="${targets[*]:-all}"
    local built="$dir/.headroom-built-${name// /-}"
    if [ ! -f "$built" ]; then
        first=1
        echo "headroom: first build of ${dir#"$HEADROOM_ROOT"/}/ ($type): $HEADROOM_FIRST_BUILD," \
             "seconds afterwards (ccache makes later first builds fast)" >&2
    fi
    if ! NINJA_STATUS="[%f/%t] " cmake --build "$dir" ${targets[@]+--target "${targets[@]}"} \
            -- -j"$(nproc)" 2>&1 | tee -a "$log" | headroom_progress; then
        grep -E "error|Error|FAILED" "$log" | head -40 >&2
        echo "headroom: build failed (log: $log)" >&2
        exit 1
    fi
    if [ $first -eq 1 ]; then
        touch "$built"
        echo "headroom: built ${dir#"$HEADROOM_ROOT"/}/ in $(((SECONDS - start) / 60))m$(((SECONDS - start) % 60))s" >&2
    fi
}
