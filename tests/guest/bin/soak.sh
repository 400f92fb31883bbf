#!/bin/sh
# soak.sh SECONDS: everything at once for SECONDS, then check.
#  - soak_thp: a checksummed THP working set verified continuously while a
#    thread pushes it out with MADV_PAGEOUT and forked children check it,
#    in a memcg smaller than the set;
#  - stress-ng vm/mmap/fork stressors with --verify in another
#    memcg at about half their working set, with memory.reclaim pressure;
#  - swapoff/swapon cycles of the swap device under that load;
#  - the huge_swap switch flipped under load (when the kernel has it);
#  - the pmem device's io path flipped between dax and bio under load;
#  - its map-in-place policy cycled through never, read and always, with
#    the promotion scanner every 500 ms;
#  - junk written into every pmswap knob: each write must be refused and
#    change nothing;
#  - once, a quarter in: a memory error on the pmem page behind a
#    swapped THP of a separate victim process (hwpoison-inject); only the
#    victim may die (SIGBUS), everything else keeps verifying.
# stress-ng's madvise stressor is left out: run as root it injects
# MADV_HWPOISON into its own pages and fails on the SIGBUS it gets.
# Prints TAP and the figures. Working sets: 96 MiB (memcg 128 MiB) and
# 112 MiB (memcg 64 MiB).
D=${1:-120}
vm() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }
vm0() { v=$(vm "$1"); echo "${v:-0}"; }
dev=$(awk 'NR == 2 { print $1 }' /proc/swaps)
knob=/sys/kernel/mm/pmswap/huge_swap
echo "+memory" > /sys/fs/cgroup/cgroup.subtree_control
mkdir -p /sys/fs/cgroup/soak1 /sys/fs/cgroup/soak2
# soak2 (stress-ng) runs at about half its working set; soak1 (soak_thp,
# 96 MiB plus forked checkers) gets 128 MiB and is pushed out by its own
# MADV_PAGEOUT thread and by memory.reclaim: at 64 MiB, stock 6.12 too
# OOM-kills it within a minute on the non-debug kernel.
LIMIT=64M
LIMIT1=128M
echo $LIMIT1 > /sys/fs/cgroup/soak1/memory.max
echo $LIMIT > /sys/fs/cgroup/soak2/memory.max
in0=$(vm pswpin) out0=$(vm pswpout) t0=$(cut -d. -f1 /proc/uptime)
# map in place (0 on a kernel without it): THPs, 4 KiB pages, promotions
ipm0=$(vm0 pmswap_inplace_map) ipp0=$(vm0 pmswap_inplace_pte_map)
ipr0=$(( $(vm0 pmswap_inplace_promote) + $(vm0 pmswap_inplace_pte_promote) ))

sh -c "echo \$\$ > /sys/fs/cgroup/soak1/cgroup.procs; exec soak_thp -d $D -s 96 -w 2" > /tmp/soak_thp.log 2>&1 &
p1=$!
sh -c "echo \$\$ > /sys/fs/cgroup/soak2/cgroup.procs; exec stress-ng -v --vm 1 --vm-bytes 96M --mmap 1 --mmap-bytes 16M --fork 1 --verify --timeout ${D}s --metrics-brief" > /tmp/stress.log 2>&1 &
p2=$!

