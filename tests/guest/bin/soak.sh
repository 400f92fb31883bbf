#!/bin/sh
# soak.sh SECONDS: everything at once for SECONDS, then check.
#  - soak_thp: a checksummed THP working set verified continuously (every
#    word of every page each 4th round) while a thread pushes it out with
#    MADV_PAGEOUT and forked children check it, in a memcg smaller than
#    the set;
#  - stress-ng vm/mmap/fork stressors with --verify in another
#    memcg at about half their working set, with memory.reclaim pressure;
#  - inject_rounds: fail_page_alloc, failslab and fail_make_request armed
#    with their task filter, so that only inject_rounds sees failures: in
#    its swap-outs (allocations, swap cache, bios) and swap-ins
#    (allocations); every word must read back (debug kernel: the normal
#    one has no fault injection and skips it);
#  - a loop that takes one stage per step, round robin: memory.reclaim
#    pulses; the huge_swap switch flipped; the pmem io path flipped
#    between dax and bio; the map-in-place policy cycled never, read,
#    always, always (with the promotion scanner every 500 ms); compaction;
#    migration of the soak's processes between NUMA nodes (when the guest
#    has two, run-guest.sh -R); junk written into every pmswap knob (each
#    write must be refused and change nothing); a swapoff/swapon cycle;
#  - once, a quarter in: a memory error on the pmem page behind a
#    swapped THP of a separate victim process (hwpoison-inject); only the
#    victim may die (SIGBUS), everything else keeps verifying.
# At the end, with everything exited: the swap in use (per-CPU slot
# caches drained by a swapoff of a spare zram device) is printed; then
# swapoff must take back every slot (a leaked count keeps it looping: the
# audit) and leave no swap cache behind; with swap off, no swap may be
# charged to the soak memcgs and nothing mapped in place; after swapon
# the swap in use is what it was before the soak.
# stress-ng's madvise stressor is left out: run as root it injects
# MADV_HWPOISON into its own pages and fails on the SIGBUS it gets.
# Prints TAP and the figures. Working sets: 96 MiB (memcg 128 MiB), 112
# MiB (memcg 64 MiB) and 16 MiB.
D=${1:-120}
vm() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }
vm0() { v=$(vm "$1"); echo "${v:-0}"; }
dev=$(awk 'NR == 2 { print $1 }' /proc/swaps)
disk=${dev#/dev/}
knob=/sys/kernel/mm/pmswap/huge_swap
echo "+memory" > /sys/fs/cgroup/cgroup.subtree_control
mkdir -p /sys/fs/cgroup/soak1 /sys/fs/cgroup/soak2 /sys/fs/cgroup/soak3
# soak2 (stress-ng) runs at about half its working set; soak1 (soak_thp,
# 96 MiB plus forked checkers) gets 128 MiB and is pushed out by its own
# MADV_PAGEOUT thread and by memory.reclaim: at 64 MiB, stock 6.12 too
# OOM-kills it within a minute on the non-debug kernel.
LIMIT=64M
LIMIT1=128M
echo $LIMIT1 > /sys/fs/cgroup/soak1/memory.max
echo $LIMIT > /sys/fs/cgroup/soak2/memory.max

# A spare swap device whose swapoff drains the per-CPU swap slot caches
# (swapoff of any device does), so that "swap in use" can be compared
# exactly: zram0 when swap is elsewhere, a new zram device otherwise.
spare=
if [ "$disk" != zram0 ] && [ -e /sys/block/zram0/disksize ]; then
	spare=zram0
elif [ -e /sys/class/zram-control/hot_add ]; then
	spare=zram$(cat /sys/class/zram-control/hot_add)
fi
if [ -n "$spare" ] && echo 16M > /sys/block/$spare/disksize 2>/dev/null &&
   mkswap /dev/$spare > /dev/null; then
	:
else
	spare=
fi
# (its priority is below the main device's: swapon gives each new device
# a lower one; busybox swapon has no -p)
drain() {
	[ -n "$spare" ] && swapon /dev/$spare && swapoff /dev/$spare
}
used_kb() { awk -v d="$dev" '$1 == d { print $4 }' /proc/swaps; }
drain
used0=$(used_kb)

# Fault injection, scoped by the task filter to tasks marked make-it-fail
# (only inject_rounds marks itself); times counts down per fault injected.
FI=/sys/kernel/debug
TIMES=100000000
fi_types=
for t in fail_page_alloc failslab fail_make_request; do
	[ -d $FI/$t ] || continue
	echo Y > $FI/$t/task-filter
	echo 10 > $FI/$t/probability
	echo 1 > $FI/$t/interval
	echo 0 > $FI/$t/verbose
	echo $TIMES > $FI/$t/times
	fi_types="$fi_types $t"
done
[ -d $FI/fail_page_alloc ] && {
	echo N > $FI/fail_page_alloc/ignore-gfp-wait
	echo N > $FI/fail_page_alloc/ignore-gfp-highmem
	echo 0 > $FI/fail_page_alloc/min-order
}
[ -d $FI/failslab ] && echo N > $FI/failslab/ignore-gfp-wait

in0=$(vm pswpin) out0=$(vm pswpout) t0=$(cut -d. -f1 /proc/uptime)
mig0=$(vm0 pgmigrate_success) thpmig0=$(vm0 thp_migration_success) cmp0=$(vm0 compact_success)
# map in place (0 on a kernel without it): THPs, 4 KiB pages, promotions
ipm0=$(vm0 pmswap_inplace_map) ipp0=$(vm0 pmswap_inplace_pte_map)
ipr0=$(( $(vm0 pmswap_inplace_promote) + $(vm0 pmswap_inplace_pte_promote) ))

sh -c "echo \$\$ > /sys/fs/cgroup/soak1/cgroup.procs; exec soak_thp -d $D -s 96 -w 2" > /tmp/soak_thp.log 2>&1 &
p1=$!
sh -c "echo \$\$ > /sys/fs/cgroup/soak2/cgroup.procs; exec stress-ng -v --vm 1 --vm-bytes 96M --mmap 1 --mmap-bytes 16M --fork 1 --verify --timeout ${D}s --metrics-brief" > /tmp/stress.log 2>&1 &
p2=$!
p3=
if [ -n "$fi_types" ]; then
	sh -c "echo \$\$ > /sys/fs/cgroup/soak3/cgroup.procs; exec inject_rounds -d $D -s 16 -b /sys/block/$disk/make-it-fail" > /tmp/inject.log 2>&1 &
	p3=$!
fi

iter=0 cycles=0 cycle_fail=0 flips=0 reclaims=0 ioflips=0 junk=0 junk_taken=0
policies=0 compactions=0 migrations=0 migrate_fail=0 node=0
iodir=/sys/kernel/mm/pmswap/pmem/$disk
[ -f /sys/kernel/mm/pmswap/inplace/promote_interval_ms ] &&
	echo 500 > /sys/kernel/mm/pmswap/inplace/promote_interval_ms
# a quarter in: swapoff cycles under TCG and KASAN make the loop slow
poisoned=none poison_at=$(( t0 + D / 4 ))
# restore_limit CGROUP: after a swapoff cycle the group holds its whole
# working set again; push it back under the limit with memory.reclaim
# before lowering memory.max, so the limit change itself does not end in
# an OOM kill (seen once: soak_thp killed right after a cycle).
restore_limit() {  # restore_limit CGROUP LIMIT-MIB
	lim=$(($2 << 20))
	for i in 1 2 3 4; do
		cur=$(cat "$1/memory.current")
		[ "$cur" -le $((lim * 7 / 8)) ] && break
		timeout 10 sh -c "echo $((cur - lim * 3 / 4)) > $1/memory.reclaim" 2>/dev/null
	done
	# The limit holds from the write on; an interrupted write only stops
	# the reclaim down to it (under TCG and KASAN that can take minutes).
	timeout 10 sh -c "echo ${2}M > $1/memory.max"
	[ "$(cat "$1/memory.max")" = $lim ] || echo "# $1: memory.max not set to ${2}M"
}
# junk KNOB: a bad value must be refused and leave the knob as it was
junk() {
	[ -f "$1" ] || return 0
	before=$(cat "$1")
	for v in 2 -1 maybe dax,bio 99999999999999999999; do
		junk=$((junk + 1))
		if printf '%s' "$v" > "$1" 2>/dev/null || [ "$(cat "$1")" != "$before" ]; then
			junk_taken=$((junk_taken + 1))
			echo "# junk '$v' into $1 was taken: now $(cat "$1")"
			echo "$before" > "$1"
		fi
	done
}
# Stages that cannot run here still count as reached (nothing to do).
STAGES="reclaim huge_swap io inplace compact migrate junk swapoff"
NSTAGES=8
reached=
end=$(( t0 + D ))
while [ "$(cut -d. -f1 /proc/uptime)" -lt "$end" ]; do
	sleep 1
	set -- $STAGES
	shift $((iter % NSTAGES))
	stage=$1
	iter=$((iter + 1))
	now=$(cut -d. -f1 /proc/uptime)
	case $stage in
	reclaim)
		# bounded: with most of a memcg mapped in place from pmem (not
		# charged), proactive reclaim can spend long finding 32M to take
		timeout 5 sh -c "echo 32M > /sys/fs/cgroup/soak1/memory.reclaim" 2>/dev/null
		timeout 5 sh -c "echo 32M > /sys/fs/cgroup/soak2/memory.reclaim" 2>/dev/null
		reclaims=$((reclaims + 1)) ;;
	huge_swap)
		if [ -f $knob ]; then
			echo $((flips % 2)) > $knob
			flips=$((flips + 1))
		fi ;;
	io)
		if [ -f "$iodir/io" ]; then
			[ $((ioflips % 2)) = 0 ] && echo bio > "$iodir/io" || echo dax > "$iodir/io"
			ioflips=$((ioflips + 1))
		fi ;;
	inplace)
		if [ -f "$iodir/inplace" ]; then
			# never, read, then always for two steps (forks of
			# soak_thp under always for longer)
			set -- never read always always
			shift $((policies % 4))
			echo "$1" > "$iodir/inplace"
			policies=$((policies + 1))
		fi ;;
	compact)
		echo 1 > /proc/sys/vm/compact_memory
		compactions=$((compactions + 1)) ;;
	migrate)
		if [ -d /sys/devices/system/node/node1 ]; then
			to=$((1 - node))
			for p in $p1 $p3; do
				migrate_pid "$p" $node $to > /dev/null 2>&1 ||
					{ kill -0 "$p" 2>/dev/null && migrate_fail=$((migrate_fail + 1)); }
			done
			node=$to
			migrations=$((migrations + 1))
		fi ;;
	junk)
		junk $knob
		junk "$iodir/inplace"
		junk /sys/kernel/mm/pmswap/inplace/default_policy
		junk /sys/kernel/mm/pmswap/pmem/enabled
		junk /sys/kernel/mm/pmswap/swap_cache_multi_index
		junk "$iodir/io" ;;
	swapoff)
		# not in the last 10 s (the end needs the device on), unless
		# no cycle has run yet: one must, however slow the steps were
		[ "$now" -ge $((end - 10)) ] && [ "$cycles" -gt 0 ] && continue
		# swapoff must be able to charge everything back: lift the
		# memcg limits for the cycle, as an operator would.
		echo max > /sys/fs/cgroup/soak1/memory.max
		echo max > /sys/fs/cgroup/soak2/memory.max
		if swapoff "$dev" && swapon "$dev"; then
			cycles=$((cycles + 1))
		else
			cycle_fail=$((cycle_fail + 1))
			swapon "$dev" 2>/dev/null
		fi
		restore_limit /sys/fs/cgroup/soak1 128
		restore_limit /sys/fs/cgroup/soak2 64 ;;
	esac
	case " $reached " in *" $stage "*) ;; *) reached="$reached $stage" ;; esac
	if [ "$poisoned" = none ] && [ "$(cut -d. -f1 /proc/uptime)" -ge "$poison_at" ]; then
		if [ -f "$iodir/io" ] && [ -f /sys/kernel/debug/hwpoison/corrupt-pfn ]; then
			echo dax > "$iodir/io"
			poison_victim > /tmp/victim.log 2>&1
			poisoned=$?
			sed 's/^/# /' /tmp/victim.log
		else
			poisoned=unsupported
		fi
	fi
