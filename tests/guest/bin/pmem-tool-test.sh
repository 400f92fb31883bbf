#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The pmswap tool and the pmem swap device's bad-input cases, in a guest
# booted without swap (pmswap.swap=none): namespaces are made on region0
# of the emulated NVDIMM, by the tool and by ndctl. TAP on stdout.
#
# Checks exit codes and messages of "pmswap setup/status/off" (wrong
# arguments, missing devices, no permission, busy or filesystem-holding
# namespaces), and that swapon on a namespace pmswap cannot use as pmem
# swap (raw, sector, devdax, 4 KiB aligned) falls back to block swap with
# one console line, or fails with the kernel's error for devdax; and
# "pmswap setup --dax" on a devdax namespace's instance (dax_swap).
set -u
. "$(dirname "$0")/tap-lib.sh"
klog_has() { dmesg | grep -q -- "$1"; }
sysdir=/sys/kernel/mm/pmswap/pmem

# create_ns ARGS...: ndctl create-namespace on region0; sets $ns and $blk
create_ns() {
	j=$(ndctl create-namespace -r region0 "$@" 2>&1) || { echo "$j" | sed 's/^/# /'; return 1; }
	ns=$(echo "$j" | sed -n 's/.*"dev":"\([^"]*\)".*/\1/p' | head -1)
	blk=$(echo "$j" | sed -n 's/.*"blockdev":"\([^"]*\)".*/\1/p' | head -1)
	[ -z "$blk" ] && blk=$(echo "$j" | sed -n 's/.*"chardev":"\([^"]*\)".*/\1/p' | head -1)
	echo "# $ns -> $blk"
	[ -n "$ns" ]
}
destroy_ns() { ndctl destroy-namespace -f "$1" >/dev/null 2>&1; }

echo "TAP version 13"


ndctl disable-region all >/dev/null 2>&1
ndctl init-labels -f all >/dev/null 2>&1
ndctl enable-region all >/dev/null 2>&1
ok $? "labels initialised, region0 enabled"

# --- usage, permissions, nothing set up ---
expect 0 "status without pmem swap" pmswap status
has "no pmem swap device is active"; ok $? "status says no pmem swap device is active"
expect 2 "unknown command" pmswap frobnicate
expect 2 "bad size" pmswap setup --size 12Q
expect 2 "bad priority" pmswap setup --priority -3
expect 2 "--region and --namespace together" pmswap setup --region region0 --namespace namespace0.0
expect 2 "--json outside status" pmswap off --json
expect 3 "unknown region" pmswap setup --region region9
expect 3 "unknown namespace" pmswap setup --namespace namespace9.9
expect 3 "off with nothing active" pmswap off
expect 5 "setup as non-root" /sbin/setpriv --reuid=65534 --regid=65534 --clear-groups pmswap setup
expect 0 "status as non-root" /sbin/setpriv --reuid=65534 --regid=65534 --clear-groups pmswap status
expect 2 "status --json and --prometheus together" pmswap status --json --prometheus
# --- one option table per command, with its help ---
for c in setup status off run; do
	expect 0 "$c --help" pmswap $c --help
	has "^usage: pmswap $c " && has "^  --help "; ok $? "$c --help: usage line and the option table"
done
has "^  --memory-max SIZE  *memory.max"; ok $? "run --help names each option's argument and says what it does"
expect 2 "an option of another command" pmswap status --force
has "pmswap status: unrecognized option '--force'"; ok $? "message names the command and the option"
expect 3 "off DEVICE --persist: an option after the operand" sh -c 'PMSWAP_SYSTEMD_DIR=/tmp/no-units pmswap off /dev/pmem9 --persist'
has "/dev/pmem9 is not active swap"; ok $? "message says /dev/pmem9 is not active swap"
expect 0 "--help lists every command" pmswap --help
has "pmswap setup " && has "pmswap status " && has "pmswap off " && has "pmswap run "; ok $? "--help: setup, status, off and run"

