#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh CONFIG RUNS QUICK: set up one benchmark configuration in this
# guest, then run every workload RUNS times. Results are lines
#   BENCH CONFIG WORKLOAD RUN KEY VALUE
# that bench/collect.py turns into tables and plots.
#
# CONFIG: stock-pmem, stock-zram-lz4, stock-zram-zstd, stock-tiering
#         (stock kernel);
#         pmswap, pmswap-hugeoff, pmswap-bio (copies to DRAM),
#         pmswap-read, pmswap-always (map in place) (pmswap kernel).
# Without arguments they come from the kernel command line
# (pmswap.bench=CONFIG pmswap.runs=N pmswap.quick=0|1 pmswap.round=R;
# bench/run.sh boots once per configuration and round with runs=1, and R
# numbers the run in the BENCH lines).
set -u
cfg= runs=3 quick=0 round= only=
for a in $(cat /proc/cmdline); do
	case $a in
	pmswap.bench=*) cfg=${a#*=} ;;
	pmswap.runs=*) runs=${a#*=} ;;
	pmswap.quick=*) quick=${a#*=} ;;
	pmswap.round=*) round=${a#*=} ;;
	pmswap.only=*) only=${a#*=} ;;
	esac
done
[ $# -ge 1 ] && cfg=$1
[ $# -ge 2 ] && runs=$2
[ $# -ge 3 ] && quick=$3
[ -n "$cfg" ] || { echo "bench.sh: no configuration given" >&2; exit 2; }
P=/pmswap/bin
vm() { awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' /proc/vmstat; }
VMKEYS="pswpin pswpout pgmajfault pgdemote_kswapd pgdemote_direct pgpromote_success thp_split_pmd thp_swpout thp_swpout_fallback thp_swpout_pmd thp_swpin_pmd thp_swpin_pmd_fallback thp_split_swap_pmd thp_fault_alloc thp_fault_fallback thp_fault_fallback_charge thp_collapse_alloc numa_hint_faults pmswap_inplace_map pmswap_inplace_pte_map pmswap_inplace_promote pmswap_inplace_pte_promote oom_kill"
snap() { for k in $VMKEYS; do echo "$k $(vm $k)"; done; }
dax_stat() {  # dax_stat KEY: pmswap DAX counter of the pmem swap device, 0 if none
	d=$(ls -d /sys/kernel/mm/pmswap/pmem/pmem* 2>/dev/null | head -1)
	[ -n "$d" ] && cat "$d/stats/$1" 2>/dev/null || echo 0
}
emit() {  # emit WORKLOAD RUN FILE: "key value" lines of FILE as BENCH lines
	awk -v c="$cfg" -v w="$1" -v r="$2" 'NF == 2 && $2 ~ /^-?[0-9.]+$/ { print "BENCH", c, w, r, $1, $2 }
		$1 == "tick" || $1 == "share" || $1 == "dram" { print "BENCH", c, w, r, $1 $2, $3 }' "$3"
}
# run WORKLOAD RUN CMD...: run CMD with vmstat and DAX deltas, emit it all
run() {
	w=$1 r=$2
	shift 2
	# pmswap.only=A,B: only these workloads (make bench ONLY="A B")
	case ",${only:-$w}," in
	*",$w,"*) ;;
	*) return ;;
	esac
	# a workload that timed out once is not repeated (it would only burn
	# the time budget again); its later runs are reported as skipped
	case " $timed_out " in
	*" $w "*) echo "BENCH $cfg $w $r skipped 1"; return ;;
	esac
	snap > /tmp/b
	dw0=$(dax_stat pages_written) dr0=$(dax_stat pages_read)
	# a workload that thrashes for ever is a result too: exit code 124
	case $1 in
	/tmp/memcg|/tmp/global) WL_TIMEOUT=$wl_timeout "$@" > /tmp/o 2>/tmp/e ;;
	*) timeout "$wl_timeout" "$@" > /tmp/o 2>/tmp/e ;;
	esac
	rc=$?
	snap > /tmp/a
	{
		echo "exit_code $rc"
		awk 'NR == FNR { b[$1] = $2; next } { print "d_" $1, $2 - b[$1] }' /tmp/b /tmp/a
		echo "dax_pages_written $(( $(dax_stat pages_written) - dw0 ))"
		echo "dax_pages_read $(( $(dax_stat pages_read) - dr0 ))"
		cat /tmp/o
	} > /tmp/r
	emit "$w" "$r" /tmp/r
	case $rc in 124|143) timed_out="$timed_out $w" ;; esac
	[ $rc = 0 ] || { echo "# $cfg $w run $r: exit $rc"; sed 's/^/# /' /tmp/e | tail -5; }
}
# /tmp/memcg MAX SWAPMAX CMD...: run CMD (under timeout) in a fresh memcg
# with memory.max MAX and memory.swap.max SWAPMAX, the same in every
# configuration (the equal budget), print the memcg's figures and kill
# what is left. An OOM kill is counted, not hidden: the workloads do fixed
# work, so a killed run has no time. tests/progs/cgsample reads the THP
# share of the memcg's anonymous memory (anon_thp / anon of memory.stat)
# every 100 ms: its mean over the run as "share_fine_mean PCT" (a run
# shorter than a second has samples too), and at each whole second that
# share and the memcg's DRAM (memory.current) as "share N PCT" and
# "dram N KB" lines, for the curves; at the end
# the peak, and zram's own DRAM (mm_stat mem_used_max), which the memcg
# does not see but the configuration pays. mem_used_max is a peak kept
# since boot: it is reset to the pool's size (writing 0) before each run,
# so each run reports its own peak (with what the pool held at its start,
# printed as zram_mem_used_start_kb).
cat > /tmp/memcg <<'EOS'
#!/bin/sh
max=$1 swapmax=$2
shift 2
cg=/sys/fs/cgroup/bench
rmdir $cg 2>/dev/null
mkdir -p $cg
echo "$max" > $cg/memory.max
echo "$swapmax" > $cg/memory.swap.max
if [ -f /sys/block/zram0/mm_stat ]; then
	echo 0 > /sys/block/zram0/mem_used_max
	zram0=$(( $(awk '{ print $3 }' /sys/block/zram0/mm_stat) / 1024 ))
