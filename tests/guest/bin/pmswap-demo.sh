#!/bin/sh
# The workload behind `make run`: a THP region pushed out with MADV_PAGEOUT
# and read back, then a stress-ng vm load in a memcg smaller than its
# working set. Prints a plain report with before/after counters.
MIB=${1:-256}
vm() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }
snap() {
	for k in thp_swpout thp_swpout_fallback thp_split_pmd pswpout pswpin pgmajfault; do
		echo "$k $(vm $k)"
	done
}
delta() {  # delta FILE-BEFORE FILE-AFTER
	awk 'NR == FNR { b[$1] = $2; next } { printf "  %-22s %12d  (before %d, after %d)\n", $1, $2 - b[$1], b[$1], $2 }' "$1" "$2"
}

echo "== pmswap demo on $(uname -r) =="
echo "-- swap devices"
sed 's/^/  /' /proc/swaps
echo "-- THP: $(cat /sys/kernel/mm/transparent_hugepage/enabled)"

echo
echo "== 1. ${MIB} MiB of THP-backed memory: MADV_PAGEOUT, then one read per 4 KiB"
snap > /tmp/b1
roundtrip -s "$MIB" > /tmp/rt
snap > /tmp/a1
awk '
$1 == "thp_before_kb"        { printf "  THP before swap-out         %8d MiB\n", $2 / 1024 }
$1 == "swapout_ms"           { printf "  swap-out time (TCG)         %8.0f ms\n", $2 }
$1 == "swapout_thp_swpout"   { printf "  THPs swapped out whole      %8d\n", $2 }
$1 == "swapout_thp_swpout_fallback" { printf "  THPs split to swap out      %8d\n", $2 }
$1 == "swapout_thp_split_pmd"{ printf "  PMD mappings split          %8d\n", $2 }
$1 == "swapped_kb"           { printf "  in swap after swap-out      %8d MiB\n", $2 / 1024 }
$1 == "swapin_ms"            { printf "  read-back time (TCG)        %8.0f ms\n", $2 }
$1 == "swapin_faults"        { printf "  faults on read-back         %8d\n", $2 }
$1 == "swapin_pswpin"        { printf "  pages read back (4 KiB)     %8d\n", $2 }
$1 == "thp_after_kb"         { printf "  THP after read-back         %8d MiB\n", $2 / 1024 }
$1 == "verify_bad_pages"     { printf "  pages with wrong data       %8d\n", $2 }
' /tmp/rt
echo "  counters:"
delta /tmp/b1 /tmp/a1

echo
echo "== 2. memory pressure: stress-ng vm, 2 x 192 MiB with --verify in a 192 MiB memcg"
echo "+memory" > /sys/fs/cgroup/cgroup.subtree_control
mkdir -p /sys/fs/cgroup/demo
echo 192M > /sys/fs/cgroup/demo/memory.max
snap > /tmp/b2
echo "  running stress-ng for 20 s ..."
sh -c 'echo $$ > /sys/fs/cgroup/demo/cgroup.procs; exec stress-ng --vm 2 --vm-bytes 384M --vm-keep --verify --timeout 20s --metrics-brief' 2>&1 | sed 's/^/  /' | grep -v '^  *$'
snap > /tmp/a2
echo "  memcg swap peak: $(( $(cat /sys/fs/cgroup/demo/memory.swap.peak 2>/dev/null || echo 0) / 1048576 )) MiB"
echo "  counters:"
delta /tmp/b2 /tmp/a2
rmdir /sys/fs/cgroup/demo 2>/dev/null
echo
echo "-- swap devices at the end"
sed 's/^/  /' /proc/swaps