# --- pmswap run: wrong arguments and environments ---
expect 2 "run without --memory-max" pmswap run -- true
expect 2 "run with a bad --memory-max" pmswap run --memory-max 12Q -- true
expect 2 "run with a bad --swap-max" pmswap run --memory-max 64M --swap-max lots -- true
expect 2 "run with a bad --policy" pmswap run --memory-max 64M --policy sometimes -- true
expect 2 "run with a bad --interval" pmswap run --memory-max 64M --interval -1 -- true
expect 2 "run without a command" pmswap run --memory-max 64M
has "needs a command"; ok $? "message says run needs a command"
expect 5 "run as non-root" /sbin/setpriv --reuid=65534 --regid=65534 --clear-groups pmswap run --memory-max 64M -- true
expect 1 "run without cgroup v2" unshare -m sh -c 'umount /sys/fs/cgroup && pmswap run --memory-max 64M -- true'
has "cgroup v2 is not mounted"; ok $? "message says cgroup v2 is not mounted"
expect 127 "run of a command that does not exist" pmswap run --memory-max 64M -- /nonexistent/cmd
has "cannot run /nonexistent/cmd"; ok $? "message names the command"
expect 3 "run --policy with no pmem swap active" pmswap run --memory-max 64M --policy never -- true
expect 7 "run passes the command's exit status on" pmswap run --memory-max 64M -- sh -c 'exit 7'
has "exited with status 7"; ok $? "report says the command exited with status 7"
expect 143 "run of a command killed by SIGTERM exits 128+15" pmswap run --memory-max 64M -- sh -c 'kill -TERM $$'
has "killed by signal 15"; ok $? "report says killed by signal 15"
expect 143 "run --json of a command killed by SIGTERM" pmswap run --json --interval 0 --memory-max 64M -- sh -c 'kill -TERM $$'
has '"exit_status":null,' && has '"signal":15,'; ok $? "run --json: exit_status null, signal 15"
ls -d /sys/fs/cgroup/pmswap-run.* >/dev/null 2>&1
[ $? != 0 ]; ok $? "no pmswap-run cgroup left behind"

# --- setup, use, status, off ---
expect 0 "setup --size 384M --priority 5" pmswap setup --size 384M --priority 5
has "is pmem swap: data moves through the DAX mapping"; ok $? "setup reports a pmem swap device"
dev=$(awk 'NR > 1 && $1 ~ /pmem/ { print $1; exit }' /proc/swaps)
pdev=${dev#/dev/}
[ -n "$dev" ] && awk -v d="$dev" '$1 == d && $5 == 5 { f = 1 } END { exit !f }' /proc/swaps
ok $? "$dev active with priority 5"
[ -d "$sysdir/$pdev" ]; ok $? "kernel lists $pdev under $sysdir"
echo 1 > "/sys/block/$pdev/queue/iostats"
sect0=$(awk '{ print $3 + $7 }' "/sys/block/$pdev/stat")
/pmswap/bin/roundtrip -s 256 > /tmp/rt.out 2>&1
rt=$?; sed 's/^/# /' /tmp/rt.out
sect1=$(awk '{ print $3 + $7 }' "/sys/block/$pdev/stat")
[ $rt = 0 ] && grep -q "^verify_bad_pages 0$" /tmp/rt.out && grep -q "^swapped_kb 262144$" /tmp/rt.out
ok $? "256 MiB THP round trip through $dev: all swapped, data intact"
[ "$sect0" = "$sect1" ]
ok $? "no block I/O on $pdev during the round trip ($((sect1 - sect0)) sectors)"
expect 0 "status" pmswap status
has "I/O path dax" && has "$dev"; ok $? "status shows $dev with the dax I/O path"
written=$(echo "$out" | sed -n 's/.*pages copied: \([0-9]*\) written.*/\1/p')
[ "${written:-0}" -ge 65536 ]; ok $? "status counts the pages copied to pmem ($written)"
maps=$(echo "$out" | sed -n 's/.*THPs: [0-9]* MiB mapped in place now, \([0-9]*\) maps.*/\1/p')
[ -f "$sysdir/$pdev/inplace" ] || maps=none
[ "$maps" = none ] || { [ "${maps:-0}" -ge 128 ] && has "map in place: policy read;" && has "4 KiB pages: [0-9]* kB mapped in place now"; }
ok $? "status shows map in place: policy read, $maps maps for the 128 THPs read back"
expect 0 "status --json" pmswap status --json
has "\"swap\":\"$dev\"" && has "\"blockdev\":\"$pdev\"" && has '"pmem_swap":true' && has '"io":"dax"' && has '"thp_swpout_pmd":[0-9]'
ok $? "status --json describes $dev and the counters"
# the namespace as "ndctl list -N" names it, and its UUID
j=$(ndctl list -N | tr -d ' \n' | sed 's/},{/}\n{/g' | grep "\"blockdev\":\"$pdev\"")
nsdev=$(echo "$j" | sed -n 's/.*"dev":"\([^"]*\)".*/\1/p')
nsuuid=$(echo "$j" | sed -n 's/.*"uuid":"\([^"]*\)".*/\1/p')
[ -n "$nsdev" ] && has "\"dev\":\"$nsdev\"" && has '"mode":"fsdax"' && has "\"uuid\":\"$nsuuid\"" && has '"region":"region0"'
ok $? "status --json names the namespace as ndctl list does ($nsdev, $nsuuid)"
# every one-value file of stats/, by its name and value
bad=
[ -d "$sysdir/$pdev/stats" ] || bad=" no-stats-directory"
for f in "$sysdir/$pdev"/stats/*; do
	k=${f##*/}
	has "\"$k\":[0-9]" || bad="$bad $k"
