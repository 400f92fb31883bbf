#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The systemd unit of "pmswap setup --persist" (tools/pmswap/persist.c),
# on the host: written into a scratch PMSWAP_SYSTEMD_DIR with the
# namespace's UUID, priority and policy, enabled by the swap.target.wants
# symlink, accepted by systemd-analyze verify, removed again by
# persist_remove(), which says so when there is nothing to remove, and a
# directory that cannot be written fails with exit 1. The guest's tools
# suite runs the unit's ExecStart and ExecStop lines on a real namespace.
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
n=0 fail=0
t() {	# t RESULT DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; fail=1; fi
}
# verify: systemd-analyze verify the unit; 0 if it exits 0 with no output
verify() {
	systemd-analyze verify --man=no "$unit" > "$tmp/v.out" 2>&1
	rc=$?
	sed 's/^/# /' "$tmp/v.out"
	[ $rc = 0 ] && [ ! -s "$tmp/v.out" ]
}
uuid=0d7f1c4e-3a5b-4c6d-8e9f-0a1b2c3d4e5f
drv=$tmp/persist-drv
export PMSWAP_SYSTEMD_DIR=$tmp/units
echo "TAP version 13"
echo "1..13"
gcc -Wall -Wextra -Werror -I "$repo/tools/pmswap" -o "$drv" \
	"$repo/tests/host/lib/persist-drv.c" "$repo/tools/pmswap/persist.c"
t $? "persist.c builds on its own, warning-free"
mkdir -p "$tmp/units"
"$drv" write $uuid 7 read > "$tmp/w.out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/w.out" "$tmp/units/pmswap.service" 2>/dev/null
unit=$tmp/units/pmswap.service
[ $rc = 0 ] && grep -qx "ExecStart=\"$drv\" setup --namespace \"$uuid\" --wait 90 --priority 7 --policy read" "$unit" &&
	grep -qx "ExecStop=\"$drv\" off \"$uuid\"" "$unit"
t $? "ExecStart sets the namespace up by UUID (waiting for it) with priority and policy; ExecStop swaps it off (exit $rc)"
! grep -q "udev-settle" "$unit" && grep -qx "After=systemd-udev-trigger.service systemd-modules-load.service" "$unit"
t $? "no deprecated systemd-udev-settle: after udev's coldplug trigger, the unit waits for its namespace"
grep -qx "WantedBy=swap.target" "$unit" && grep -qx "Before=swap.target umount.target" "$unit" &&
	grep -qx "DefaultDependencies=no" "$unit" && grep -qx "Type=oneshot" "$unit" &&
	grep -qx "RemainAfterExit=yes" "$unit" &&
	[ "$(readlink "$tmp/units/swap.target.wants/pmswap.service")" = ../pmswap.service ]
t $? "a oneshot before swap.target, enabled by swap.target.wants/pmswap.service"
verify
t $? "systemd-analyze verify accepts the unit, no warning (exit $rc)"
"$drv" write $uuid -1 > /dev/null 2>&1 && grep -qx "ExecStart=\"$drv\" setup --namespace \"$uuid\" --wait 90" "$unit"
t $? "without priority and policy, ExecStart has neither"
"$drv" write-dax dax0.0 2 never > /dev/null 2>&1 &&
	grep -qx "ExecStart=\"$drv\" setup --dax \"dax0.0\" --wait 90 --priority 2 --policy never" "$unit" &&
	grep -qx "ExecStop=\"$drv\" off \"dax0.0\"" "$unit"
t $? "a device-dax instance: ExecStart is setup --dax with it, ExecStop swaps it off"
# a program path with a space, a specifier and a dollar: systemd must find
# the program (verify checks that it is executable)
odd="$tmp/opt/pm swap 100% \$HOME"
mkdir -p "$odd" && cp "$drv" "$odd/pmswap"
"$odd/pmswap" write $uuid 3 > /dev/null 2>&1
rc=$?
grep '^Exec' "$unit" | sed 's/^/# /'
want="ExecStart=\"${odd//%/%%}/pmswap\""
[ $rc = 0 ] && grep -qxF "$want setup --namespace \"$uuid\" --wait 90 --priority 3" "$unit"
t $? "a path with a space, % and \$ is written as one quoted word, % escaped as %% (exit $rc)"
verify
t $? "systemd-analyze verify finds that program: the quoting is systemd's (exit $rc)"
# a path systemd refuses to run: a clear error, the old unit stays
quote="$tmp/opt/it's"
mkdir -p "$quote" && cp "$drv" "$quote/pmswap"
"$quote/pmswap" write $uuid 5 > "$tmp/q.out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/q.out"
[ $rc = 1 ] && grep -q "systemd cannot run" "$tmp/q.out" && grep -q -- "--priority 3$" "$unit" &&
	[ ! -e "$unit.tmp" ]
t $? "a path with a quote: exit 1 with a clear error, the unit before it is kept (exit $rc)"
"$drv" remove > "$tmp/r.out" 2>&1
rc=$?
[ $rc = 0 ] && [ ! -e "$unit" ] && [ ! -e "$tmp/units/swap.target.wants/pmswap.service" ] &&
	[ ! -L "$tmp/units/swap.target.wants/pmswap.service" ]
t $? "remove deletes the unit and its enablement (exit $rc)"
"$drv" remove > "$tmp/r2.out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/r2.out"
[ $rc = 3 ] && grep -q "nothing was persisted" "$tmp/r2.out"
t $? "remove with nothing persisted: exit 3 and says so (exit $rc)"
export PMSWAP_SYSTEMD_DIR=$tmp/none/units
"$drv" write $uuid 7 > "$tmp/f.out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/f.out"
[ $rc = 1 ] && grep -q "swap is on for this boot only" "$tmp/f.out" && [ ! -e "$tmp/none" ]
t $? "a unit directory that does not exist: exit 1, says swap is on for this boot only (exit $rc)"
exit $fail
