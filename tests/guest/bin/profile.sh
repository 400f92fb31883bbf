#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# profile.sh [MiB]: where the time of a THP round trip's read-back goes,
# with ftrace's function profiler (a kernel built with BENCH=1), with map
# in place off (the copy read-back is the question); time asleep (schedule,
# idle) is left out. Swap is
# set up by setup-swap.sh (pmem); the read-back runs twice, once with the
# profiler off (the time) and once on (the functions). Prints the kernel
# functions by self time, summed over the CPUs, as "PROFILE rank hits
# total_us function" lines, and the roundtrip figures as comments.
mib=${1:-256}
T=/sys/kernel/tracing
[ -f $T/function_profile_enabled ] || mount -t tracefs nodev $T 2>/dev/null
if [ ! -f $T/function_profile_enabled ]; then
	echo "1..0 # SKIP no function profiler in this kernel (make kernel BENCH=1)"
	exit 4
fi
# the copy path (issue 16's question): no map in place on pmswap
for f in /sys/kernel/mm/pmswap/pmem/*/inplace; do
	[ -f "$f" ] && echo never > "$f"
done
echo "TAP version 13"
echo "1..2"
roundtrip -c -s "$mib" | sed 's/^/# off: /'
# the profiler counts from enable to disable: around the read-back only
# is not possible from outside the program, so the swap-out is in it too;
# roundtrip prints both times
# self time of each function, not including the functions it calls
echo 0 > $T/options/graph-time 2>/dev/null
echo 0 > $T/function_profile_enabled
echo 1 > $T/function_profile_enabled
roundtrip -c -s "$mib" | sed 's/^/# on: /'
echo 0 > $T/function_profile_enabled
cat $T/trace_stat/function* | awk '
	$1 == "Function" || $1 ~ /^-+$/ || NF < 3 { next }
	# time asleep or idle is not work
	$1 ~ /^(schedule|schedule_idle|do_idle|schedule_timeout|io_schedule|default_idle|.*_idle)$/ { next }
	{ hits[$1] += $2; t[$1] += $3 }
	END { for (f in t) printf "%s %d %.1f\n", f, hits[f], t[f] }' |
	sort -k3 -rn | head -40 | awk '{ printf "PROFILE %d %s %s %s\n", NR, $2, $3, $1 }'
echo "ok 1 profile of a ${mib} MiB round trip"
# The same copy instruction in user space, 4 KiB pieces scattered and
# 2 MiB pieces aligned or not (tests/progs/copybench.c): the per-byte
# cost under this CPU, no kernel.
# 64 and 256 MiB: does the per-byte cost grow with the memory touched?
{ copybench -s 64 -r 5 && copybench -s 256 -r 3; } > /tmp/copy.out
rc=$?
cat /tmp/copy.out
[ $rc = 0 ] && [ "$(grep -c '^COPY ' /tmp/copy.out)" = 6 ]
echo "$([ $? = 0 ] || echo 'not ')ok 2 copybench in user space"