fi
sh -c 'echo $$ > /sys/fs/cgroup/bench/cgroup.procs; exec timeout "$0" "$@"' "$WL_TIMEOUT" "$@" &
pid=$!
/pmswap/bin/cgsample $cg $pid 100 > /tmp/share
wait $pid
rc=$?
cat /tmp/share 2>/dev/null
rm -f /tmp/share
echo "memcg_peak_kb $(( $(cat $cg/memory.peak 2>/dev/null || echo 0) / 1024 ))"
echo "memcg_swap_peak_kb $(( $(cat $cg/memory.swap.peak 2>/dev/null || echo 0) / 1024 ))"
echo "memcg_oom_kill $(awk '$1 == "oom_kill" { print $2 }' $cg/memory.events)"
echo "memcg_max_events $(awk '$1 == "max" { print $2 }' $cg/memory.events)"
if [ -f /sys/block/zram0/mm_stat ]; then
	echo "zram_mem_used_start_kb $zram0"
	echo "zram_mem_used_max_kb $(( $(awk '{ print $5 }' /sys/block/zram0/mm_stat) / 1024 ))"
fi
echo 1 > $cg/cgroup.kill 2>/dev/null
exit $rc
EOS
chmod +x /tmp/memcg
# stress BYTES OPS [ADVICE]: stress-ng vm with --verify for a fixed amount
# of work (--vm-ops OPS over 2 workers: a bogo op is one pass of a method
# over the buffer), so that the time says who is faster; a script, so that
# it runs inside the memcg. ADVICE: --vm-madvise (hugepage: THP-backed, as
# in issue 17). Prints ms, bogo ops and verify failures.
cat > /tmp/stress <<'EOS'
#!/bin/sh
t0=$(cut -d' ' -f1 /proc/uptime)
stress-ng --vm 2 --vm-bytes "$1" --vm-keep --verify --vm-ops "$2" ${3:+--vm-madvise "$3"} \
	--timeout 1200s --metrics-brief > /tmp/s 2>&1
