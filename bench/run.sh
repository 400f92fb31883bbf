#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/run.sh REPO BUILD QUICK RUNS OUTDIR
#
# Boot every benchmark configuration once (same RAM, same NVDIMM, same
# NUMA layout, guest memory preallocated on the host), run the workloads
# of tests/guest/bin/bench.sh RUNS times each, keep the raw logs in
# OUTDIR/raw and make the tables and plots (bench/collect.py).
set -euo pipefail
repo=$1 build=$2 quick=$3 runs=$4 out=$5
stock=$build/obj-stock/arch/x86/boot/bzImage
pmswap=$build/obj-pmswap/arch/x86/boot/bzImage
initrd=$build/initramfs.cpio
configs=(stock-pmem stock-zram stock-tiering pmswap pmswap-hugeoff pmswap-bio pmswap-read pmswap-always)
# BENCH_CONFIGS="a b": a subset (keep stock-pmem in it: ratios are to it)
if [ -n "${BENCH_CONFIGS:-}" ]; then
	read -r -a configs <<< "$BENCH_CONFIGS"
fi
mem=1536M nvmib=2048 tmo=3600
[ "$quick" = 1 ] && tmo=900

mkdir -p "$out/raw"
logs=$build/bench-logs
mkdir -p "$logs"
echo "bench: ${#configs[@]} configurations, $runs run(s) each$([ "$quick" = 1 ] && echo ", quick")," \
     "guest $mem RAM + ${nvmib} MiB NVDIMM on NUMA node 1, TCG"
start=$(date +%s)
rc=0
i=0
for cfg in "${configs[@]}"; do
	i=$((i + 1))
	case $cfg in stock-*) k=$stock ;; *) k=$pmswap ;; esac
	t0=$(date +%s)
	printf 'bench: [%d/%d] %-15s ' "$i" "${#configs[@]}" "$cfg"
	PMSWAP_TAG=bench-$cfg PMSWAP_KERNEL=$k PMSWAP_INITRAMFS=$initrd \
		"$repo/tests/run-guest.sh" -n -p -T -N $nvmib -m $mem -s none -t $tmo -o "$logs" \
		-a "pmswap.bench=$cfg pmswap.runs=$runs pmswap.quick=$quick" bench > /dev/null
	cp "$logs/bench-$cfg.out" "$out/raw/$cfg.out"
	cp "$logs/bench-$cfg.console" "$out/raw/$cfg.console"
	n=$(grep -c '^BENCH ' "$out/raw/$cfg.out" || true)
	# the console patterns of every test run (tests/console-patterns.txt)
	warn=$(python3 "$repo/tests/check-results.py" --scan-console \
		"$out/raw/$cfg.console" | grep -c . || true)
	echo "$((  $(date +%s) - t0 ))s, $n results, $warn console warnings"
	if [ "$n" = 0 ] || [ "$warn" != 0 ]; then
		rc=1
	fi
	grep '^# ' "$out/raw/$cfg.out" | grep -v '^# bench' | sed 's/^/bench:   /' | head -8 || true
done
echo "bench: all configurations in $(( $(date +%s) - start ))s"
python3 "$repo/bench/collect.py" "$out"
exit $rc