done
[ -f $knob ] && echo 1 > $knob
[ -f "$iodir/io" ] && echo dax > "$iodir/io"
[ -f "$iodir/inplace" ] && echo read > "$iodir/inplace"
[ -f /sys/kernel/mm/pmswap/inplace/promote_interval_ms ] &&
	echo 1000 > /sys/kernel/mm/pmswap/inplace/promote_interval_ms
echo "# map in place: $(vm pmswap_inplace_map) maps, $(vm pmswap_inplace_revert) reverts, $(vm pmswap_inplace_promote) promotions"
wait $p1
r1=$?
wait $p2
r2=$?
r3=skip
if [ -n "$p3" ]; then
	wait $p3
	r3=$?
fi
# faults injected: what each type's countdown lost; then disarm
fi_report= fi_total=0 fi_zero=
for t in $fi_types; do
	n=$(( TIMES - $(cat $FI/$t/times) ))
	echo 0 > $FI/$t/probability
	fi_report="$fi_report $t=$n"
	fi_total=$((fi_total + n))
	# fail_make_request fails bios only: whether inject_rounds swapped
	# out while the io stage had the device on the bio path depends on
	# where the steps fall (0 seen once in a 120 s run under load)
	[ "$n" -gt 0 ] || [ $t = fail_make_request ] || fi_zero="$fi_zero $t"
