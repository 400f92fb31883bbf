#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# config-matrix.sh BUILD REPO KSRC [VARIANT...]
# CONFIG_MATRIX_QUICK=1 config-matrix.sh ...: compile, for each variant,
# only the directories the series changes (mm/, fs/proc/: every object
# the variant's configuration builds there), without linking. That is
# what make test runs, for a few variants; it catches a hook or a stub
# that does not compile when an option is off, not a link error or a
# header change that breaks a file elsewhere.
#
# Build the patched kernel (bzImage, linked) in the configurations a user
# can choose in menuconfig: each pmswap option switched off in turn, all
# of pmswap off, and the core options pmswap's hooks in upstream files sit
# next to (memcg, memory failure, userfaultfd, THP, swap, debugfs) off.
# The test kernel's fragments (pmswap.config + features.config) are the
# base; each variant adds a few lines on top.
#
# All variants share one object directory: kbuild tracks which files read
# which CONFIG_ option (fixdep), so a variant recompiles only the files
# whose options changed, and ccache answers for the rest.
#
# A variant fails when the configuration does not take (an option it asks
# for is not what .config says), when the build fails, or when the build
# prints a warning for a file pmswap adds or a line a pmswap patch touches
# (any warning in mm/ or include/linux/ is reported).
set -uo pipefail

build=$1 repo=$2 ksrc=$3
shift 3

declare -A frag
order=(no-pmswap no-huge-swap no-pmem no-inplace no-swap-cache-mi
       no-race-windows no-memcg no-memory-failure no-userfaultfd
       no-debugfs no-thp no-swap)
frag[no-pmswap]="CONFIG_PMSWAP=n"
frag[no-huge-swap]="CONFIG_PMSWAP_HUGE_SWAP=n
CONFIG_PMSWAP_INPLACE=n"
frag[no-pmem]="CONFIG_PMSWAP_PMEM=n
CONFIG_PMSWAP_INPLACE=n"
frag[no-inplace]="CONFIG_PMSWAP_INPLACE=n"
frag[no-swap-cache-mi]="CONFIG_PMSWAP_SWAP_CACHE_MI=n"
frag[no-race-windows]="CONFIG_PMSWAP_RACE_WINDOWS=n
CONFIG_PMSWAP_KUNIT_TEST=n"
frag[no-memcg]="CONFIG_MEMCG=n"
frag[no-memory-failure]="CONFIG_MEMORY_FAILURE=n"
frag[no-userfaultfd]="CONFIG_USERFAULTFD=n"
frag[no-debugfs]="CONFIG_DEBUG_FS=n
CONFIG_PMSWAP_RACE_WINDOWS=n"
frag[no-thp]="CONFIG_TRANSPARENT_HUGEPAGE=n
CONFIG_PMSWAP=n"
frag[no-swap]="CONFIG_SWAP=n
CONFIG_PMSWAP=n"

[ $# -gt 0 ] && order=("$@")
for v in "${order[@]}"; do
	[ -n "${frag[$v]:-}" ] || { echo "config-matrix: no variant $v (have: ${!frag[*]})" >&2; exit 2; }
done

"$repo/scripts/build-kernel.sh" "$build" "$repo" "$ksrc" extract-only 0 >/dev/null || exit 1
src=$build/src-pmswap
"$repo/scripts/prepare-tree.sh" "$build/linux" "$src" "$repo" || exit 1
obj=$build/obj-matrix
mkdir -p "$obj"

cc=gcc
if command -v ccache >/dev/null; then
	cc="ccache gcc"
	export CCACHE_BASEDIR=$build CCACHE_NOHASHDIR=1
fi
export KBUILD_BUILD_TIMESTAMP="2024-11-17" KBUILD_BUILD_USER=pmswap KBUILD_BUILD_HOST=pmswap
jobs=$(( $(nproc) + 1 ))

# the options a variant switches off must be off; pmswap's own options
# that it does not name must keep their base value where Kconfig allows
pass=0 fail=0 failed=()
for v in "${order[@]}"; do
	start=$(date +%s)
	cat "$repo/configs/pmswap.config" "$repo/configs/features.config" > "$obj/frag"
	printf '%s\n' "${frag[$v]}" >> "$obj/frag"
	why=
	if ! make -s -C "$src" O="$obj" KCONFIG_ALLCONFIG="$obj/frag" allnoconfig > "$obj/config-$v.log" 2>&1; then
		why="allnoconfig failed ($obj/config-$v.log)"
	else
		while IFS= read -r l; do
			k=${l%%=*}
			if grep -q "^$k=" "$obj/.config"; then why="$why $k is still set;"; fi
		done < <(printf '%s\n' "${frag[$v]}")
		cp "$obj/.config" "$obj/config-$v"
	fi
	targets=bzImage
	[ "${CONFIG_MATRIX_QUICK:-0}" = 1 ] && targets="mm/ fs/proc/"
	# shellcheck disable=SC2086 # targets: one or two words
	if [ -z "$why" ] &&
	   ! make -s -C "$src" O="$obj" CC="$cc" -j"$jobs" $targets > "$obj/build-$v.log" 2>&1; then
		why="build failed:$(grep -E 'error' "$obj/build-$v.log" | head -5 | sed 's/^/\n    /')"
	fi
	if [ -z "$why" ]; then
		warn=$(grep -E '(^|/)(mm|include/linux|arch/x86/include)/[^: ]+:[0-9]+:[0-9]+: warning:' "$obj/build-$v.log" | head -5)
		[ -z "$warn" ] || why="warnings:$(printf '\n%s' "$warn" | sed 's/^/    /')"
	fi
	t=$(( $(date +%s) - start ))
	if [ -z "$why" ]; then
		echo "ok   $v (${t}s): $(printf '%s' "${frag[$v]}" | tr '\n' ' ')"
		pass=$((pass + 1))
	else
		echo "FAIL $v (${t}s): $why"
		fail=$((fail + 1))
		failed+=("$v")
	fi
done
# CONFIG_MATRIX_SUMMARY=FILE: the result as a suite summary for make test
if [ -n "${CONFIG_MATRIX_SUMMARY:-}" ]; then
	python3 - "$CONFIG_MATRIX_SUMMARY" "$pass" "${failed[@]}" <<'EOP'
import json, sys
out, passed, failed = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
json.dump({'suite': 'config', 'passed': passed, 'failed': len(failed), 'skipped': 0,
           'failures': ['config variant ' + v + ' does not build' for v in failed],
           'known': [], 'notes': [], 'output': {}}, open(out, 'w'), indent=1)
EOP
fi
what=built
[ "${CONFIG_MATRIX_QUICK:-0}" = 1 ] && what="compiled (mm/ and fs/proc/, not linked)"
echo "config-matrix: $pass $what, $fail failed${failed:+: ${failed[*]}}"
[ $fail = 0 ]
