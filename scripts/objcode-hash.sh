#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# objcode-hash.sh OBJDIR OUT
#
# For every object file of a kernel build directory, one line "PATH HASH":
# a hash of the bytes of its executable sections and of their relocations
# (offset, type, symbol + addend). Two builds whose lists are equal ran
# the same machine code: a change that only moves declarations or
# comments changes line numbers (the bug table, debug info), not these.
# Used to show that a reshaping commit leaves the kernel's code alone.
set -uo pipefail
obj=$1 out=$2
: > "$out"
cd "$obj" || exit 1
find . -name '*.o' ! -name '*.mod.o' ! -path './scripts/*' ! -path './tools/*' | sort |
while read -r f; do
	secs=$(readelf -SW "$f" 2>/dev/null |
	       awk '$0 ~ /\]/ { sub(/^.*\] */, ""); if ($7 ~ /X/) print $1 }')
	[ -n "$secs" ] || continue
	h=$( for s in $secs; do
		echo "== $s"
		objcopy -O binary -j "$s" "$f" /dev/stdout 2>/dev/null | sha1sum
	     done
	     readelf -rW "$f" 2>/dev/null | awk '
		/^Relocation section/ {
			keep = ($3 ~ /\.rela\.(text|init\.text|noinstr|sched|cpuidle|ref|exit|head|entry|spinlock|kprobes|irqentry|softirqentry|altinstr)/)
			print; next
		}
		keep && NF >= 5 { print $1, $3, $5, $6, $7 }' | sha1sum )
	echo "$f $(echo "$h" | sha1sum | cut -c1-16)" >> "$out"
done
