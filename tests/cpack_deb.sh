#!/bin/sh
# `cpack -G DEB` (issue 21): the package holds the stripped kdt, its man
# page, bash and zsh completion, runtime headers, CMake package and pkg-config file,
# names its dependencies, and its kdt runs from the unpacked tree; as root,
# dpkg accepts it for installation (--dry-run: nothing is changed).
#
# Usage: cpack_deb.sh BUILD_DIR WORK_DIR [CPACK]
set -eu
build=$1
work=$2
cpack=${3:-cpack}
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v dpkg-deb >/dev/null || { echo "DEB-SKIPPED: no dpkg-deb"; exit 0; }

rm -rf "$work"
mkdir -p "$work"
(cd "$build" && "$cpack" -G DEB -B "$work" >"$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; fail "cpack -G DEB"; }
deb=$(ls "$work"/kdt_*_*.deb)
dpkg-deb -f "$deb" Package | grep -qx kdt || fail "the package is not called kdt"
dpkg-deb -f "$deb" Depends | grep -q "libantlr4-runtime4.9" || fail "no dependency on the ANTLR runtime"
dpkg-deb -f "$deb" Depends | grep -q "libboost-program-options" || fail "no dependency on Boost.Program_options"
dpkg-deb -c "$deb" >"$work/contents.txt"
for path in ./usr/bin/kdt ./usr/share/man/man1/kdt.1 ./usr/share/bash-completion/completions/kdt \
            ./usr/share/zsh/vendor-completions/_kdt \
            ./usr/include/kdt/runtime/kdt_runtime.h ./usr/share/pkgconfig/kdt.pc ./usr/lib/cmake/kdt/kdtConfig.cmake; do
  grep -q " $path\$" "$work/contents.txt" || fail "the package lacks $path"
done
dpkg-deb -x "$deb" "$work/root"
if readelf -S "$work/root/usr/bin/kdt" | grep -q '\.debug_info'; then fail "the packaged kdt is not stripped"; fi
"$work/root/usr/bin/kdt" --version >/dev/null || fail "the packaged kdt does not run"
if [ "$(id -u)" = 0 ]; then
  dpkg --dry-run -i "$deb" >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg would not install the package"; }
fi
echo "cpack deb: ok ($(du -k "$deb" | cut -f1) KiB)"
rm -rf "$work"
