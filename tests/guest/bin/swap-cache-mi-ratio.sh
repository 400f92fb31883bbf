#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# swap-cache-mi-ratio.sh [MiB] [ROUNDS]: the MADV_PAGEOUT round trip with
# PMD-size folios stored in the swap cache slot by slot (0) and as one
# multi-index entry (1), alternating, in one boot; huge swap entries on.
# Prints one line per run, then the medians: swap-out and read-back time
# (TCG wall clock: compare only as ratios) and the XArray nodes
# (radix_tree_node slab objects) left behind by the swap-out, per THP.
MIB=${1:-256}
R=${2:-3}
KNOB=/sys/kernel/mm/pmswap/swap_cache_multi_index
[ -f $KNOB ] || { echo "no $KNOB: not a pmswap kernel with the multi-index swap cache"; exit 1; }
orig=$(cat $KNOB)
thps=$((MIB / 2))
rm -f /tmp/mi
echo "# layout round swapout_ms swapin_ms xa_nodes_after_swapout thp_after_mib bad_pages"
i=0
while [ $i -lt "$R" ]; do
	for m in 0 1; do
		echo $m > $KNOB
		roundtrip -s "$MIB" > /tmp/rt
		awk -v m=$m -v r=$i '{ v[$1] = $2 } END { printf "%s %d %s %s %s %d %s\n", m ? "multi" : "per-index", r, v["swapout_ms"], v["swapin_ms"], v["xa_nodes_after_swapout"], v["thp_after_kb"] / 1024, v["verify_bad_pages"] }' /tmp/rt | tee -a /tmp/mi
	done
	i=$((i + 1))
done
echo "$orig" > $KNOB
med() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
for col in 3 4 5; do
	a=$(awk -v c=$col '$1 == "per-index" { print $c }' /tmp/mi | med)
	b=$(awk -v c=$col '$1 == "multi" { print $c }' /tmp/mi | med)
	case $col in
	3) awk -v a="$a" -v b="$b" 'BEGIN { printf "# median swap-out: per-index %.0f ms, multi-index %.0f ms, multi/per-index = %.2f\n", a, b, b / a }' ;;
	4) awk -v a="$a" -v b="$b" 'BEGIN { printf "# median read-back: per-index %.0f ms, multi-index %.0f ms, multi/per-index = %.2f\n", a, b, b / a }' ;;
	5) awk -v a="$a" -v b="$b" -v t=$thps 'BEGIN { printf "# median XArray nodes left by the swap-out of %d THPs: per-index %d (%.2f per THP), multi-index %d (%.2f per THP)\n", t, a, a / t, b, b / t }' ;;
	esac
done
