#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-each-patch.sh BUILD REPO KSRC [FIRST]
#
# Bisectability check: build the patched kernel with the first N patches of
# patches/series, for N = FIRST (default 1) to the whole series, in the
# normal build directory (so each step is an incremental build), and end
# with the whole series built again. The overlay (mm/, drivers/) is the
# same at every step, so new files must build against every prefix.
set -euo pipefail
build=$1 repo=$2 ksrc=$3 first=${4:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mapfile -t series < <(grep -v '^\s*\(#\|$\)' "$repo/patches/series" | awk '{ print $1 }')
for ((n = first; n <= ${#series[@]}; n++)); do
	rm -rf "$tmp/repo"
	mkdir -p "$tmp/repo"
	(cd "$repo" && tar cf - --exclude=./build .) | tar xf - -C "$tmp/repo"
	printf '%s\n' "${series[@]:0:n}" > "$tmp/repo/patches/series"
	echo "== series prefix $n/${#series[@]}: ${series[n-1]}"
	"$repo/scripts/build-kernel.sh" "$build" "$tmp/repo" "$ksrc" 0 0
done
echo "== every prefix of the series builds"