done
# the event counters of the DAX path do not move while nothing swaps
for k in pages_written pages_read read_errors write_fallbacks poison_notices bad_pages; do
	v=$(cat "$sysdir/$pdev/stats/$k")
	has "\"$k\":$v,\$" || has "\"$k\":$v\$" || bad="$bad $k=$v"
done
[ -z "$bad" ]; ok $? "status --json: every file of stats/ under its name (missing or different:${bad:- none})"
[ "$maps" = none ] || { has '"inplace":"read"' && has '"inplace_copy_avoided_bytes":[0-9]' && has '"pmswap_inplace_map":[0-9]' && has '"inplace_pte_maps":[0-9]' && has '"inplace_pte_maps_around":[0-9]' && has '"pmswap_inplace_pte_map":[0-9]'; }
ok $? "status --json shows the map-in-place policy and counters"

# --- pmswap status --prometheus: the text exposition format ---
expect 0 "status --prometheus" pmswap status --prometheus
echo "$out" | awk '
/^# HELP / { help[$3] = 1; next }
/^# TYPE / { if ($4 != "gauge" && $4 != "counter") bad = bad " type:" $3; type[$3] = 1; next }
/^#/ { next }
{
	if ($0 !~ /^pmswap_[a-z0-9_]+(\{[a-z_]+="[^"]*"(,[a-z_]+="[^"]*")*\})? -?[0-9]+$/) { bad = bad " line:" NR; next }
	name = $1; sub(/\{.*/, "", name)
	if (!(name in type) || !(name in help)) bad = bad " undeclared:" name
	n++
}
END { if (bad != "" || n < 10) { print "bad:" bad " samples " n; exit 1 } }'
ok $? "every sample is a declared pmswap_ metric with labels and an integer value"
has "^pmswap_devices 1$" && has "^pmswap_swap_info{device=\"$dev\",.*} 1$" && has "^pmswap_vm_events_total{event=\"thp_swpout_pmd\"} [1-9]"
ok $? "--prometheus: one device, $dev described, THPs swapped out whole counted"