done
sleep 1
# Who still holds swap (processes, tmpfs/shmem)?
for f in /proc/[0-9]*/status; do
	awk '/^Name:/ { n = $2 } /^VmSwap:/ && $2 > 0 { print "# holds swap:", n, $2, "kB" }' "$f" 2>/dev/null
done
# Everything exited. Folios that only the swap cache still holds (freed
# while locked) go with reclaim of their memcgs; then drain the slot
# caches and look at the swap in use. The logs in /tmp (tmpfs) were
# written by the soak's processes, so their pages are charged to the soak
# memcgs and may have been swapped out under their limits: shmem's swap,
# owned by the file, which no process shows as VmSwap. Reading them back
# first brings it in (earlier soaks showed one slot per memcg left here,
# which the swapoff then found in the files).
leak_check() {
	leaks=
	for g in soak1 soak2 soak3; do
		v=$(cat /sys/fs/cgroup/$g/memory.swap.current 2>/dev/null || echo 0)
		[ "$v" = 0 ] || leaks="$leaks $g/memory.swap.current=$v"
	done
	v=$(awk '$1 == "PmswapInPlace:" { print $2 }' /proc/meminfo)
	[ "${v:-0}" = 0 ] || leaks="$leaks PmswapInPlace=${v}kB"
	for d in /sys/kernel/mm/pmswap/pmem/*/stats; do
		[ -f "$d/inplace_mapped_now" ] || continue
		for k in inplace_mapped_now inplace_pte_mapped_now; do
			v=$(cat "$d/$k")
			[ "${v:-0}" = 0 ] || leaks="$leaks ${d%/stats}:$k=$v"
		done
	done
}
for g in soak1 soak2 soak3; do
	timeout 60 sh -c "echo 1G > /sys/fs/cgroup/$g/memory.reclaim" 2>/dev/null
done
cat /tmp/*.log > /dev/null 2>&1
drain
used1=$(used_kb)
leak_check
leaks1=$leaks
echo "# exited, before swapoff: swap in use $used1 kB (before the soak: $used0 kB), left:${leaks:- nothing}"
grep -E '^(Shmem|SwapCached|SwapFree|SwapTotal|PmswapInPlace):' /proc/meminfo | sed 's/^/# /'
# per-slot state left (a promotion whose slot was freed before its fault
# keeps its extent's record until swapoff): shown, not a leak
for d in /sys/kernel/mm/pmswap/pmem/*/stats; do
	[ -f "$d/inplace_slot_records" ] &&
		echo "# ${d%/stats}: slot_records $(cat "$d/inplace_slot_records") metadata_bytes $(cat "$d/inplace_metadata_bytes")"
done
cached=$(awk '$1 == "SwapCached:" { print $2 }' /proc/meminfo)

sed 's/^/# /' /tmp/stress.log | grep -v '^# *$'
grep -v '^ok\|^not ok\|^1\.\.\|^TAP' /tmp/soak_thp.log
[ -n "$p3" ] && grep -v '^ok\|^not ok\|^1\.\.\|^TAP' /tmp/inject.log
echo "TAP version 13"
echo "1..14"
# Renumber soak_thp's three results as 1-3.
awk '/^(ok|not ok) [0-9]/ { n++; st = ($1 == "ok") ? "ok" : "not ok"; sub(/^(ok|not ok) [0-9]+ /, ""); print st, n, "soak_thp:", $0 }' /tmp/soak_thp.log > /tmp/soak_res
cat /tmp/soak_res
i=$(( $(wc -l < /tmp/soak_res) + 1 ))
[ "$i" = 4 ] && echo "ok 4 soak_thp exited $r1" || echo "not ok 4 soak_thp gave $((i - 1)) of 3 results (exit $r1)"
[ "$r2" = 0 ] && echo "ok 5 stress-ng --verify passed" || echo "not ok 5 stress-ng exited $r2"
[ "$cycle_fail" = 0 ] && [ "$cycles" -gt 0 ] && echo "ok 6 $cycles swapoff/swapon cycles under load" ||
	echo "not ok 6 swapoff/swapon: $cycles ok, $cycle_fail failed"
# The audit of swap counts: a slot whose count outlives its last
# reference keeps try_to_unuse() looping, so swapoff hangs; one freed too
# early shows as "Bad swap offset entry" or "Unused swap offset entry" on
# the console (the runner fails on those).
swapped_off=0
if timeout 180 swapoff "$dev"; then
	swapped_off=1
	after=$(awk '$1 == "SwapCached:" { print $2 }' /proc/meminfo)
	if [ "$after" = 0 ]; then
		echo "ok 7 swapoff at the end took back all $used1 kB in use (swap cache $cached kB, then 0), nothing leaked"
	else
		echo "not ok 7 swapoff at the end left $after kB in the swap cache"
	fi
	# everything exited and swap off: nothing may be charged or mapped
	leak_check
	swapon "$dev"
else
	echo "not ok 7 swapoff at the end failed or hung: $used1 kB in use, swap cache $cached kB"
	swapon "$dev" 2>/dev/null
fi
used2=$(used_kb)
if [ ! -f $knob ]; then
	echo "ok 8 # SKIP no pmswap knobs in this kernel"
elif [ "$junk" -gt 0 ] && [ "$junk_taken" = 0 ]; then
	echo "ok 8 $junk junk knob writes refused, nothing changed"
else
	echo "not ok 8 junk knob writes: $junk_taken of $junk taken"
fi
case $poisoned in
135) echo "ok 9 memory error under load: only the victim died (SIGBUS); all other data verified" ;;
unsupported) echo "ok 9 # SKIP no pmem swap device with hwpoison-inject here (swap on ${dev})" ;;
none) echo "not ok 9 poison injection did not run" ;;
*) echo "not ok 9 poison victim ended with status $poisoned, not SIGBUS" ;;
esac
if [ -z "$p3" ]; then
	echo "ok 10 # SKIP no fault injection in this kernel (CONFIG_FAULT_INJECTION_DEBUG_FS)"
	echo "ok 11 # SKIP no fault injection in this kernel"
