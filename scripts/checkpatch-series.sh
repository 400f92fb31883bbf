#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch-series.sh KERNEL-TREE REPO
#
# Run the kernel's checkpatch.pl --strict on every patch in patches/series
# and on every new kernel source file under mm/, drivers/ and include/; one TAP test
# point each. Any error, warning or check fails.
set -uo pipefail
tree=$1 repo=$2
cp=$tree/scripts/checkpatch.pl
opts=(--strict --no-tree --quiet --show-types)
files=()
while read -r p _; do
	case "$p" in ''|'#'*) continue ;; esac
	files+=("patches/$p")
done < "$repo/patches/series"
while IFS= read -r f; do
	files+=("$f")
done < <(cd "$repo" && find mm drivers include -type f \( -name '*.c' -o -name '*.h' \) 2>/dev/null | sort)

echo "TAP version 13"
echo "1..${#files[@]}"
n=0 fail=0
for f in "${files[@]}"; do
	n=$((n + 1))
	fopt=()
	case "$f" in patches/*) ;; *) fopt=(-f) ;; esac
	if out=$("$cp" "${opts[@]}" "${fopt[@]}" "$repo/$f" 2>&1); then
		echo "ok $n checkpatch --strict $f"
	else
		echo "$out" | sed 's/^/# /'
		echo "not ok $n checkpatch --strict $f"
		fail=1
	fi
done
exit $fail
