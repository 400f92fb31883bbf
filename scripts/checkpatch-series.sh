#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch-series.sh KERNEL-TREE REPO
#
# Run the kernel's checkpatch.pl --strict on every patch in patches/series
# and on every new kernel source file under mm/ and drivers/. Any error,
# warning or check fails.
set -uo pipefail
tree=$1 repo=$2
cp=$tree/scripts/checkpatch.pl
opts=(--strict --no-tree --quiet --show-types)
fail=0 n=0
while read -r p _; do
	case "$p" in ''|'#'*) continue ;; esac
	n=$((n + 1))
	if ! "$cp" "${opts[@]}" "$repo/patches/$p"; then
		echo "checkpatch: $p has style problems"
		fail=1
	fi
done < "$repo/patches/series"
while IFS= read -r -d '' f; do
	n=$((n + 1))
	if ! "$cp" "${opts[@]}" -f "$f"; then
		echo "checkpatch: ${f#"$repo"/} has style problems"
		fail=1
	fi
done < <(find "$repo/mm" "$repo/drivers" -type f \( -name '*.c' -o -name '*.h' \) -print0 2>/dev/null)
echo "checkpatch: $n file(s) checked, $([ $fail = 0 ] && echo clean || echo FAILED)"
exit $fail
