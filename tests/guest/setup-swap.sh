#!/bin/sh
# Create a 2 MiB-aligned fsdax namespace on the emulated NVDIMM, mkswap it
# and swapon it, and set THP to "always". Prints TAP as one test program.
# PMSWAP_SWAP=pmem (default), devdax (a devdax namespace driven by
# dax_swap: /dev/daxswap0.0), cxl (CXL persistent memory, run-guest.sh
# -X), cxl-devdax (a devdax namespace on the CXL region, through
# dax_swap), zram, or none. "--hugetlb N" also reserves
# N 2 MiB hugetlb pages (for the upstream selftests' hugetlb cases);
# "--no-aslr" turns address space randomisation off, so tests that pick
# addresses next to their own mappings (upstream mremap_test) see the same
# layout on every run.
set -u
hugetlb=0
aslr=1
while [ $# -gt 0 ]; do
	case "$1" in
	--hugetlb) hugetlb=$2; shift ;;
	--no-aslr) aslr=0 ;;
	esac
	shift
done
n=0
fail=0
step() {  # step DESCRIPTION COMMAND...
	desc=$1
	shift
	n=$((n + 1))
	if log=$("$@" 2>&1); then
		echo "ok $n $desc"
	else
		echo "$log" | sed 's/^/# /'
		echo "not ok $n $desc"
		fail=1
	fi
}

# make_ns [MODE]: fresh labels, one 2 MiB-aligned namespace on region0,
# fsdax (/dev/pmem0) or devdax (dax0.0, bound to device_dax)
make_ns() {
	ndctl disable-region all >/dev/null &&
	ndctl init-labels -f all >/dev/null &&
	ndctl enable-region all >/dev/null &&
	ndctl create-namespace -r region0 -m "${1:-fsdax}" --align 2M -n pmswap
}

# to_dax_swap [INSTANCE]: hand it (default dax0.0) to dax_swap, which
# makes it the block device /dev/daxswapN.M
to_dax_swap() {
	i=${1:-dax0.0}
	echo "$i" > /sys/bus/dax/drivers/device_dax/unbind &&
	echo "$i" > /sys/bus/dax/drivers/dax_swap/new_id &&
	test "$(basename "$(readlink "/sys/bus/dax/devices/$i/driver")")" = dax_swap
}

# CXL (run-guest.sh -X): a pmem region on the type-3 device's memdev in
# the root decoder, then a 2 MiB-aligned fsdax namespace on the nvdimm
# region the CXL bridge exposes for it (/dev/pmem0: no NVDIMM here)
cxl_region() {
	cxl create-region -m -d decoder0.0 -w 1 -t pmem mem0 >/dev/null &&
	cxl list -R | grep -q '"region":"region0"'
}

# cxl_ns [MODE]: fsdax (default) or devdax
cxl_ns() {
	ndctl create-namespace -m "${1:-fsdax}" --align 2M -n pmswap
}

# the one device-dax instance there is (the CXL region's namespace)
dax_inst() { basename "$(ls -d /sys/bus/dax/devices/dax*.* 2>/dev/null | head -1)"; }

thp() {
	echo always > /sys/kernel/mm/transparent_hugepage/enabled &&
	echo madvise > /sys/kernel/mm/transparent_hugepage/defrag
}

zram_on() {
	echo lzo > /sys/block/zram0/comp_algorithm 2>/dev/null
	echo 1G > /sys/block/zram0/disksize && mkswap /dev/zram0 && swapon /dev/zram0
}

reserve_hugetlb() {
	echo "$hugetlb" > /proc/sys/vm/nr_hugepages &&
	test "$(cat /proc/sys/vm/nr_hugepages)" = "$hugetlb"
}

echo "TAP version 13"
extra=0
[ "$hugetlb" != 0 ] && extra=1
[ "$aslr" = 0 ] && extra=$((extra + 1))
case "$PMSWAP_SWAP" in
pmem)
	echo "1..$((4 + extra))"
	step "fsdax namespace with 2 MiB alignment on region0" make_ns
	step "/dev/pmem0 exists" test -b /dev/pmem0
	step "mkswap and swapon /dev/pmem0" sh -c 'mkswap /dev/pmem0 && swapon /dev/pmem0'
	;;
devdax)
	echo "1..$((5 + extra))"
	step "devdax namespace with 2 MiB alignment on region0 (dax0.0)" make_ns devdax
	step "dax0.0 unbound from device_dax and bound to dax_swap" to_dax_swap
	step "/dev/daxswap0.0 exists" test -b /dev/daxswap0.0
	step "mkswap and swapon /dev/daxswap0.0" sh -c 'mkswap /dev/daxswap0.0 && swapon /dev/daxswap0.0'
	;;
cxl-devdax)
	echo "1..$((6 + extra))"
	step "cxl create-region: pmem region on mem0 in decoder0.0" cxl_region
	step "devdax namespace with 2 MiB alignment on the CXL region" cxl_ns devdax
	inst=$(dax_inst)
	blk=/dev/daxswap${inst#dax}
	step "$inst unbound from device_dax and bound to dax_swap" to_dax_swap "$inst"
	step "$blk exists" test -b "$blk"
	step "mkswap and swapon $blk" sh -c "mkswap $blk && swapon $blk"
	;;
cxl)
	echo "1..$((5 + extra))"
	step "cxl create-region: pmem region on mem0 in decoder0.0" cxl_region
	step "fsdax namespace with 2 MiB alignment on the CXL region" cxl_ns
	step "/dev/pmem0 exists" test -b /dev/pmem0
	step "mkswap and swapon /dev/pmem0" sh -c 'mkswap /dev/pmem0 && swapon /dev/pmem0'
	;;
zram)
	echo "1..$((2 + extra))"
	step "mkswap and swapon /dev/zram0" zram_on
	;;
none)
	echo "1..$((1 + extra))"
	;;
esac
step "THP enabled=always defrag=madvise" thp
[ "$hugetlb" != 0 ] && step "reserve $hugetlb hugetlb pages" reserve_hugetlb
[ "$aslr" = 0 ] && step "address space randomisation off" sh -c 'echo 0 > /proc/sys/kernel/randomize_va_space'
cat /proc/swaps | sed 's/^/# /'
exit $fail