# --- pmswap run: a workload under a memory limit, with pmem swap ---
pol0=$(cat "$sysdir/$pdev/inplace" 2>/dev/null || echo none)
out=$(pmswap run --memory-max 96M --interval 1 -- /pmswap/bin/usemem -s 192 -p 2 2>/tmp/run.err)
rc=$?
echo "$out" | sed 's/^/# /'; sed 's/^/# stderr: /' /tmp/run.err
[ $rc = 0 ] && has "^bad_pages 0$" && has "exited with status 0"
ok $? "run: usemem 192 MiB in 96 MiB finishes, no bad pages (exit $rc)"
swp=$(echo "$out" | sed -n 's/.*THPs: [0-9]* faulted in, \([0-9]*\) swapped out whole.*/\1/p')
[ "${swp:-0}" -ge 1 ]; ok $? "run: the memcg's THPs swapped out whole are counted ($swp)"
has "memory.max 96 MiB" && has "THP share of anonymous memory: mean"
ok $? "run: report gives the limit and the THP share"
grep -q "^pmswap run: *[0-9]*s  memory [0-9]* MiB  swap [0-9]* MiB" /tmp/run.err
ok $? "run --interval 1: progress lines on stderr"
out=$(pmswap run --json --memory-max 96M --policy never -- /pmswap/bin/usemem -s 192 -p 1 2>/dev/null)
rc=$?
echo "$out" | sed 's/^/# /'
[ $rc = 0 ] && has '"exit_status":0,' && has '"signal":null,' && has '"memory_max":100663296,' &&
	echo "$out" | awk '/"memcg":/,/}/' | grep -q '"thp_swpout":[1-9]' && has '"peak_bytes":[0-9]' &&
	echo "$out" | awk '/"host_during_run":/,/}/' | grep -q '"thp_swpout_pmd":[1-9]'
ok $? "run --json: exit status, limit, memcg and host counters"
[ "$pol0" = none ] || has '"policy":"never"'
ok $? "run --json names the policy it set"
pol1=$(cat "$sysdir/$pdev/inplace" 2>/dev/null || echo none)
[ "$pol0" = "$pol1" ]; ok $? "run restored the map-in-place policy ($pol0, now $pol1)"
out=$(pmswap run --memory-max 64M --swap-max 0 -- /pmswap/bin/usemem -s 192 -p 1 2>/dev/null)
rc=$?
echo "$out" | sed 's/^/# /'
oomk=$(echo "$out" | sed -n 's/.*OOM: \([0-9]*\) kills.*/\1/p')
[ $rc = 137 ] && has "killed by signal 9" && [ "${oomk:-0}" -ge 1 ]
ok $? "run --swap-max 0 over the limit: OOM-killed, exit 137, $oomk OOM kills reported"
ls -d /sys/fs/cgroup/pmswap-run.* >/dev/null 2>&1
[ $? != 0 ]; ok $? "no pmswap-run cgroup left behind after the runs"
expect 4 "setup on the active swap namespace refused" pmswap setup --namespace "$pdev"
has "already active swap"; ok $? "message says it is already swap"
expect 0 "off" pmswap off
! grep -q pmem /proc/swaps; ok $? "no pmem swap left after off"
expect 0 "setup again reuses the pmswap namespace" pmswap setup
! has "created"; ok $? "no new namespace created"
expect 0 "off $dev" pmswap off "$dev"

