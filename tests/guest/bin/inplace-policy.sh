#!/bin/sh
# inplace-policy.sh POLICY COMMAND [ARGS...]
# Run COMMAND with the map-in-place policy POLICY (never, read, always) as
# the default for new pmem swap devices and on every active one, then put
# "read", the kernel's default, back. Without a pmem swap device that can
# map in place, "never" just runs COMMAND and the other policies skip.
policy=$1
shift
knob=/sys/kernel/mm/pmswap/inplace/default_policy
set_all() {
	[ -w "$knob" ] && { echo "$1" > "$knob" || return 1; }
	for f in /sys/kernel/mm/pmswap/pmem/*/inplace; do
		[ -e "$f" ] || continue
		echo "$1" > "$f" || return 1
	done
}
if ! ls /sys/kernel/mm/pmswap/pmem/*/inplace > /dev/null 2>&1 &&
   [ "$policy" != never ]; then
	echo "1..0 # SKIP swap is not on a pmem device with map in place"
	exit 4
fi
set_all "$policy" || { echo "Bail out! cannot set in-place policy $policy"; exit 1; }
"$@"
rc=$?
set_all read
exit $rc
