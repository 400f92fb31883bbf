#!/bin/sh
# huge-swap-ratio.sh [MiB] [ROUNDS]: time the MADV_PAGEOUT round trip with
# huge swap entries off and on, alternating, in one boot. Prints one line
# per run and the medians. Times are TCG wall-clock: compare them only as
# ratios within one run of this script.
MIB=${1:-256}
R=${2:-3}
KNOB=/sys/kernel/mm/pmswap/huge_swap
[ -f $KNOB ] || { echo "no $KNOB: not a pmswap kernel"; exit 1; }
orig=$(cat $KNOB)
echo "# mode round swapout_ms swapin_ms faults thp_after_mib bad_pages"
i=0
while [ $i -lt "$R" ]; do
	for m in 0 1; do
		echo $m > $KNOB
		roundtrip -s "$MIB" > /tmp/rt
		awk -v m=$m -v r=$i '{ v[$1] = $2 } END { printf "%s %d %s %s %s %d %s\n", m ? "on" : "off", r, v["swapout_ms"], v["swapin_ms"], v["swapin_faults"], v["thp_after_kb"] / 1024, v["verify_bad_pages"] }' /tmp/rt | tee -a /tmp/ratio
	done
	i=$((i + 1))
done
echo $orig > $KNOB
med() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
for col in 3 4; do
	off=$(awk -v c=$col '$1 == "off" { print $c }' /tmp/ratio | med)
	on=$(awk -v c=$col '$1 == "on" { print $c }' /tmp/ratio | med)
	name=$([ $col = 3 ] && echo swap-out || echo read-back)
	awk -v n="$name" -v a="$off" -v b="$on" 'BEGIN { printf "# median %s: off %.0f ms, on %.0f ms, on/off = %.2f\n", n, a, b, b / a }'
done
