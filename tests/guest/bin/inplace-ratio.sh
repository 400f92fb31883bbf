#!/bin/sh
# inplace-ratio.sh [MiB] [ROUNDS] [pte]: time the MADV_PAGEOUT round trip
# under the map-in-place policies never (copy to DRAM), read and always, in
# one boot, alternating, for reads and for writes. Prints one line per run
# and the medians. Times are TCG wall clock: compare them only as ratios
# within one run of this script. Counts (faults, pages copied, maps) are
# exact. "pte": 4 KiB pages (4 KiB swap entries) instead of THPs; maps and
# promotions are then the pte_ counters.
MIB=${1:-256}
R=${2:-3}
P= EV=pmswap_inplace
[ "${3:-}" = pte ] && P=-p EV=pmswap_inplace_pte
DIR=$(ls -d /sys/kernel/mm/pmswap/pmem/pmem* 2>/dev/null | head -1)
[ -f "$DIR/inplace" ] || { echo "no map in place here"; exit 1; }
vm() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }
st() { cat "$DIR/stats/$1"; }
echo "# policy access round swapin_ms faults pages_copied inplace_maps promotions memfree_drop_kb bad_pages"
: > /tmp/ipr
i=0
while [ $i -lt "$R" ]; do
	for pol in never read always; do
		echo $pol > "$DIR/inplace"
		for acc in read write; do
			r0=$(st pages_read) m0=$(vm ${EV}_map) p0=$(vm ${EV}_promote)
			if [ $acc = write ]; then roundtrip -s "$MIB" $P -w > /tmp/rt; else roundtrip -s "$MIB" $P > /tmp/rt; fi
			awk -v p=$pol -v a=$acc -v r=$i -v c=$(($(st pages_read) - r0)) \
			    -v m=$(($(vm ${EV}_map) - m0)) -v pr=$(($(vm ${EV}_promote) - p0)) \
			    '{ v[$1] = $2 } END { printf "%s %s %d %s %s %d %d %d %s %s\n", p, a, r, v["swapin_ms"], v["swapin_faults"], c, m, pr, v["swapin_memfree_drop_kb"], v["verify_bad_pages"] }' /tmp/rt |
				tee -a /tmp/ipr
		done
	done
	i=$((i + 1))
done
echo read > "$DIR/inplace"
med() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
for acc in read write; do
	n=$(awk -v a=$acc '$1 == "never" && $2 == a { print $4 }' /tmp/ipr | med)
	for pol in read always; do
		p=$(awk -v a=$acc -v q=$pol '$1 == q && $2 == a { print $4 }' /tmp/ipr | med)
		awk -v a=$acc -v q=$pol -v n="$n" -v p="$p" 'BEGIN { printf "# median %s-back: never %.1f ms, %s %.1f ms, never/%s = %.1f\n", a, n, q, p, q, (p > 0 ? n / p : 0) }'
	done
done
