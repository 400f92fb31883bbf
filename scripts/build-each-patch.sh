#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-each-patch.sh BUILD REPO KSRC [FIRST] [QUICK]
#
# Bisectability check: build the patched kernel with the first N patches of
# patches/series, for N = FIRST (default 1) to the whole series, in the
# normal build directory (so each step is an incremental build), and end
# with the whole series built again. The overlay (mm/, drivers/,
# include/) is the same at every step, so new files must build against
# every prefix: what they need from a feature is under its option, which
# the feature's patch adds to mm/pmswap/Kconfig, and the configuration
# fragments are cut to the options the prefix defines.
#
# Three patches change a header that nearly every file includes: their
# prefixes, and the first, are close to a full build (3.5 to 5.5 minutes
# on 2 cores), the others incremental (seconds); 22 minutes for the series at d736528
# (tests/results/series-check/full-d736528.log).
#
# QUICK=1: for each prefix, compile only the object files of the C files
# that the series changes and of the overlay's C files (those the
# prefix's Makefiles build in the guest configuration, as make kernel's
# build/obj-pmswap shows), in a tree and
# object directory of their own (build/src-series, build/obj-series), so
# the normal and debug builds are left alone. It catches what does not
# compile at a prefix; it does not link, so a call into a later patch's
# code is only caught by the full check.
set -euo pipefail
build=$1 repo=$2 ksrc=$3 first=${4:-1} quick=${5:-0}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mapfile -t series < <(grep -v '^\s*\(#\|$\)' "$repo/patches/series" | awk '{ print $1 }')

quick_prefix() {
	local src=$build/src-series obj=$build/obj-series f o n=0
	local -a objs=()

	"$repo/scripts/prepare-tree.sh" "$build/linux" "$src" "$tmp/repo"
	mkdir -p "$obj"
	cat "$tmp/repo/configs/pmswap.config" "$tmp/repo/configs/features.config" > "$obj/frag"
	make -s -C "$src" O="$obj" KCONFIG_ALLCONFIG="$obj/frag" allnoconfig
	# the C files the whole series touches, and the overlay's
	for f in $( (grep -h '^+++ b/.*\.c$' "$repo"/patches/*.patch | sed 's#^+++ b/##'
		     cd "$repo" && find mm drivers -name '*.c' 2>/dev/null) | sort -u); do
		[ -f "$src/$f" ] || continue
		o=${f%.c}.o
		# built in this configuration at this prefix?
		grep -qE "(^|[[:space:]])$(basename "$o")([[:space:]]|$)" "$src/$(dirname "$f")/Makefile" || continue
		grep -q "^CONFIG_PMSWAP=y" "$obj/.config" || continue
		objs+=("$o")
	done
	# keep the objects this configuration builds: those the whole
	# series' build made (make kernel, build/obj-pmswap), when there is one
	local -a want=()
	for o in "${objs[@]}"; do
		if [ ! -f "$build/obj-pmswap/vmlinux" ] || [ -f "$build/obj-pmswap/$o" ]; then
			want+=("$o")
			n=$((n + 1))
		fi
	done
	[ "$n" -gt 0 ] || { echo "series-check: nothing to compile at prefix $1" >&2; exit 1; }
	echo "series-check: compiling $n object files"
	cc=gcc
	command -v ccache >/dev/null && cc="ccache gcc"
	if ! make -s -C "$src" O="$obj" CC="$cc" -j"$(( $(nproc) + 1 ))" "${want[@]}" \
		> "$obj/build.log" 2>&1; then
		grep -E 'error|Error' "$obj/build.log" | head -40 >&2
		echo "series-check: prefix $1 does not compile, full log: $obj/build.log" >&2
		exit 1
	fi
	grep -E 'warning:' "$obj/build.log" | head -20 >&2 || true
}

for ((n = first; n <= ${#series[@]}; n++)); do
	rm -rf "$tmp/repo"
	mkdir -p "$tmp/repo"
	(cd "$repo" && tar cf - --exclude=./build .) | tar xf - -C "$tmp/repo"
	printf '%s\n' "${series[@]:0:n}" > "$tmp/repo/patches/series"
	# each pmswap option comes with the patch that adds its feature: the
	# configuration fragments keep only the options this prefix defines
	have=$(cd "$repo/patches" && sed -n 's/^+\(menu\)\{0,1\}config \(PMSWAP[A-Z0-9_]*\)$/\2/p' \
		"${series[@]:0:n}" | sort -u | tr '\n' ' ')
	for c in "$tmp"/repo/configs/*.config; do
		awk -v have=" $have" '{ if (match($0, /CONFIG_PMSWAP[A-Z0-9_]*/)) {
			o = substr($0, RSTART + 7, RLENGTH - 7)
			if (index(have, " " o " ") == 0) next } print }' "$c" > "$c.new" && mv "$c.new" "$c"
	done
	echo "== series prefix $n/${#series[@]}: ${series[n-1]} (options: ${have:-none})"
	if [ "$quick" = 1 ]; then
		start=$(date +%s)
		quick_prefix "$n"
		echo "series-check: prefix $n compiles ($(( $(date +%s) - start ))s)"
	else
		"$repo/scripts/build-kernel.sh" "$build" "$tmp/repo" "$ksrc" 0 0
	fi
done
if [ "$quick" = 1 ]; then
	echo "== the changed files compile at every prefix of the series (QUICK=1: not linked)"
else
	echo "== every prefix of the series builds"
fi
