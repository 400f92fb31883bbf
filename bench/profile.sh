#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/profile.sh REPO BUILD OUTDIR: the ftrace function profile (self
# time) of a 256 MiB THP round trip with swap on pmem, on the stock and
# the pmswap kernel built for measuring (BENCH=1), one boot each. Writes
# OUTDIR/{stock,pmswap}.out (raw) and OUTDIR/profile.md: the 25 functions
# with the most self time, and their share of the 40 listed.
set -euo pipefail
repo=$1 build=$2 out=$3
mkdir -p "$out"
for v in stock pmswap; do
	k=$build/obj-$v-bench/arch/x86/boot/bzImage
	[ -f "$k" ] || { echo "profile: no $k (make kernel BENCH=1 [STOCK=1])" >&2; exit 1; }
	PMSWAP_TAG=profile-$v PMSWAP_KERNEL=$k PMSWAP_INITRAMFS=$build/initramfs.cpio \
		"$repo/tests/run-guest.sh" -n -p -m 1536M -t 1800 -o "$build/bench-logs" profile > /dev/null || true
	cp "$build/bench-logs/profile-$v.out" "$out/$v.out"
done
{
	echo "# Function profile of a 256 MiB THP round trip (swap on pmem)"
	echo
	echo "Made by \`make profile\` (bench/profile.sh): ftrace's function profiler,"
	echo "self time (options/graph-time 0), summed over CPUs, on the kernels built"
	echo "for measuring, with swap-out and read-back in the profile; raw output in"
	echo "\`stock.out\` and \`pmswap.out\`. TCG: the shares say where the emulated"
	echo "CPU spends its time, which is not where real hardware would."
	for v in stock pmswap; do
		echo
		echo "## $v"
		echo
		grep '^# off: \(swapout_ms\|swapin_ms\|swapin_faults\|fault_p50_us\|fault_p99_us\) ' "$out/$v.out" |
			sed 's/^# off: /- /' || true
		echo
		echo "| rank | function | hits | self us | share |"
		echo "|---|---|---|---|---|"
		awk '$1 == "PROFILE" { n++; r[n] = $2; h[n] = $3; t[n] = $4; f[n] = $5; sum += $4 }
			END { for (i = 1; i <= n && i <= 25; i++)
				printf "| %d | `%s` | %d | %.0f | %.1f %% |\n", r[i], f[i], h[i], t[i], 100 * t[i] / sum }' "$out/$v.out"
		echo
		echo "(share: of the self time of the 40 functions listed in the raw output)"
	done
} > "$out/profile.md"
echo "profile: $out/profile.md"