cycles=0 cycle_fail=0 flips=0 reclaims=0 ioflips=0 junk=0 junk_taken=0
iodir=/sys/kernel/mm/pmswap/pmem/${dev#/dev/}
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
end=$(( t0 + D ))
next_swapoff=$(( t0 + 15 ))
while [ "$(cut -d. -f1 /proc/uptime)" -lt "$end" ]; do
	sleep 2
	# bounded: with most of a memcg mapped in place from pmem (not
	# charged), proactive reclaim can spend long finding 32M to take
	timeout 10 sh -c "echo 32M > /sys/fs/cgroup/soak1/memory.reclaim" 2>/dev/null
	timeout 10 sh -c "echo 32M > /sys/fs/cgroup/soak2/memory.reclaim" 2>/dev/null
	reclaims=$((reclaims + 1))
	if [ -f $knob ]; then
		echo $((flips % 2)) > $knob
		flips=$((flips + 1))
	fi
	if [ -f "$iodir/io" ]; then
		[ $((ioflips % 2)) = 0 ] && echo bio > "$iodir/io" || echo dax > "$iodir/io"
		ioflips=$((ioflips + 1))
	fi
	if [ -f "$iodir/inplace" ]; then
		# map in place: cycle never, read, always under the load
		set -- never read always
		shift $((flips % 3))
		echo "$1" > "$iodir/inplace"
	fi
	junk $knob
	junk "$iodir/inplace"
	junk /sys/kernel/mm/pmswap/inplace/default_policy
	junk /sys/kernel/mm/pmswap/pmem/enabled
	junk /sys/kernel/mm/pmswap/swap_cache_multi_index
	junk "$iodir/io"
	now=$(cut -d. -f1 /proc/uptime)
	if [ "$poisoned" = none ] && [ "$now" -ge "$poison_at" ]; then
		if [ -f "$iodir/io" ] && [ -f /sys/kernel/debug/hwpoison/corrupt-pfn ]; then
			echo dax > "$iodir/io"
			poison_victim > /tmp/victim.log 2>&1
			poisoned=$?
			sed 's/^/# /' /tmp/victim.log
		else
			poisoned=unsupported
		fi
	fi
	if [ "$now" -ge "$next_swapoff" ] && [ "$now" -lt $((end - 10)) ]; then
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
		restore_limit /sys/fs/cgroup/soak2 64
		next_swapoff=$((now + 15))
	fi
done
[ -f $knob ] && echo 1 > $knob
[ -f "$iodir/io" ] && echo dax > "$iodir/io"
[ -f "$iodir/inplace" ] && echo read > "$iodir/inplace"
[ -f /sys/kernel/mm/pmswap/inplace/promote_interval_ms ] &&
	echo 1000 > /sys/kernel/mm/pmswap/inplace/promote_interval_ms
echo "# map in place: $(vm pmswap_inplace_map) maps, $(vm pmswap_inplace_unmap) reverts, $(vm pmswap_inplace_promote) promotions"
wait $p1
r1=$?
wait $p2
r2=$?
sleep 1
# Who still holds swap (processes, tmpfs/shmem)?
for f in /proc/[0-9]*/status; do
	awk '/^Name:/ { n = $2 } /^VmSwap:/ && $2 > 0 { print "# holds swap:", n, $2, "kB" }' "$f" 2>/dev/null
done
grep -E '^(Shmem|SwapCached|SwapFree|SwapTotal):' /proc/meminfo | sed 's/^/# /'
used=$(awk 'NR > 1 { s += $4 } END { print s + 0 }' /proc/swaps)
cached=$(awk '$1 == "SwapCached:" { print $2 }' /proc/meminfo)

sed 's/^/# /' /tmp/stress.log | grep -v '^# *$'
grep -v '^ok\|^not ok\|^1\.\.\|^TAP' /tmp/soak_thp.log
echo "TAP version 13"
echo "1..9"
# Renumber soak_thp's three results as 1-3.
awk '/^(ok|not ok) [0-9]/ { n++; st = ($1 == "ok") ? "ok" : "not ok"; sub(/^(ok|not ok) [0-9]+ /, ""); print st, n, "soak_thp:", $0 }' /tmp/soak_thp.log > /tmp/soak_res
cat /tmp/soak_res
i=$(( $(wc -l < /tmp/soak_res) + 1 ))
[ "$i" = 4 ] && echo "ok 4 soak_thp exited $r1" || echo "not ok 4 soak_thp gave $((i - 1)) of 3 results (exit $r1)"
[ "$r2" = 0 ] && echo "ok 5 stress-ng --verify passed" || echo "not ok 5 stress-ng exited $r2"
[ "$cycle_fail" = 0 ] && [ "$cycles" -gt 0 ] && echo "ok 6 $cycles swapoff/swapon cycles under load" ||
	echo "not ok 6 swapoff/swapon: $cycles ok, $cycle_fail failed"
# Leaked swap counts would keep swapoff from finishing: it must bring back
# every slot still in use (tmpfs/shmem of the rootfs included) and leave
# none behind.
if timeout 180 swapoff "$dev"; then
	echo "ok 7 swapoff at the end took back all $used kB in use (swap cache $cached kB), nothing leaked"
	swapon "$dev"
else
	echo "not ok 7 swapoff at the end failed or hung: $used kB in use, swap cache $cached kB"
	swapon "$dev" 2>/dev/null
fi
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
echo "# figures: ${D} s; swap-in $(( $(vm pswpin) - in0 )) pages, swap-out $(( $(vm pswpout) - out0 )) pages; $cycles swapoff cycles; $flips huge_swap flips; $ioflips io path flips; $junk junk knob writes; faults injected: $([ "$poisoned" = 135 ] && echo 1 || echo 0); $reclaims memory.reclaim writes; mapped in place: $(( $(vm0 pmswap_inplace_map) - ipm0 )) THPs, $(( $(vm0 pmswap_inplace_pte_map) - ipp0 )) 4 KiB pages, $(( $(vm0 pmswap_inplace_promote) + $(vm0 pmswap_inplace_pte_promote) - ipr0 )) promotions"
rmdir /sys/fs/cgroup/soak1 /sys/fs/cgroup/soak2 2>/dev/null
true
