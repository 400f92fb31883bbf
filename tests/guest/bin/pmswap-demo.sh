#!/bin/sh
# The workload behind `make run`: a THP region pushed out with MADV_PAGEOUT
# and read back, then a stress-ng vm load in a memcg smaller than its
# working set. Prints a plain report with before/after counters.
MIB=${1:-256}
vm() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }
snap() {
	for k in thp_swpout thp_swpout_fallback thp_split_pmd thp_swpout_pmd thp_swpin_pmd thp_split_swap_pmd pswpout pswpin pgmajfault; do
		echo "$k $(vm $k || true)"
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
KNOB=/sys/kernel/mm/pmswap/huge_swap
if [ -f $KNOB ]; then
	modes="0 1"
	orig=$(cat $KNOB)
	echo "   (run twice: huge swap entries off = the stock path, then on)"
else
	modes=stock
	echo "   (stock kernel: no huge swap entries)"
fi
# sections 1 and 1b copy back to DRAM; 1c shows map in place
for f in /sys/kernel/mm/pmswap/pmem/*/inplace; do
	[ -e "$f" ] && echo never > "$f"
done
for m in $modes; do
	[ "$m" != stock ] && echo "$m" > $KNOB
	snap > /tmp/b1.$m
	roundtrip -s "$MIB" > /tmp/rt.$m
	snap > /tmp/a1.$m
	awk 'NR == FNR { b[$1] = $2; next } { print $1, $2 - b[$1] }' /tmp/b1.$m /tmp/a1.$m >> /tmp/rt.$m
done
[ -f $KNOB ] && echo "$orig" > $KNOB
set -- $modes
awk -v n=$# '
FNR == 1 { f++ }
{ v[f, $1] = $2 }
END {
	split("thp_before_kb:THP before swap-out (MiB):1024|swapout_thp_swpout:THPs swapped out whole:1|swapout_thp_split_pmd:PMD mappings split at swap-out:1|thp_swpout_pmd:huge swap entries made:1|swapped_kb:in swap after swap-out (MiB):1024|swapin_faults:faults on read-back:1|thp_swpin_pmd:THPs swapped in whole:1|swapin_pswpin:pages read back (4 KiB):1|thp_after_kb:THP after read-back (MiB):1024|verify_bad_pages:pages with wrong data:1|swapout_ms:swap-out time, TCG (ms):1|swapin_ms:read-back time, TCG (ms):1|reread_ms:second read pass, no faults, TCG (ms):1", rows, "|")
	if (n == 2) printf "  %-34s %14s %14s\n", "", "huge_swap=0", "huge_swap=1"
	for (i = 1; i in rows; i++) {
		split(rows[i], r, ":")
		line = sprintf("  %-34s", r[2])
		for (j = 1; j <= n; j++)
			line = line sprintf(" %14.0f", v[j, r[1]] / r[3])
		print line
	}
}' $(for m in $modes; do echo /tmp/rt.$m; done)
DIR=$(ls -d /sys/kernel/mm/pmswap/pmem/pmem* 2>/dev/null | head -1)
if [ -n "$DIR" ]; then
	dev=${DIR##*/}
	echo
	echo "== 1b. the pmem I/O path: the same round trip with $DIR/io = dax, then bio"
	echo 1 > /sys/block/$dev/queue/iostats
	for io in dax bio; do
		echo $io > $DIR/io
		s0=$(awk '{ print $3 + $7 }' /sys/block/$dev/stat)
		w0=$(cat $DIR/stats/pages_written)
		r0=$(cat $DIR/stats/pages_read)
		roundtrip -s "$MIB" > /tmp/io.$io
		s1=$(awk '{ print $3 + $7 }' /sys/block/$dev/stat)
		w1=$(cat $DIR/stats/pages_written)
		r1=$(cat $DIR/stats/pages_read)
		printf "  io=%-4s  pages copied through DAX: %6d out, %6d in;  block layer sectors: %7d;  swap-out %5s ms, read-back %5s ms (TCG)\n" \
			$io $((w1 - w0)) $((r1 - r0)) $((s1 - s0)) \
			"$(awk '$1 == "swapout_ms" { print $2 }' /tmp/io.$io)" \
			"$(awk '$1 == "swapin_ms" { print $2 }' /tmp/io.$io)"
	done
	echo dax > $DIR/io
	if [ -f "$DIR/inplace" ]; then
		echo
		echo "== 1c. map in place: the same round trip under each policy of $DIR/inplace"
		echo "   (read = one read per 4 KiB; write = one write per 4 KiB)"
		printf "  %-8s %-6s %8s %10s %12s %12s %11s %9s %6s\n" policy access faults "copied(MiB)" "in place" promotions "THP(MiB)" "ms(TCG)" bad
		for pol in never read always; do
			echo $pol > $DIR/inplace
			for acc in read write; do
				r0=$(cat $DIR/stats/pages_read)
				m0=$(vm pmswap_inplace_map)
				p0=$(vm pmswap_inplace_promote)
				if [ $acc = write ]; then roundtrip -s "$MIB" -w > /tmp/ip; else roundtrip -s "$MIB" > /tmp/ip; fi
				r1=$(cat $DIR/stats/pages_read)
				printf "  %-8s %-6s %8s %10d %12d %12d %11d %9s %6s\n" $pol $acc \
					"$(awk '$1 == "swapin_faults" { print $2 }' /tmp/ip)" \
					$(((r1 - r0) / 256)) $(($(vm pmswap_inplace_map) - m0)) \
					$(($(vm pmswap_inplace_promote) - p0)) \
					$(($(awk '$1 == "thp_after_kb" { print $2 }' /tmp/ip) / 1024)) \
					"$(awk '$1 == "swapin_ms" { print $2 }' /tmp/ip)" \
					"$(awk '$1 == "verify_bad_pages" { print $2 }' /tmp/ip)"
			done
		done
		echo read > $DIR/inplace
		echo "   in place = THPs mapped from pmem (no DRAM, no copy); THP(MiB) = back in DRAM as THPs"
		echo
		echo "== 1d. map in place for 4 KiB pages: 64 MiB without THPs, read back once per page"
		printf "  %-8s %8s %10s %16s %9s %6s\n" policy faults "copied(MiB)" "in place(pages)" "ms(TCG)" bad
		for pol in never read always; do
			echo $pol > $DIR/inplace
			r0=$(cat $DIR/stats/pages_read)
			m0=$(vm pmswap_inplace_pte_map)
			roundtrip -s 64 -p > /tmp/ip
			r1=$(cat $DIR/stats/pages_read)
			printf "  %-8s %8s %10d %16d %9s %6s\n" $pol \
				"$(awk '$1 == "swapin_faults" { print $2 }' /tmp/ip)" \
				$(((r1 - r0) / 256)) $(($(vm pmswap_inplace_pte_map) - m0)) \
				"$(awk '$1 == "swapin_ms" { print $2 }' /tmp/ip)" \
				"$(awk '$1 == "verify_bad_pages" { print $2 }' /tmp/ip)"
		done
		echo read > $DIR/inplace
		echo "   in place = pages mapped from pmem, nothing copied; a fault maps its 64 KiB window"
		echo "   (fault_around_kb), so read and always take about one fault per 16 pages"
	fi
fi
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