rc=$?
t1=$(cut -d' ' -f1 /proc/uptime)
awk '$4 == "vm" { print "bogo_ops", $5 }' /tmp/s
awk -v a="$t0" -v b="$t1" 'BEGIN { printf "ms %.0f\n", (b - a) * 1000 }'
echo "stress_errors $(grep -ci "fail\|error" /tmp/s)"
exit $rc
EOS
chmod +x /tmp/stress

# global FREE_MIB N MIB: the whole guest under pressure, no memcg limit
# (vm-scalability's case-swap-w-seq in small): a balloon locks all of node
# 0's free memory but FREE_MIB (tests/progs/balloon.c), then N usemem
# processes of MIB each, together more than FREE_MIB, make two sequential
# passes at once. FREE_MIB is the equal budget here: the kernel, zram's
# pool and page tables live in it too. They run in a memcg without limits (memory.max and
# memory.swap.max "max"), only to sample their THP share and DRAM as the
# memcg workloads do. Fixed work: ms is the time until the last one is
# done; bad_pages and major_faults are summed.
cat > /tmp/global <<'EOS'
#!/bin/sh
free=$1 n=$2 mib=$3
/pmswap/bin/balloon -f "$free" > /tmp/balloon.out 2>&1 &
bp=$!
i=0
while ! grep -q locked_mib /tmp/balloon.out && kill -0 $bp 2>/dev/null && [ $i -lt 120 ]; do
	sleep 1
	i=$((i + 1))
done
grep -q locked_mib /tmp/balloon.out || { cat /tmp/balloon.out >&2; kill $bp 2>/dev/null; exit 1; }
awk '{ print "balloon_" $1, $2 }' /tmp/balloon.out
cat > /tmp/multi <<EOM
#!/bin/sh
t0=\$(cut -d' ' -f1 /proc/uptime)
pids=
for i in \$(seq $n); do
	/pmswap/bin/usemem -s $mib -m seq -p 2 > /tmp/multi.\$i 2>&1 &
	pids="\$pids \$!"
done
rc=0
for j in \$pids; do wait \$j || rc=1; done
t1=\$(cut -d' ' -f1 /proc/uptime)
awk -v a="\$t0" -v b="\$t1" 'BEGIN { printf "ms %.0f\\n", (b - a) * 1000 }'
cat /tmp/multi.* | awk '\$1 == "bad_pages" || \$1 == "major_faults" { s[\$1] += \$2 }
	END { for (k in s) print k, s[k] }'
echo "processes $n"
exit \$rc
EOM
chmod +x /tmp/multi
/tmp/memcg max max /tmp/multi
rc=$?
# a global OOM kill takes the largest process, the balloon: then the
# pressure was gone for part of the run
kill -0 $bp 2>/dev/null && echo "balloon_survived 1" || echo "balloon_survived 0"
kill $bp 2>/dev/null
wait $bp 2>/dev/null
exit $rc
EOS
chmod +x /tmp/global
# redis MIB: Redis (Debian's redis-tools: redis-server, redis-benchmark)
# with 4 KiB values under MIB * 256 keys, larger than its memcg: SETs of
# that many random keys (about 63 % of them distinct: about 0.63 * MIB
# of values, plus the allocator's rounding to 5 KiB, above memory.max),
# then twice as many GETs of random keys. Its
# own THP use is on (disable-thp no: Redis turns THP off for itself by
# default). Fixed work: ms is both phases; rps and p99 are the GET
# phase's, as redis-benchmark reports them. redis-benchmark's values are
# one byte repeated: zram stores them in almost nothing, unlike the other
# workloads' data (about 2:1).
cat > /tmp/redis <<'EOS'
#!/bin/sh
mib=$1
keys=$((mib * 256))
# a Unix socket: the guest has no network, not even loopback
sock=/tmp/redis.sock
redis-server --port 0 --unixsocket $sock --save '' --appendonly no --disable-thp no \
	--daemonize no --logfile /tmp/redis.log &