else
	res=$(grep -E '^(ok|not ok) 1 ' /tmp/inject.log | sed 's/^\(ok\|not ok\) 1 //')
	if [ "$r3" = 0 ] && grep -q '^ok 1 ' /tmp/inject.log; then
		echo "ok 10 inject_rounds: $res"
	else
		echo "not ok 10 inject_rounds exited $r3: ${res:-no result}"
	fi
	if [ -z "$fi_zero" ]; then
		echo "ok 11 faults injected:$fi_report"
	else
		echo "not ok 11 no faults injected by$fi_zero ($fi_report)"
	fi
fi
missing=
for st in $STAGES; do
	case " $reached " in *" $st "*) ;; *) missing="$missing $st" ;; esac
done
if [ -z "$missing" ]; then
	echo "ok 12 every stage reached in $iter steps"
else
	echo "not ok 12 stages not reached in $iter steps:$missing"
fi
if [ "$swapped_off" = 1 ] && [ -z "$leaks" ] && [ -z "$leaks1" ]; then
	echo "ok 13 everything exited: no swap charged to the soak memcgs and nothing mapped in place, before and after swapoff"
else
	echo "not ok 13 everything exited (swapoff done: $swapped_off): left behind before swapoff:${leaks1:- nothing}, after:${leaks:- nothing}"
