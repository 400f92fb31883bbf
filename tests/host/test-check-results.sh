#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host-side tests of tests/check-results.py: the runner must fail on a
# kernel warning, a crash, a missing result or a timeout, and must not
# fail on a clean run or on a known stock failure. Prints TAP.
set -u
here=$(cd "$(dirname "$0")" && pwd)
chk=$here/../check-results.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0

clean_console='[    0.000000] Linux version 6.12.118
[    0.100000] Lock dependency validator: Copyright (c) 2006 Red Hat, Inc.
[    1.000000] reboot: Power down'
clean_out='PMSWAP-SUITE-BEGIN t
PMSWAP-BEGIN prog
TAP version 13
1..2
ok 1 first
ok 2 second # SKIP not here
PMSWAP-END prog rc=0
PMSWAP-SUITE-END t'

# expect NAME WANT-RC WANT-LINE CONSOLE OUT [extra args]
expect() {
	local name=$1 want=$2 line=$3 console=$4 out=$5 got rc
	shift 5
	printf '%s\n' "$console" > "$tmp/c"
	printf '%s\n' "$out" > "$tmp/o"
	got=$(python3 "$chk" --console "$tmp/c" --out "$tmp/o" --suite t "$@" 2>&1)
	rc=$?
	n=$((n + 1))
	if [ "$rc" = "$want" ] && echo "$got" | grep -q -- "$line"; then
		echo "ok $n $name"
	else
		echo "$got" | sed 's/^/# /'
		echo "not ok $n $name (exit $rc, wanted $want and '$line')"
		fail=1
	fi
}

echo "TAP version 13"
echo "1..11"
expect "clean run passes" 0 "suite t: 1 passed, 0 failed, 1 skipped" "$clean_console" "$clean_out"
expect "WARNING on the console fails" 1 "console: .*WARNING: CPU: 1 PID: 77" \
	"$clean_console
[    5.000000] WARNING: CPU: 1 PID: 77 at mm/memory.c:123 do_swap_page+0x1/0x2" "$clean_out"
expect "BUG/KASAN report fails" 1 "BUG: KASAN" \
	"$clean_console
[    5.000000] BUG: KASAN: slab-use-after-free in swap_read_folio" "$clean_out"
expect "lockdep report fails" 1 "possible circular locking" \
	"$clean_console
[    5.000000] WARNING: possible circular locking dependency detected" "$clean_out"
expect "missing results fail" 1 "missing result" "$clean_console" \
	"${clean_out/1..2/1..3}"
expect "program that never ends fails" 1 "did not finish" "$clean_console" \
	"$(printf '%s\n' "$clean_out" | grep -v 'PMSWAP-END\|SUITE-END')"
expect "not ok fails" 1 "not ok 2 second" "$clean_console" "${clean_out/ok 2 second # SKIP not here/not ok 2 second}"
printf 'prog\tsecond\n' > "$tmp/baseline"
expect "known stock failure is skipped" 0 "known stock failure" "$clean_console" \
	"$(printf '%s\n' "${clean_out/ok 2 second # SKIP not here/not ok 2 second}" | sed 's/rc=0/rc=1/')" --baseline "$tmp/baseline"
expect "timeout fails" 1 "timed out" "$clean_console" "$clean_out" --timed-out
skip_out='PMSWAP-SUITE-BEGIN t
PMSWAP-BEGIN prog
TAP version 13
1..0 # SKIP no pmem here
PMSWAP-END prog rc=4
PMSWAP-SUITE-END t'
expect "whole-program skip (1..0 # SKIP, exit 4) is one skip" 0 "0 passed, 0 failed, 1 skipped" \
	"$clean_console" "$skip_out"
expect "1..0 # SKIP with exit 0 still fails" 1 "no test results" \
	"$clean_console" "${skip_out/rc=4/rc=0}"
exit $fail
