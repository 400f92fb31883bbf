#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/run.sh REPO BUILD QUICK RUNS OUTDIR
#
# Boot the kernels built for measuring (make kernel BENCH=1 and STOCK=1
# BENCH=1: no DEBUG_VM, KASAN or lockdep) once per configuration and
# round, RUNS rounds: one run of every workload per boot. The boots
# alternate between configurations, and every other round goes through
# them in reverse order, so that a drift of the host over the run (other
# load, caches, thermal) falls on every configuration alike, and no
# configuration always boots first. Same RAM, NVDIMM and NUMA layout for
# all; guest RAM and NVDIMM preallocated on the host (run-guest.sh -p).
# The raw logs go to OUTDIR/raw (CONFIG.rROUND.out and .console), the
# tables and plots to OUTDIR (bench/collect.py), the OOM reports of the
# kernel logs to OUTDIR/oom-reports (bench/oom-reports.py), and a full
# run's profile to OUTDIR/profile (bench/profile.sh).
set -euo pipefail
repo=$1 build=$2 quick=$3 runs=$4 out=$5
stock=$build/obj-stock-bench/arch/x86/boot/bzImage
pmswap=$build/obj-pmswap-bench/arch/x86/boot/bzImage
initrd=$build/initramfs.cpio
configs=(stock-pmem stock-zram-lz4 stock-zram-zstd stock-tiering pmswap pmswap-hugeoff pmswap-bio pmswap-read pmswap-always)
[ "$quick" = 1 ] && configs=(stock-pmem stock-zram-lz4 pmswap pmswap-read)
# BENCH_CONFIGS="a b": a subset (keep stock-pmem in it: ratios are to it)
if [ -n "${BENCH_CONFIGS:-}" ]; then
	read -r -a configs <<< "$BENCH_CONFIGS"
fi
# BENCH_ONLY="a b": only these workloads (the others are not run)
only=$(echo "${BENCH_ONLY:-}" | tr -s ' ' ',' | sed 's/^,//; s/,$//')
mem=1536M nvmib=2048 tmo=1800
[ "$quick" = 1 ] && tmo=900
for k in "$stock" "$pmswap"; do
	[ -f "$k" ] || { echo "bench: no $k (make kernel BENCH=1 [STOCK=1])" >&2; exit 1; }
done

rm -rf "$out/raw"
mkdir -p "$out/raw"
logs=$build/bench-logs
mkdir -p "$logs"
echo "bench: ${#configs[@]} configurations x $runs round(s), one boot each$([ "$quick" = 1 ] && echo ", quick")," \
     "guest $mem RAM + ${nvmib} MiB NVDIMM on NUMA node 1, TCG"
{
	echo "date $(date -u +%FT%TZ)"
	echo "commit $(git -C "$repo" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "host $(uname -r), $(nproc) CPUs"
	echo "stock $(sha256sum "$stock" | cut -c1-16) $stock"
	echo "pmswap $(sha256sum "$pmswap" | cut -c1-16) $pmswap"
	echo "command make bench QUICK=$quick RUNS=$runs CONFIGS=\"${configs[*]}\"${only:+ ONLY=\"${only//,/ }\"}"
} > "$out/raw/MANIFEST"
start=$(date +%s)
rc=0
n=0 total=$(( ${#configs[@]} * runs ))
for ((r = 1; r <= runs; r++)); do
	order=("${configs[@]}")
	if (( r % 2 == 0 )); then
		order=()
		for ((i = ${#configs[@]} - 1; i >= 0; i--)); do order+=("${configs[$i]}"); done
	fi
	for cfg in "${order[@]}"; do
		n=$((n + 1))
		case $cfg in stock-*) k=$stock ;; *) k=$pmswap ;; esac
		t0=$(date +%s)
		tag=bench-$cfg.r$r
		printf 'bench: [%d/%d] round %d %-16s ' "$n" "$total" "$r" "$cfg"
		PMSWAP_TAG=$tag PMSWAP_KERNEL=$k PMSWAP_INITRAMFS=$initrd \
			"$repo/tests/run-guest.sh" -n -p -T -N $nvmib -m $mem -s none -t $tmo -o "$logs" \
			-a "pmswap.bench=$cfg pmswap.runs=1 pmswap.round=$r pmswap.quick=$quick${only:+ pmswap.only=$only}" \
			bench > /dev/null || true
		cp "$logs/$tag.out" "$out/raw/$cfg.r$r.out"
		cp "$logs/$tag.console" "$out/raw/$cfg.r$r.console"
		res=$(grep -c '^BENCH ' "$out/raw/$cfg.r$r.out" || true)
		# the console patterns of every test run (tests/console-patterns.txt)
		warn=$(python3 "$repo/tests/check-results.py" --scan-console \
			"$out/raw/$cfg.r$r.console" | grep -c . || true)
		echo "$(( $(date +%s) - t0 ))s, $res results, $warn console warnings"
		if [ "$res" = 0 ] || [ "$warn" != 0 ]; then
			rc=1
		fi
		grep '^# ' "$out/raw/$cfg.r$r.out" | grep -v '^# bench' | sed 's/^/bench:   /' | head -8 || true
	done
done
echo "bench: all boots in $(( $(date +%s) - start ))s"
echo "seconds $(( $(date +%s) - start ))" >> "$out/raw/MANIFEST"
python3 "$repo/bench/collect.py" "$out"
# every OOM report of the run's kernel logs: which allocation, which path
mkdir -p "$out/oom-reports"
python3 "$repo/bench/oom-reports.py" "$out/raw" > "$out/oom-reports/table.txt" || rc=1
python3 "$repo/bench/oom-reports.py" --reclaim "$out/raw" > "$out/oom-reports/reclaim.txt" || rc=1
# The full run (every configuration and workload) also writes the profile
# (bench/profile.sh, two more boots), so that one make bench regenerates
# every table of bench/results.
if [ "$quick" = 0 ] && [ -z "${BENCH_CONFIGS:-}" ] && [ -z "$only" ]; then
	"$repo/bench/profile.sh" "$repo" "$build" "$out/profile" || rc=1
fi
exit $rc