fi
if [ "$used2" = "$used0" ]; then
	echo "ok 14 swap in use back to $used0 kB after swapoff and swapon, as before the soak"
else
	echo "not ok 14 swap in use $used2 kB after swapoff and swapon, $used0 kB before the soak"
fi
echo "# figures: ${D} s; $iter loop steps; swap-in $(( $(vm pswpin) - in0 )) pages, swap-out $(( $(vm pswpout) - out0 )) pages; $cycles swapoff cycles; $flips huge_swap flips; $ioflips io path flips; $policies policy changes; $compactions compactions; $migrations migrations ($migrate_fail failed), pages migrated $(( $(vm0 pgmigrate_success) - mig0 )) (THPs $(( $(vm0 thp_migration_success) - thpmig0 ))); $junk junk knob writes; faults injected: $fi_total ($fi_report ) plus $([ "$poisoned" = 135 ] && echo 1 || echo 0) memory error; $reclaims memory.reclaim rounds; mapped in place: $(( $(vm0 pmswap_inplace_map) - ipm0 )) THPs, $(( $(vm0 pmswap_inplace_pte_map) - ipp0 )) 4 KiB pages, $(( $(vm0 pmswap_inplace_promote) + $(vm0 pmswap_inplace_pte_promote) - ipr0 )) promotions; leaks after swapoff: $([ -z "$leaks" ] && [ "$swapped_off" = 1 ] && echo 0 || echo "see 13"); in use before swapoff: $used1 kB (before the soak $used0 kB)"
rmdir /sys/fs/cgroup/soak1 /sys/fs/cgroup/soak2 /sys/fs/cgroup/soak3 2>/dev/null
true
