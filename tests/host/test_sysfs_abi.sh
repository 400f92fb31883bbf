#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# pmswap's sysfs files follow the kernel's rules: one value per file, and
# every file documented in Documentation/ABI/testing/sysfs-kernel-mm-pmswap
# in the format scripts/get_abi.pl reads. Checked on the sources: every
# attribute mm/ defines (__ATTR*, and the counter macros) has its entry,
# every entry names an attribute that exists, no sysfs_emit() format in
# pmswap's files prints more than one line, and get_abi.pl parses the
# file without a warning.
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=${PMSWAP_BUILD:-$repo/build}
abi=$repo/Documentation/ABI/testing/sysfs-kernel-mm-pmswap
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
t() {	# t RESULT DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; fail=1; fi
}
echo "TAP version 13"
echo "1..5"
src=("$repo"/mm/pmswap/*.c)

# attribute names: __ATTR_RW(x), __ATTR_RO(x), __ATTR_RW_MODE(x, m),
# __ATTR_RO_MODE(x, m), and the stats macros' first argument
grep -hoE '__ATTR(_RW|_RO)(_MODE)?\([a-z0-9_]+' "${src[@]}" |
	sed 's/.*(//' | grep -vx '_name' > "$tmp/attrs"
grep -hoE '^(PMEM_STAT_ATTR|INPLACE_STAT_ATTR)\([a-z0-9_]+' "${src[@]}" |
	sed 's/.*(//' >> "$tmp/attrs"
sort -u -o "$tmp/attrs" "$tmp/attrs"
[ -f "$abi" ] && [ "$(wc -l < "$tmp/attrs")" -ge 20 ]
t $? "the ABI file exists; $(wc -l < "$tmp/attrs") attributes found in mm/"

# documented: a What: path ending in the name, or a table row naming it
# under a What: that ends in a directory or a wildcard
grep -oE '^What:[[:space:]]+/sys/kernel/mm/pmswap/[^[:space:]]*' "$abi" |
	awk '{ print $2 }' > "$tmp/what"
missing=
while read -r a; do
	grep -qE "/$a\$" "$tmp/what" && continue
	grep -qE "^[[:space:]]+$a[[:space:]]" "$abi" && continue
	missing="$missing $a"
done < "$tmp/attrs"
[ -z "$missing" ]
t $? "every attribute has an ABI entry${missing:+ (missing:$missing)}"

# no entry for a file that does not exist (directories end in /, the
# in-place counters are one wildcard entry listed in its table)
stale=
while read -r w; do
	case "$w" in */|*'*') continue ;; esac
	grep -qx "${w##*/}" "$tmp/attrs" || stale="$stale $w"
done < "$tmp/what"
[ -z "$stale" ]
t $? "every ABI entry names an attribute that exists${stale:+ (stale:$stale)}"

# one value per file: a sysfs_emit() format with two newlines prints two
# lines (the old multi-line stats files)
grep -nE 'sysfs_emit(_at)?\(' -A3 "${src[@]}" | tr -d '\n' |
	grep -oE 'sysfs_emit(_at)?\([^;]*;' | grep -E '\\n[^"]*\\n|\\n[^;]*"[^"]*\\n' > "$tmp/multi"
[ ! -s "$tmp/multi" ]
t $? "no sysfs show prints more than one line$( [ -s "$tmp/multi" ] && printf ' (%s)' "$(head -c 200 "$tmp/multi")")"

# scripts/get_abi.pl (the kernel's own reader) parses it cleanly
getabi=$build/linux/scripts/get_abi.pl
mkdir -p "$tmp/abi"
cp "$abi" "$tmp/abi/"
if [ -f "$getabi" ]; then
	perl "$getabi" --dir "$tmp/abi" rest > "$tmp/rest" 2> "$tmp/err"
	rc=$?
	sed 's/^/# /' "$tmp/err"
	[ $rc = 0 ] && [ ! -s "$tmp/err" ] &&
		[ "$(grep -c '^\.\. _abi_sys_kernel_mm_pmswap' "$tmp/rest")" = "$(wc -l < "$tmp/what")" ]
	t $? "get_abi.pl reads every entry, no warning ($(grep -c '^\.\. _abi_sys' "$tmp/rest") of $(wc -l < "$tmp/what"))"
else
	t 1 "get_abi.pl reads the file (no kernel tree at $build/linux: run make source)"
fi
exit $fail
