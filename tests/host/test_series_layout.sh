#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The shape that lets every prefix of patches/series build with the same
# overlay (mm/, drivers/, include/): a feature's code is built under its
# Kconfig option, and the option arrives with the patch that adds the
# feature's hooks. So:
#  - no overlay file asks whether a later patch is in by testing a
#    lowercase macro (#ifdef pte_is_inplace), and no patch defines one
#    for that purpose (#define x x);
#  - every pmswap option is defined once, in mm/pmswap/Kconfig, by a patch;
#  - every CONFIG_PMSWAP_* that the overlay, the patches or the
#    configuration fragments name is defined;
#  - no patch names an option that a later patch defines;
#  - every hook the core kernel calls is declared in include/linux/pmswap.h:
#    no patch declares a pmswap_* or huge_swap_* function in another header;
#  - pmswap's code is in mm/pmswap/, whose Makefile the patches write and
#    which builds every file there.
# TAP on stdout.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo" || exit 1
mapfile -t series < <(grep -v '^\s*\(#\|$\)' patches/series | awk '{ print $1 }')
mapfile -t overlay < <(find mm drivers include -type f \( -name '*.c' -o -name '*.h' \) 2>/dev/null | sort)

echo "TAP version 13"
n=0 fail=0
t() {	# t RC TEXT [DETAILS]
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		[ -n "${3:-}" ] && printf '%s\n' "$3" | sed 's/^/# /'
		fail=1
	fi
}

# 1. lowercase macros tested as "is that patch in"
bad=$(grep -nE '^\s*#\s*(ifdef|ifndef)\s+[a-z_][a-z0-9_]*\b|^\s*#\s*(el)?if\b.*defined\s*\(?\s*[a-z_][a-z0-9_]*\b' \
	"${overlay[@]}" 2>/dev/null)
t "$([ -z "$bad" ]; echo $?)" "no overlay file tests a lowercase macro (${#overlay[@]} files)" "$bad"
bad=$(grep -nE '^\+\s*#\s*define\s+([a-z_][a-z0-9_]*)\s+\1\b' "${series[@]/#/patches/}")
t "$([ -z "$bad" ]; echo $?)" "no patch defines a lowercase macro as itself (#define x x)" "$bad"

# 2. options: where each is defined
declare -A defined_in=()
dups=
for i in "${!series[@]}"; do
	p=patches/${series[i]}
	# only lines added to mm/pmswap/Kconfig
	while read -r o; do
		[ -n "${defined_in[$o]:-}" ] && dups+="$o in ${defined_in[$o]} and ${series[i]}"$'\n'
		defined_in[$o]=$i
	done < <(awk '/^\+\+\+ b\//{ f = ($2 == "b/mm/pmswap/Kconfig") } f && /^\+(menu)?config PMSWAP/{ print $2 }' "$p")
done
t "$([ ${#defined_in[@]} -gt 0 ] && [ -z "$dups" ]; echo $?)" \
	"every pmswap option is defined once, by a patch, in mm/pmswap/Kconfig (${#defined_in[@]} options)" "$dups"

# 3. every option named is defined
used=$( (cat "${overlay[@]}" configs/*.config; cat "${series[@]/#/patches/}" | grep '^[+ ]') |
	grep -oE 'CONFIG_PMSWAP[A-Z0-9_]*' | sort -u)
undef=
for c in $used; do
	[ -n "${defined_in[${c#CONFIG_}]:-}" ] || undef+="$c "
done
t "$([ -z "$undef" ]; echo $?)" "every CONFIG_PMSWAP_* named in the overlay, patches and configs is defined" "$undef"

# 4. no patch names an option defined later
early=
for i in "${!series[@]}"; do
	p=patches/${series[i]}
	for c in $(grep '^+' "$p" | grep -oE '(^|[^A-Za-z0-9_])(CONFIG_)?PMSWAP[A-Z0-9_]*' |
		   sed 's/^[^CP]*//; s/^CONFIG_//' | sort -u); do
		d=${defined_in[$c]:-}
		[ -n "$d" ] && [ "$d" -gt "$i" ] && early+="${series[i]} names $c, defined by ${series[d]}"$'\n'
	done
done
t "$([ -z "$early" ]; echo $?)" "no patch names an option that a later patch defines" "$early"

# 5. hooks are declared in include/linux/pmswap.h only
decl=$(for p in "${series[@]/#/patches/}"; do
	awk -v P="$(basename "$p")" '/^\+\+\+ b\//{ h = ($2 ~ /\.h$/) ? $2 : "" }
		h != "" && /^\+[a-z].*(^|[^a-z0-9_])(pmswap|huge_swap)_[a-z0-9_]*\(/ && !/^\+[ \t]*(return|if|#)/ { print P ": " h ": " substr($0, 2) }' "$p"
done)
t "$([ -z "$decl" ] && grep -q 'include <linux/pmswap.h>' patches/*; echo $?)" \
	"no patch declares a pmswap hook outside include/linux/pmswap.h, which huge_mm.h includes" "$decl"

# 6. mm/pmswap/: the code in one directory, a file per role, built by its
# own Makefile, which the patches write: each line of it comes with the
# patch of its feature, so the tree at every prefix builds what it offers.
stray=$(find mm -maxdepth 1 -type f \( -name '*.c' -o -name '*.h' \) | sort)
t "$([ -z "$stray" ] && [ -d mm/pmswap ]; echo $?)" \
	"pmswap's mm/ code is in mm/pmswap/, none directly in mm/" "$stray"
objs=$(for p in "${series[@]/#/patches/}"; do
	awk '/^\+\+\+ b\//{ f = ($2 == "b/mm/pmswap/Makefile") } f && /^\+obj-/' "$p"
done | sed 's/^+obj-[^+]*+= *//' | tr ' ' '\n' | grep '\.o$' | sort)
srcs=$(cd mm/pmswap && ls ./*.c 2>/dev/null | sed 's#^\./##; s/\.c$/.o/' | sort)
miss=$(comm -3 <(printf '%s\n' "$objs") <(printf '%s\n' "$srcs"))
t "$([ -n "$objs" ] && [ -z "$miss" ] && ! grep -q 'mm/pmswap/Makefile' <(cd mm/pmswap && ls); echo $?)" \
	"mm/pmswap/Makefile is written by the patches and builds every mm/pmswap/*.c, nothing else ($(printf '%s\n' "$objs" | wc -l) objects)" \
	"Makefile lines vs files: $miss"
inplace=$(ls mm/pmswap/inplace*.c 2>/dev/null | wc -l)
t "$([ "$inplace" -ge 6 ] && [ ! -e mm/swap_inplace.c ]; echo $?)" \
	"map in place is split by role ($inplace files: core, PMD, PTE, scanner, failure, sysfs)"

echo "1..$n"
exit $fail