sp=$!
i=0
until redis-cli -s $sock ping > /dev/null 2>&1; do
	sleep 1
	i=$((i + 1))
	[ $i -lt 120 ] && kill -0 $sp 2>/dev/null || { tail -5 /tmp/redis.log >&2; exit 1; }
done
t0=$(cut -d' ' -f1 /proc/uptime)
redis-benchmark -s $sock -q --csv -c 8 -d 4096 -r "$keys" -n "$keys" -t set > /tmp/rset 2>&1
r1=$?
redis-benchmark -s $sock -q --csv -c 8 -r "$keys" -n $((keys * 2)) -t get > /tmp/rget 2>&1
r2=$?
t1=$(cut -d' ' -f1 /proc/uptime)
awk -v a="$t0" -v b="$t1" 'BEGIN { printf "ms %.0f\n", (b - a) * 1000 }'
# "GET","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
tr -d '"' < /tmp/rget | awk -F, '$1 == "GET" { print "rps", $2; print "p50_ms", $5; print "p99_ms", $7 }'
tr -d '"' < /tmp/rset | awk -F, '$1 == "SET" { print "set_rps", $2 }'
echo "redis_used_kb $(( $(redis-cli -s $sock info memory | tr -d '\r' | awk -F: '$1 == "used_memory" { print $2 }') / 1024 ))"
redis-cli -s $sock shutdown nosave > /dev/null 2>&1
wait $sp
[ $r1 = 0 ] && [ $r2 = 0 ]
EOS
chmod +x /tmp/redis

echo "# bench: config $cfg, $runs run(s), quick=$quick, kernel $(uname -r)"
ndctl disable-region all >/dev/null 2>&1
ndctl init-labels -f all >/dev/null 2>&1
ndctl enable-region all >/dev/null 2>&1
echo always > /sys/kernel/mm/transparent_hugepage/enabled
echo madvise > /sys/kernel/mm/transparent_hugepage/defrag
echo "+memory" > /sys/fs/cgroup/cgroup.subtree_control
case $cfg in
stock-pmem|pmswap|pmswap-hugeoff|pmswap-bio|pmswap-read|pmswap-always)
	ndctl create-namespace -r region0 -m fsdax --align 2M -n bench >/dev/null &&
		mkswap /dev/pmem0 >/dev/null && swapon /dev/pmem0 || echo "# setup failed"
	ip=/sys/kernel/mm/pmswap/pmem/pmem0/inplace
	case $cfg in
	pmswap) echo 1 > /sys/kernel/mm/pmswap/huge_swap
		[ -f $ip ] && echo never > $ip ;;
	pmswap-hugeoff) echo 0 > /sys/kernel/mm/pmswap/huge_swap
		[ -f $ip ] && echo never > $ip ;;
	pmswap-bio) echo 1 > /sys/kernel/mm/pmswap/huge_swap
		[ -f $ip ] && echo never > $ip
		echo bio > /sys/kernel/mm/pmswap/pmem/pmem0/io ;;
	pmswap-read|pmswap-always) echo 1 > /sys/kernel/mm/pmswap/huge_swap
		echo "${cfg#pmswap-}" > $ip || echo "# setup failed: no map in place" ;;
	esac
	;;
stock-zram-lz4|stock-zram-zstd)
	echo "${cfg#stock-zram-}" > /sys/block/zram0/comp_algorithm ||
		echo "# setup failed: no ${cfg#stock-zram-} in zram"
	echo 2G > /sys/block/zram0/disksize && mkswap /dev/zram0 >/dev/null &&
		swapon /dev/zram0 || echo "# setup failed"
	;;
