#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deb-pkg.sh BUILD REPO BASE
#
# Debian packages of the patched kernel for a host to install with
# "apt install ./linux-image-...deb": BASE (default Debian's own 6.12 amd64
# configuration) with configs/deb.config merged and checked
# (deb-config.sh), built by the kernel's bindeb-pkg in BUILD/obj-deb. The
# packages land in BUILD. With Debian's configuration this is a full
# distribution kernel, thousands of modules: hours on 2 cores. A smaller
# BASE (DEB_CONFIG=) gives a quick package.
set -euo pipefail
build=$(realpath -m "$1") repo=$(realpath "$2") base=$3
obj=$build/obj-deb src=$build/src-pmswap
# what the kernel's generated debian/control asks for (dpkg-buildpackage
# checks it for a binary build), and pahole when the base has BTF on:
# before the configuration, as Kconfig drops DEBUG_INFO_BTF without it
extra=(debhelper kmod)
case "$base" in
*.xz) cat=xzcat ;;
*) cat=cat ;;
esac
$cat "$base" 2>/dev/null | grep -qx 'CONFIG_DEBUG_INFO_BTF=y' && extra+=(dwarves)
"$repo/scripts/install-deps.sh" "${extra[@]}"
"$repo/scripts/deb-config.sh" "$build" "$repo" "$base" "$obj"
if $cat "$base" | grep -qx 'CONFIG_DEBUG_INFO_BTF=y' &&
   ! grep -qx 'CONFIG_DEBUG_INFO_BTF=y' "$obj/.config"; then
	echo "deb-pkg: the base has BTF, the merged configuration lost it (pahole missing?)" >&2
	exit 1
fi
ver=$(make -s -C "$src" kernelversion)
jobs=$(( $(nproc) + 1 ))
echo "deb-pkg: building $ver-pmswap packages in $obj with -j$jobs (from $(basename "$base"))"
start=$(date +%s)
make -s -C "$src" O="$obj" -j"$jobs" KDEB_PKGVERSION="$ver-pmswap1" bindeb-pkg
echo "deb-pkg: done in $(( $(date +%s) - start ))s:"
ls -1 "$build"/linux-*"$ver-pmswap1"*.deb
