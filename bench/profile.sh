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
	# a boot that oopsed or listed no function has no profile: say so
	# and fail, rather than write an empty table (an int3 oops while
	# ftrace patched the kernel text under TCG did that once)
	if ! grep -q '^PROFILE ' "$out/$v.out" ||
	   python3 "$repo/tests/check-results.py" --scan-console \
		"$build/bench-logs/profile-$v.console" | grep -q .; then
		echo "profile: the $v boot gave no profile (see $build/bench-logs/profile-$v.console)" >&2
		exit 1
	fi
done
# the same copies on the host's CPU, natively: what hardware does
gcc -O2 -Wall -o "$build/bench-logs/copybench-host" "$repo/tests/progs/copybench.c"
{ "$build/bench-logs/copybench-host" -s 64 -r 5 &&
	"$build/bench-logs/copybench-host" -s 256 -r 3; } > "$out/host-copy.out"
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
	echo
	echo "## The copy instruction alone"
	echo
	echo "\`copybench -s 64 -r 5\` and \`-s 256 -r 3\` (tests/progs/copybench.c): \`rep"
	echo "movsb\` in user space into THP-backed memory, 64 or 256 MiB per round:"
	echo "4 KiB pieces each to a page in random order (as stock's swap-in copies),"
	echo "2 MiB pieces between 2 MiB-aligned source and destination (as pmswap's"
	echo "whole-THP swap-in copies), and 2 MiB pieces with the destination 68 KiB"
	echo "past alignment. ns per KiB, median (min-max) of the rounds. In the guest"
	echo "under TCG (\`stock.out\`, \`pmswap.out\`: the same program, a boot each)"
	echo "and on the host CPU, natively (\`host-copy.out\`)."
	echo
	echo "| where | MiB | 4 KiB scattered | 2 MiB aligned | 2 MiB offset | aligned / offset |"
	echo "|---|---|---|---|---|---|"
	for f in stock.out pmswap.out host-copy.out; do
		awk -v w="${f%.out}" '$1 == "COPY" { m[$3 " " $2] = $5; r[$3 " " $2] = $6 "-" $7
				if (!($3 in seen)) { seen[$3] = 1; order[++n] = $3 } }
			END { for (i = 1; i <= n; i++) { s = order[i]
				a = m[s " 2M-aligned"]; o = m[s " 2M-offset"]
				if (a == "" || o == "") continue
				printf "| %s | %s | %s (%s) | %s (%s) | %s (%s) | %.2f |\n", w, s,
					m[s " 4K-scattered"], r[s " 4K-scattered"], a, r[s " 2M-aligned"],
					o, r[s " 2M-offset"], a / o } }' "$out/$f"
	done
} > "$out/profile.md"
echo "profile: $out/profile.md"