stock-tiering)
	# pmem as a CPU-less NUMA node: devdax, then dax_kmem (system-ram).
	# daxctl reconfigure-device wants to load the kmem module; here kmem
	# is built in, so bind it through sysfs and online the blocks.
	ndctl create-namespace -r region0 -m devdax --align 2M -n bench >/dev/null &&
		echo dax0.0 > /sys/bus/dax/drivers/device_dax/unbind &&
		echo dax0.0 > /sys/bus/dax/drivers/kmem/new_id || echo "# setup failed"
	for m in /sys/devices/system/node/node1/memory*/state; do
		[ "$(cat "$m")" = offline ] && echo online_movable > "$m"
	done
	awk '/MemTotal/ { exit !($4 > 0) }' /sys/devices/system/node/node1/meminfo 2>/dev/null ||
		echo "# setup failed: no memory on node1"
	echo 1 > /sys/kernel/mm/numa/demotion_enabled
	echo 2 > /proc/sys/kernel/numa_balancing
	;;
esac
sed 's/^/# /' /proc/swaps
grep -H . /sys/devices/system/node/node*/meminfo 2>/dev/null | grep MemTotal | sed 's/^/# /'

wl_timeout=300 timed_out=
sizes="256 1024"
press=256 skew_s=15 stress_ops=8 shift_p=8
if [ "$quick" = 1 ]; then
	sizes=256 press=128 skew_s=8 stress_ops=4 wl_timeout=120 shift_p=6
fi
# The budget of every pressure workload, the same in every configuration:
# memory.max at 3/4 of the working set, memory.swap.max twice the set.
r=1
while [ $r -le "$runs" ]; do
	rr=${round:-$r}
	for s in $sizes; do
		run "rt$s-read" $rr $P/roundtrip -c -s "$s"
		# write-back at 256 MiB only: the time budget of make bench
		[ "$s" = 256 ] && run "rt$s-write" $rr $P/roundtrip -c -s "$s" -w
	done
	max=$((press * 3 / 4))M swapmax=$((press * 2))M
	run "press-seq" $rr /tmp/memcg "$max" "$swapmax" $P/usemem -s "$press" -m seq -p 2
	run "press-rand" $rr /tmp/memcg "$max" "$swapmax" $P/usemem -s "$press" -m rand -p 1
	run "press-stress" $rr /tmp/memcg "$max" "$swapmax" /tmp/stress "${press}M" "$stress_ops"
	# stress-ng's vm stressor reads its buffer before it writes it: the
	# read maps the huge zero page, and 6.12 splits that at the first
	# write (do_huge_pmd_wp_page() falls back), so with use_zero_page on
	# no THP ever exists (thp_fault_alloc 0, thp_split_pmd 64, on stock
	# and pmswap alike). Off for this run, so that it is THP-backed.
	zp=/sys/kernel/mm/transparent_hugepage/use_zero_page
	echo 0 > $zp
	run "press-stress-thp" $rr /tmp/memcg "$max" "$swapmax" /tmp/stress "${press}M" "$stress_ops" hugepage
	echo 1 > $zp
	run "skew" $rr /tmp/memcg "$max" "$swapmax" $P/usemem -s "$press" -m skew -t "$skew_s"
	# the hot quarter moves at every phase: promotion and demotion both
	run "press-shift" $rr /tmp/memcg "$max" "$swapmax" $P/usemem -s "$press" -m shift -p "$shift_p" -H 25
	# three processes of half the set each (1.5 sets) in one set of free
	# RAM: the same 4:3 as the memcg budget of the other workloads
	run "press-global" $rr /tmp/global "$press" 3 $((press / 2))
	if command -v redis-server > /dev/null; then
		run "press-redis" $rr /tmp/memcg "$max" "$swapmax" /tmp/redis "$press"
	else
		echo "# no redis-server in this initramfs: press-redis not run"
	fi
	r=$((r + 1))
done
echo "# bench: config $cfg done"