# --- setup --persist: a systemd unit that sets it up again at boot ---
# No systemd in the guest: the unit goes to a scratch directory, and "boot"
# is running its ExecStart line by hand, then its ExecStop line.
units=/tmp/units
rm -rf $units; mkdir -p $units
export PMSWAP_SYSTEMD_DIR=$units
expect 2 "--persist with status" pmswap status --persist
expect 2 "--policy outside setup" pmswap off --policy read
expect 2 "setup with a bad --policy" pmswap setup --policy sometimes
expect 3 "off --persist with nothing persisted and nothing active" pmswap off --persist
has "nothing was persisted"; ok $? "message says nothing was persisted"
expect 0 "setup --priority 7 --policy never --persist" pmswap setup --priority 7 --policy never --persist
unit=$units/pmswap.service
sed 's/^/# unit: /' $unit 2>/dev/null
pns=$(ndctl list -N 2>/dev/null | tr -d ' \n' | sed 's/},{/}\n{/g' | grep "\"blockdev\":\"$pdev\"" | sed -n 's/.*"uuid":"\([^"]*\)".*/\1/p' | head -1)
echo "# $pdev: namespace uuid ${pns:-none}"
start=$(sed -n 's/^ExecStart=//p' $unit 2>/dev/null)
stop=$(sed -n 's/^ExecStop=//p' $unit 2>/dev/null)
# a unit's command line split into words as systemd does: each word is in
# double quotes, and the guest's paths have no '%' or '$' to unescape
unit_run() { eval "set -- $1"; "$@"; }
[ -n "$pns" ] && echo "$start" | grep -q -- "setup --namespace \"$pns\" --wait 90 --priority 7 --policy never$" &&
	echo "$stop" | grep -q -- "off \"$pns\"$" && grep -q "^WantedBy=swap.target$" $unit &&
	[ "$(readlink $units/swap.target.wants/pmswap.service)" = ../pmswap.service ]
ok $? "pmswap.service: the namespace by UUID, priority and policy, enabled for swap.target"
grep -q '\[never\]' "$sysdir/$pdev/inplace"
ok $? "setup --policy never set the policy of $pdev ($(cat "$sysdir/$pdev/inplace" 2>&1))"
expect 0 "the unit's ExecStop swaps off by UUID" unit_run "$stop"
! grep -q pmem /proc/swaps; ok $? "no pmem swap left after ExecStop"
expect 0 "the unit's ExecStart brings it back" unit_run "$start"
awk -v d="/dev/$pdev" '$1 == d && $5 == 7 { f = 1 } END { exit !f }' /proc/swaps &&
	grep -q '\[never\]' "$sysdir/$pdev/inplace"
ok $? "after ExecStart: /dev/$pdev is swap again with priority 7 and policy never"
/pmswap/bin/roundtrip -s 64 > /tmp/rt.out 2>&1
rt=$?; sed 's/^/# /' /tmp/rt.out
[ $rt = 0 ] && grep -q "^verify_bad_pages 0$" /tmp/rt.out
ok $? "64 MiB THP round trip through the swap the unit set up"
expect 0 "off --persist" pmswap off --persist
[ ! -e $unit ] && [ ! -e $units/swap.target.wants/pmswap.service ] && ! grep -q pmem /proc/swaps
ok $? "off --persist removed the unit and its enablement, and swapped off"
t0=$(date +%s)
expect 3 "setup --namespace with an unknown UUID" pmswap setup --namespace 01234567-89ab-cdef-0123-456789abcdef
# what one look costs on this host, so that a slow host is not a failure
tb=$(( $(date +%s) - t0 ))
t0=$(date +%s)
expect 3 "setup --namespace with an unknown UUID and --wait 3" pmswap setup --namespace 01234567-89ab-cdef-0123-456789abcdef --wait 3
t1=$(date +%s)
[ $((t1 - t0)) -ge 3 ] && [ $((t1 - t0)) -le $((tb + 10)) ]
ok $? "--wait 3 looked for the namespace 3 to $((tb + 10)) s before giving up ($((t1 - t0)) s; one look without --wait: $tb s)"
expect 2 "--wait without --namespace" pmswap setup --wait 3
chmod 500 $units
expect 1 "setup --persist into a directory it cannot write" /sbin/setpriv --inh-caps=-dac_override --bounding-set=-dac_override pmswap setup --persist
has "swap is on for this boot only"; ok $? "message says swap is on for this boot only"
chmod 755 $units
pmswap off >/dev/null 2>&1
unset PMSWAP_SYSTEMD_DIR

