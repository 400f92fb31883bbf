#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-guest.sh [options] SUITE
#   -k KERNEL      bzImage (default: from PMSWAP_KERNEL)
#   -i INITRAMFS   initramfs cpio (default: from PMSWAP_INITRAMFS)
#   -o DIR         where the logs go (default: build/logs)
#   -t SECONDS     whole-boot timeout (default 1800)
#   -s SWAP        pmem (default), devdax (dax_swap on a devdax namespace),
#                  cxl (with -X), zram or none
#   -m MEM         guest RAM (default 1G)
#   -a ARGS        extra kernel command-line arguments
#   -b BASELINE    known stock failures for upstream tests
#   -n             no result check (print the logs only)
#   -N MIB         NVDIMM size in MiB (default 1024; the 128 KiB label
#                  area comes on top)
#   -T             two NUMA nodes: CPUs and RAM on node 0, the NVDIMM on
#                  CPU-less node 1 (for pmem as a memory tier)
#   -C N           N virtual CPUs (default 2; with -R, N/2 on each node)
#   -R             two NUMA nodes with a CPU and half the RAM each (for
#                  page migration between nodes; MEM in M or G)
#   -X             CXL instead of the NVDIMM: a q35 machine with a CXL
#                  host bridge, root port and type-3 device with 1 GiB
#                  of persistent memory and a label area, in a 4 GiB CXL
#                  fixed memory window (the guest makes the region)
#   -p             preallocate guest RAM and the NVDIMM on the host, so
#                  that timings do not include the host's first-touch
#                  faults (for demos and benchmarks)
#
# Boots QEMU (TCG) with an emulated NVDIMM, runs the suite in the guest
# and judges the result with tests/check-results.py: the programs that
# tests/guest/suites/SUITE declares, and the skips that
# tests/expected-skips/TAG.txt expects (TAG: PMSWAP_TAG, default SUITE).
# PMSWAP_STRICT_SKIPS=1 fails the run when there is no such list (the
# Makefile sets it once every suite of make test has one). SUITE "shell"
# gives an interactive shell on the console instead.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kernel=${PMSWAP_KERNEL:-} initrd=${PMSWAP_INITRAMFS:-}
logs=$here/../build/logs tmo=1800 swap=pmem mem=1G extra= baseline= check=1 prealloc= nvmib=1024 numa= numa2= ncpu=2 cxl=
while getopts k:i:o:t:s:m:a:b:npN:TRC:X opt; do
	case $opt in
	k) kernel=$OPTARG ;; i) initrd=$OPTARG ;; o) logs=$OPTARG ;;
	t) tmo=$OPTARG ;; s) swap=$OPTARG ;; m) mem=$OPTARG ;;
	a) extra=$OPTARG ;; b) baseline=$OPTARG ;; n) check=0 ;;
	p) prealloc=1 ;; N) nvmib=$OPTARG ;; T) numa=1 ;; R) numa2=1 ;; C) ncpu=$OPTARG ;;
	X) cxl=1 ;;
	*) exit 2 ;;
	esac
done
case $ncpu in
''|*[!0-9]*|0) echo "run-guest.sh: -C needs a number of CPUs" >&2; exit 2 ;;
esac
[ -n "$numa2" ] && [ $((ncpu % 2)) = 1 ] &&
	{ echo "run-guest.sh: -R needs an even -C (one socket a node)" >&2; exit 2; }
shift $((OPTIND - 1))
suite=${1:?usage: run-guest.sh [options] SUITE}
[ -f "$kernel" ] || { echo "run-guest: no kernel image '$kernel'" >&2; exit 2; }
[ -f "$initrd" ] || { echo "run-guest: no initramfs '$initrd'" >&2; exit 2; }

mkdir -p "$logs"
tag=${PMSWAP_TAG:-$suite}
console=$logs/$tag.console
out=$logs/$tag.out
nvimg=$logs/$tag.nvdimm
# 1 GiB of NVDIMM plus the 128 KiB label area, so the region is 1 GiB and
# 2 MiB-aligned fsdax namespaces fit. Sparse, recreated for every boot.
rm -f "$nvimg" "$console" "$out"
nvsize=$((nvmib * 1024 * 1024 + 128 * 1024))
truncate -s $nvsize "$nvimg"

