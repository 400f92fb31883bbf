#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-kernel.sh BUILD REPO KSRC STOCK DEBUG [BENCH]
#
# Extract the 6.12 source once, prepare the patched tree (unless STOCK=1),
# configure it from the committed fragments and build bzImage out of tree.
# Every step is incremental: a second run with no change does almost
# nothing.
set -euo pipefail

build=$1 repo=$2 ksrc=$3 stock=${4:-0} debug=${5:-0} bench=${6:-0}
pristine=$build/linux

# 1. pristine source
if [ ! -f "$pristine/.pmswap-extracted" ]; then
	if [ -d "$ksrc" ]; then
		echo "kernel: copying source from $ksrc"
		rm -rf "$pristine"
		cp -a "$ksrc" "$pristine"
	else
		[ -f "$ksrc" ] || { echo "kernel: no kernel source at $ksrc (install linux-source-6.12 or set KSRC=)" >&2; exit 1; }
		echo "kernel: extracting $ksrc"
		rm -rf "$pristine" "$build/linux.tmp"
		mkdir -p "$build/linux.tmp"
		tar -xf "$ksrc" -C "$build/linux.tmp"
		mv "$build/linux.tmp"/* "$pristine"
		rm -rf "$build/linux.tmp"
	fi
	touch "$pristine/.pmswap-extracted"
fi
ver=$(make -s -C "$pristine" kernelversion)
case "$ver" in
6.12.*) ;;
*) echo "kernel: warning: pmswap is written for Linux 6.12, found $ver" >&2 ;;
esac
[ "$stock" = extract-only ] && exit 0

# 2. source tree for this variant
frags=("$repo/configs/pmswap.config")
if [ "$stock" = 1 ]; then
	src=$pristine
	name=stock
else
	src=$build/src-pmswap
	name=pmswap
	"$repo/scripts/prepare-tree.sh" "$pristine" "$src" "$repo"
	frags+=("$repo/configs/features.config")
fi
if [ "$debug" = 1 ]; then
	frags+=("$repo/configs/debug.config")
	name=$name-debug
fi
if [ "$bench" = 1 ]; then
	[ "$debug" = 1 ] && { echo "kernel: DEBUG=1 and BENCH=1 exclude each other" >&2; exit 2; }
	frags+=("$repo/configs/bench.config")
	name=$name-bench
fi
obj=$build/obj-$name
mkdir -p "$obj"

# 3. configuration: allnoconfig + fragments, redone when a fragment changes
cat "${frags[@]}" > "$obj/pmswap.fragment.new"
if ! cmp -s "$obj/pmswap.fragment.new" "$obj/pmswap.fragment" || [ ! -f "$obj/.config" ]; then
	echo "kernel: configuring $name"
	make -s -C "$src" O="$obj" KCONFIG_ALLCONFIG="$obj/pmswap.fragment.new" allnoconfig
	bad=0
	# a later fragment overrides an earlier one: check the last line of
	# each option only
	while IFS= read -r l; do
		k=${l%%=*} v=${l#*=}
		if [ "$v" = n ]; then
			if grep -q "^$k=" "$obj/.config"; then echo "kernel: $k should be off" >&2; bad=1; fi
		elif ! grep -qx "$l" "$obj/.config"; then
			echo "kernel: config fragment asks for $l, got: $(grep "^# $k is not set\|^$k=" "$obj/.config" || echo nothing)" >&2
			bad=1
		fi
	done < <(grep -h '^CONFIG_' "$obj/pmswap.fragment.new" | tac | awk -F= '!seen[$1]++' | tac)
	[ $bad = 0 ] || { echo "kernel: configuration of $name is incomplete" >&2; exit 1; }
	mv "$obj/pmswap.fragment.new" "$obj/pmswap.fragment"
else
	rm -f "$obj/pmswap.fragment.new"
fi

# 4. build
cc=gcc
if command -v ccache >/dev/null; then
	cc="ccache gcc"
	export CCACHE_BASEDIR=$build CCACHE_NOHASHDIR=1
fi
export KBUILD_BUILD_TIMESTAMP="2024-11-17" KBUILD_BUILD_USER=pmswap KBUILD_BUILD_HOST=pmswap
jobs=$(( $(nproc) + 1 ))
echo "kernel: building $name ($ver) in $obj with -j$jobs"
start=$(date +%s)
if ! make -s -C "$src" O="$obj" CC="$cc" -j"$jobs" bzImage > "$obj/build.log" 2>&1; then
	grep -E 'error|Error' "$obj/build.log" | head -40 >&2
	echo "kernel: build of $name failed, full log: $obj/build.log" >&2
	exit 1
fi
grep -E 'warning:' "$obj/build.log" | head -20 >&2 || true
echo "kernel: $name built in $(( $(date +%s) - start ))s: $obj/arch/x86/boot/bzImage"