# --- a namespace holding a filesystem, and a mounted one ---
if create_ns -m fsdax --align 2M -s 64M -n other; then
	fsblk=$blk fsns=$ns
	mke2fs -q "/dev/$fsblk" >/dev/null 2>&1
	expect 4 "setup on a namespace with ext2 refused" pmswap setup --namespace "$fsns"
	has "holds a ext2/3/4 filesystem"; ok $? "message names the filesystem"
	# The tool judges "mounted" from /proc/mounts; a tmpfs whose source
	# is the pmem device stands in for a mounted filesystem here.
	mkdir -p /mnt/fs && mount -t tmpfs "/dev/$fsblk" /mnt/fs
	expect 4 "setup on a mounted namespace refused even with --force" pmswap setup --force --namespace "$fsblk"
	umount /mnt/fs
	expect 0 "setup --force overwrites the filesystem" pmswap setup --force --namespace "$fsns"
	pmswap off "/dev/$fsblk" >/dev/null
	destroy_ns "$fsns"
else
	ok 1 "create a 64M fsdax namespace"; ok 1 "-"; ok 1 "-"; ok 1 "-"
fi

# --- namespaces pmswap cannot use as pmem swap ---
fallback() {  # fallback WHAT DMESG-PATTERN NDCTL-ARGS...
	what=$1 pat=$2
	shift 2
	if ! create_ns "$@"; then
		ok 1 "$what: create namespace"
		return
	fi
	dmesg -c >/dev/null
	mkswap "/dev/$blk" >/dev/null 2>&1 && swapon "/dev/$blk"
	r=$?
	klog_has "pmswap: $blk: $pat" && [ ! -d "$sysdir/$blk" ] && [ $r = 0 ]
	ok $? "$what: swapon works as block swap, console says '$pat'"
	dmesg | grep "pmswap: $blk" | sed 's/^/# /'
	swapoff "/dev/$blk" 2>/dev/null
	destroy_ns "$ns"
}
fallback "raw namespace" "no DAX" -m raw -s 64M
fallback "sector namespace" "no DAX" -m sector -s 64M

# An fsdax namespace's data always starts 2 MiB aligned on x86 (the pfn
# device rounds it to memremap_compat_align()); a partition starting at
# 1 MiB is how a swap area ends up misaligned.
if create_ns -m fsdax --align 2M -s 64M -n part; then
	printf 'o\nn\np\n1\n2048\n+32M\nw\n' | fdisk "/dev/$blk" >/dev/null 2>&1
	sleep 1
	part=$(ls /sys/block/"$blk"/ | grep "^${blk}p\?1$")
	dmesg -c >/dev/null
	[ -n "$part" ] && [ -b "/dev/$part" ] && mkswap "/dev/$part" >/dev/null 2>&1 &&
		swapon "/dev/$part"
	r=$?
	klog_has "pmswap: $part: swap area starts at .*not 2 MiB aligned" &&
		[ ! -d "$sysdir/$part" ] && [ $r = 0 ]
	ok $? "partition at 1 MiB (${part:-none}): swapon works as block swap, console says 'not 2 MiB aligned'"
	dmesg | grep "pmswap:" | sed 's/^/# /'
	swapoff "/dev/$part" 2>/dev/null
	destroy_ns "$ns"
else
	ok 1 "partition: create namespace"
fi

if create_ns -m devdax --align 2M -s 64M; then
	expect 4 "setup on a devdax namespace refused" pmswap setup --namespace "$ns"
	has "setup --dax"; ok $? "message points to setup --dax"
	swapon "/dev/$blk" 2>/dev/null
	[ $? != 0 ]; ok $? "swapon on devdax $blk fails (not a block device)"
	destroy_ns "$ns"
else
	ok 1 "devdax: create"; ok 1 "-"; ok 1 "-"
fi

