# SPDX-License-Identifier: GPL-2.0
#
# TAP helpers for the guest's shell tests, sourced (not run):
#   . "$(dirname "$0")/tap-lib.sh"
# ok RESULT DESCRIPTION: one test point, passed when RESULT is 0
# expect CODE DESCRIPTION COMMAND...: run COMMAND, pass when it exits CODE;
#   its output is kept in $out and shown as TAP comments
# has PATTERN: does $out match PATTERN (grep)?
# $n counts the points, $fail is 1 once one failed.
n=0
fail=0
ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		fail=1
	fi
}
expect() {
	want=$1 desc=$2
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	[ -n "$out" ] && echo "$out" | sed 's/^/# /'
	[ "$rc" = "$want" ]
	ok $? "$desc (exit $rc, want $want)"
}
has() { echo "$out" | grep -q -- "$1"; }
