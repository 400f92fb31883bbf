#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# dax_swap (issue 19 item 1): swap on a device-dax instance. Runs after
# setup-swap.sh with PMSWAP_SWAP=devdax or cxl-devdax (swap on
# /dev/daxswapN.M, from daxN.M) and leaves swap on it again. TAP on
# stdout.
#
# Checks that pmswap claims the device for DAX swap as it claims an fsdax
# namespace; the DAX bus's bad input (a malformed id, binding an instance
# device_dax holds); the block device's reads and writes, in range and
# past the end; and that the instance goes back and forth between
# dax_swap and device_dax, keeping its data, and swaps again after; that
# a memory failure reported while nothing swaps there is recorded, fails
# the page's reads, and is kept out of the swap area at the next swapon.
set -u
. "$(dirname "$0")/tap-lib.sh"
fails() {  # fails DESCRIPTION COMMAND...: the command must fail
	desc=$1
	shift
	out=$("$@" 2>&1)
	rc=$?
	[ -n "$out" ] && echo "$out" | sed 's/^/# /'
	[ "$rc" != 0 ]
	ok $? "$desc (exit $rc)"
}
drv=/sys/bus/dax/drivers
blk=$(awk '$1 ~ /^\/dev\/daxswap/ { print $1; exit }' /proc/swaps)
blk=${blk:-/dev/daxswap0.0}
inst=dax${blk#/dev/daxswap}
dev=/sys/bus/dax/devices/$inst
sys=/sys/kernel/mm/pmswap/pmem/${blk#/dev/}
driver_of() { basename "$(readlink "$dev/driver" 2>/dev/null)" 2>/dev/null; }
pattern=/tmp/dax-swap-pattern

echo "TAP version 13"
echo "1..23"

# --- pmswap has it, as it has an fsdax namespace ---
grep -q "^$blk " /proc/swaps
ok $? "swap is on $blk"
[ "$(cat "$sys/io" 2>/dev/null)" = dax ]
ok $? "pmswap moves its data through DAX ($sys/io: $(cat "$sys/io" 2>/dev/null))"
phys=$(cat "$sys/phys_start" 2>/dev/null || echo 0)
res=$(cat "$dev/resource" 2>/dev/null || echo none)
echo "# $inst resource $res, $sys/phys_start $phys"
[ $((phys % 2097152)) = 0 ] && [ $((phys)) -ge $((res)) ] 2>/dev/null
ok $? "the swap area starts on a 2 MiB boundary inside $inst ($phys, instance at $res)"
grep -q "\[read\]" "$sys/inplace" 2>/dev/null
ok $? "map in place is on, policy read ($(cat "$sys/inplace" 2>/dev/null))"
! dmesg | grep -q "${blk#/dev/}.*swapping through the block layer"
ok $? "no console line says ${blk#/dev/} swaps through the block layer"

# --- the DAX bus's bad input ---
fails "new_id with a malformed name is refused" sh -c "echo dax0 > $drv/dax_swap/new_id"
fails "new_id with a name that is no dax device name is refused" sh -c "echo pmem0 > $drv/dax_swap/new_id"

# --- off swap: the block device ---
expect 0 "swapoff $blk" swapoff "$blk"
size=$(blockdev --getsize64 "$blk" 2>/dev/null || echo 0)
echo "# $blk: $size bytes"
[ "$size" -gt 0 ] && [ "$size" = "$(cat "$dev/size" 2>/dev/null)" ]
ok $? "$blk is as large as $inst ($size bytes)"
dd if=/dev/urandom of="$pattern" bs=1M count=2 2>/dev/null
expect 0 "write 2 MiB at 4 MiB through the block device" \
	dd if="$pattern" of="$blk" bs=1M seek=4 count=2 oflag=direct conv=notrunc
expect 0 "read them back, the same bytes" \
	sh -c "dd if=$blk bs=1M skip=4 count=2 iflag=direct 2>/dev/null | cmp - $pattern"
fails "a write past the end fails" \
	dd if="$pattern" of="$blk" bs=1M seek=$((size / 1048576)) count=1 oflag=direct conv=notrunc

# --- back to device_dax and back ---
expect 0 "unbind $inst from dax_swap" sh -c "echo $inst > $drv/dax_swap/unbind"
[ ! -e "$blk" ] && [ ! -e "$sys" ]
ok $? "$blk and its pmswap directory are gone"
expect 0 "bind $inst to device_dax: /dev/$inst" \
	sh -c "echo $inst > $drv/device_dax/bind && test -c /dev/$inst"
fails "dax_swap cannot take $inst while device_dax holds it" \
	sh -c "echo $inst > $drv/dax_swap/bind"
[ "$(driver_of)" = device_dax ] && [ ! -e "$blk" ]
ok $? "$inst stays with device_dax ($(driver_of)), no $blk"
expect 0 "$inst back to dax_swap" \
	sh -c "echo $inst > $drv/device_dax/unbind && echo $inst > $drv/dax_swap/bind && test -b $blk"
expect 0 "the 2 MiB written before are still there" \
	sh -c "dd if=$blk bs=1M skip=4 count=2 iflag=direct 2>/dev/null | cmp - $pattern"
# memory failure while no swap holds it: dax_swap records the page, its
# read fails, and the next swapon keeps it out of the swap area
poison=/sys/kernel/debug/hwpoison/corrupt-pfn
[ -e $poison ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
bad=$(( (res + 8 * 1048576) / 4096 ))
expect 0 "memory failure injected at pfn $bad (8 MiB into $inst)" \
	sh -c "printf '%#x\n' $bad > $poison"
fails "a read of the failed page through $blk fails" \
	dd if="$blk" of=/dev/null bs=4096 skip=2048 count=1 iflag=direct
dmesg -c >/dev/null
expect 0 "mkswap and swapon $blk again, with DAX" \
	sh -c "mkswap $blk >/dev/null && swapon $blk && test \"\$(cat $sys/io)\" = dax"
dmesg | grep "${blk#/dev/}" | sed 's/^/# /'
dmesg | grep -q "${blk#/dev/}: 1 known bad pages kept out of the swap area" &&
	[ "$(cat "$sys/stats/bad_pages" 2>/dev/null)" = 1 ]
ok $? "swapon kept the failed page out of the swap area (stats/bad_pages $(cat "$sys/stats/bad_pages" 2>/dev/null))"
rm -f "$pattern"
exit $fail