# --- setup --dax: a device-dax instance handed to dax_swap ---
drvof() { basename "$(readlink "/sys/bus/dax/devices/$1/driver" 2>/dev/null)" 2>/dev/null; }
expect 3 "setup --dax on no such instance" pmswap setup --dax dax9.9
expect 3 "setup --dax on a name that is no instance nor namespace" pmswap setup --dax frob
expect 2 "setup --dax with --size" pmswap setup --dax dax0.0 --size 32M
expect 2 "setup --dax and --namespace together" pmswap setup --dax dax0.0 --namespace namespace0.0
expect 3 "setup --dax on a name the kernel would not print (dax00.0)" pmswap setup --dax dax00.0
expect 4 "setup --dax on the fsdax namespace ${nsdev:-?} refused" pmswap setup --dax "${nsdev:-namespace0.0}"
has "not devdax; for fsdax use 'pmswap setup --namespace"; ok $? "message points to setup --namespace"
if create_ns -m devdax --align 2M -s 64M -n dax; then
	inst=$blk daxns=$ns dblk=daxswap${blk#dax}
	daxuuid=$(ndctl list -N -n "$daxns" 2>/dev/null | sed -n 's/.*"uuid":"\([^"]*\)".*/\1/p' | head -1)
	echo "# devdax namespace $daxns: instance $inst, uuid $daxuuid"
	/pmswap/bin/mmap_hold "/dev/$inst" > /tmp/hold.out 2>&1 &
	hold=$!
	for i in $(seq 60); do grep -q mapped /tmp/hold.out && break; sleep 1; done
	grep -q mapped /tmp/hold.out
	ok $? "mmap_hold maps /dev/$inst (within 60 s)"
	expect 4 "setup --dax on an instance a process maps refused" pmswap setup --dax "$inst"
	has "mapped by process $hold"; ok $? "message names the process ($hold)"
	[ "$(drvof "$inst")" = device_dax ]; ok $? "$inst stays with device_dax ($(drvof "$inst"))"
	kill $hold; wait $hold 2>/dev/null
	# a filesystem on it: refused, and given back to device_dax
	echo "$inst" > /sys/bus/dax/drivers/device_dax/unbind &&
		echo "$inst" > /sys/bus/dax/drivers/dax_swap/new_id &&
		mke2fs -q "/dev/$dblk" >/dev/null 2>&1 &&
		echo "$inst" > /sys/bus/dax/drivers/dax_swap/unbind &&
		echo "$inst" > /sys/bus/dax/drivers/dax_swap/remove_id &&
		echo "$inst" > /sys/bus/dax/drivers/device_dax/bind
	ok $? "ext2 written on $inst through dax_swap by hand, $inst back with device_dax"
	expect 4 "setup --dax on an instance holding ext2 refused" pmswap setup --dax "$inst"
	has "holds a ext2/3/4 filesystem"; ok $? "message names the filesystem"
	[ "$(drvof "$inst")" = device_dax ] && [ ! -e "/dev/$dblk" ]
	ok $? "refused: $inst given back to device_dax ($(drvof "$inst")), no /dev/$dblk"
	expect 0 "setup --dax $daxns --force --policy always: by namespace" pmswap setup --dax "$daxns" --force --policy always
	has "handed from device_dax to dax_swap: /dev/$dblk" && has "/dev/$dblk ($inst, region0) is pmem swap"
	ok $? "setup says it handed $inst to dax_swap and that /dev/$dblk is pmem swap"
	grep -q "^/dev/$dblk " /proc/swaps && grep -q '\[always\]' "$sysdir/$dblk/inplace"
	ok $? "/dev/$dblk is swap, policy always"
	/pmswap/bin/roundtrip -s 32 > /tmp/rt.out 2>&1
	rt=$?; sed 's/^/# /' /tmp/rt.out
	[ $rt = 0 ] && grep -q "^verify_bad_pages 0$" /tmp/rt.out && grep -q "^swapped_kb 32768$" /tmp/rt.out
	ok $? "32 MiB THP round trip through /dev/$dblk: all swapped, data intact"
	expect 0 "status --json" pmswap status --json
	has "\"swap\":\"/dev/$dblk\"" && has "\"dev\":\"$inst\"" && has "\"namespace\":\"$daxns\"" &&
		has '"mode":"devdax"' && has "\"uuid\":\"$daxuuid\"" && has '"region":"region0"' && has '"io":"dax"'
	ok $? "status --json: /dev/$dblk is $inst of $daxns ($daxuuid), devdax, region0, io dax"
	expect 0 "off $inst: by instance" pmswap off "$inst"
	! grep -q "^/dev/$dblk " /proc/swaps && [ "$(drvof "$inst")" = dax_swap ]
	ok $? "swapped off; $inst stays with dax_swap"
	units=/tmp/units-dax
	rm -rf $units; mkdir -p $units
	expect 0 "setup --dax $inst --persist: instance already with dax_swap" \
		env PMSWAP_SYSTEMD_DIR=$units pmswap setup --dax "$inst" --priority 3 --persist
	start=$(sed -n 's/^ExecStart=//p' $units/pmswap.service 2>/dev/null)
	stop=$(sed -n 's/^ExecStop=//p' $units/pmswap.service 2>/dev/null)
	sed 's/^/# unit: /' $units/pmswap.service 2>/dev/null
	[ -n "$daxuuid" ] && echo "$start" | grep -q -- "setup --dax \"$daxuuid\" --wait 90 --priority 3$" &&
		echo "$stop" | grep -q -- "off \"$daxuuid\"$"
	ok $? "pmswap.service names the instance by its namespace's UUID"
	unit_run() { eval "set -- $1"; "$@"; }
	expect 0 "the unit's ExecStop swaps off by UUID" unit_run "$stop"
	! grep -q "^/dev/$dblk " /proc/swaps; ok $? "no swap on /dev/$dblk after ExecStop"
	echo "$inst" > /sys/bus/dax/drivers/dax_swap/unbind
	echo "$inst" > /sys/bus/dax/drivers/device_dax/bind
	expect 0 "the unit's ExecStart hands it to dax_swap again and swaps on" unit_run "$start"
	awk -v d="/dev/$dblk" '$1 == d && $5 == 3 { f = 1 } END { exit !f }' /proc/swaps
	ok $? "after ExecStart: /dev/$dblk is swap with priority 3"
	expect 0 "off --persist" env PMSWAP_SYSTEMD_DIR=$units pmswap off --persist
	echo "$inst" > /sys/bus/dax/drivers/dax_swap/unbind
	[ -z "$(drvof "$inst")" ]; ok $? "$inst unbound from dax_swap: no driver"
	expect 0 "setup --dax on an instance with no driver" pmswap setup --dax "$inst"
	has "handed from no driver to dax_swap: /dev/$dblk"; ok $? "setup says it took $inst from no driver"
	pmswap off "$inst" >/dev/null
	echo "$inst" > /sys/bus/dax/drivers/dax_swap/unbind
	echo "$inst" > /sys/bus/dax/drivers/dax_swap/remove_id
	echo "$inst" > /sys/bus/dax/drivers/device_dax/bind
	destroy_ns "$daxns"
else
	ok 1 "devdax for setup --dax: create"
fi

# --- known bad blocks at swapon, and the backend switched off ---
if create_ns -m fsdax --align 2M -s 64M -n bb; then
	echo "8192 8" > "/sys/block/$blk/badblocks"
	dmesg -c >/dev/null
	mkswap "/dev/$blk" >/dev/null 2>&1 && swapon "/dev/$blk"
	klog_has "pmswap: $blk: 1 known bad pages kept out" &&
		[ "$(cat "$sysdir/$blk/stats/bad_pages")" = 1 ]
	ok $? "a known bad block is kept out of the swap area"
	dmesg | grep "pmswap: $blk" | sed 's/^/# /'
	swapoff "/dev/$blk"
	echo 0 > $sysdir/enabled
	swapon "/dev/$blk" && [ ! -d "$sysdir/$blk" ]
	ok $? "enabled=0: swapon gives plain block swap"
	swapoff "/dev/$blk"
	echo 1 > $sysdir/enabled
	destroy_ns "$ns"
else
	ok 1 "badblocks: create"; ok 1 "-"
fi
echo "1..$n"
exit $fail