# rootfstype=ramfs: the initramfs (test programs, selftests, libraries) is
# not swappable, so swap counts seen by the tests are their own, not the
# rootfs being pushed out under pressure.
cmdline="console=ttyS0,115200 panic=-1 oops=panic ignore_loglevel rootfstype=ramfs pmswap.suite=$suite pmswap.swap=$swap $extra"
# -R: one socket per node; two threads of one core on two nodes make the
# kernel WARN (topology_sane(), arch/x86/kernel/smpboot.c)
smp=$ncpu
[ -n "$numa2" ] && smp=$ncpu,sockets=2,cores=$((ncpu / 2)),threads=1
node0=0 node1=1
[ "$ncpu" -gt 2 ] && node0=0-$((ncpu / 2 - 1)) node1=$((ncpu / 2))-$((ncpu - 1))
if [ -z "$cxl" ]; then
	qemu=(qemu-system-x86_64 -machine pc,nvdimm=on -accel tcg -cpu max -smp "$smp"
	      -m "$mem,slots=2,maxmem=8G"
	      -object "memory-backend-file,id=nv1,share=on,mem-path=$nvimg,size=$nvsize${prealloc:+,prealloc=on}"
	      -device "nvdimm,id=nvdimm1,memdev=nv1,label-size=128K${numa:+,node=1}")
else
	# QEMU 7.2's CXL: persistent memory behind host bridge cxl.1, root
	# port rp0 and a type-3 device, with a label storage area; the fixed
	# memory window (CFMW) gives the host physical range regions go in
	lsa=$logs/$tag.lsa
	rm -f "$lsa"
	truncate -s $((nvmib * 1024 * 1024)) "$nvimg"
	truncate -s $((256 * 1024 * 1024)) "$lsa"
	qemu=(qemu-system-x86_64 -machine q35,cxl=on -accel tcg -cpu max -smp "$smp"
	      -m "$mem,slots=2,maxmem=8G"
	      -object "memory-backend-file,id=cxl-mem0,share=on,mem-path=$nvimg,size=${nvmib}M"
	      -object "memory-backend-file,id=cxl-lsa0,share=on,mem-path=$lsa,size=256M"
	      -device pxb-cxl,bus_nr=12,bus=pcie.0,id=cxl.1
	      -device cxl-rp,port=0,bus=cxl.1,id=rp0,chassis=0,slot=2
	      -device cxl-type3,bus=rp0,memdev=cxl-mem0,lsa=cxl-lsa0,id=cxl-pmem0
	      -M cxl-fmw.0.targets.0=cxl.1,cxl-fmw.0.size=4G)
fi
qemu+=(-kernel "$kernel" -initrd "$initrd" -append "$cmdline"
       -display none -no-reboot -nodefaults)
if [ -n "$numa" ]; then
	qemu+=(-object "memory-backend-ram,id=ram0,size=$mem${prealloc:+,prealloc=on}"
	       -numa node,nodeid=0,cpus=0-$((ncpu - 1)),memdev=ram0 -numa node,nodeid=1)
elif [ -n "$numa2" ]; then
	case $mem in
	*G) half=$(( ${mem%G} * 512 )) ;;
	*M) half=$(( ${mem%M} / 2 )) ;;
	*) echo "run-guest.sh: -R needs -m in M or G" >&2; exit 2 ;;
	esac
	qemu+=(-object "memory-backend-ram,id=ram0,size=${half}M${prealloc:+,prealloc=on}"
	       -object "memory-backend-ram,id=ram1,size=${half}M${prealloc:+,prealloc=on}"
	       -numa node,nodeid=0,cpus=$node0,memdev=ram0 -numa node,nodeid=1,cpus=$node1,memdev=ram1)
elif [ -n "$prealloc" ]; then
	qemu+=(-mem-prealloc)
fi

if [ "$suite" = shell ]; then
	exec "${qemu[@]}" -serial mon:stdio -serial null
fi

echo "guest: booting $(basename "$kernel") for suite '$suite' (swap on $swap; logs in $logs/$tag.*)"
start=$(date +%s)
rc=0
timeout --foreground "$tmo" "${qemu[@]}" -serial "file:$console" -serial "file:$out" \
	</dev/null >"$logs/$tag.qemu" 2>&1 || rc=$?
echo "guest: suite '$suite' done in $(( $(date +%s) - start ))s (qemu exit $rc)"
rm -f "$nvimg" "$logs/$tag.lsa"
if [ $rc = 124 ]; then
	echo "guest: TIMEOUT after ${tmo}s" >> "$out"
fi
[ $check = 1 ] || { cat "$out"; exit 0; }
args=(--console "$console" --out "$out" --suite "$suite"
      --suite-file "$here/guest/suites/$suite"
      --expected-skips "$here/expected-skips/$tag.txt")
[ -n "$baseline" ] && args+=(--baseline "$baseline")
[ "${PMSWAP_STRICT_SKIPS:-0}" = 1 ] && args+=(--strict-skips)
[ $rc = 124 ] && args+=(--timed-out)
python3 "$here/check-results.py" "${args[@]}"
