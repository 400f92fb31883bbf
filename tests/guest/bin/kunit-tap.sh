#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kunit-tap.sh SUITE...: the results of built-in KUnit suites, which ran
# at boot, as one TAP program: one test point per KUnit case, read from
# /sys/kernel/debug/kunit/SUITE/results. A suite that did not run (no
# results file) is a failed point; so is a case that is not "ok".
# The results file nests the cases one level under their suite; only the
# cases become test points (the file itself is printed as "# " comments),
# and tests/check-results.py does not count the same cases again from the
# console. KUNIT_DEBUGFS: another directory (the host-side test).
dir=${KUNIT_DEBUGFS:-/sys/kernel/debug/kunit}
tmp=${TMPDIR:-/tmp}/kunit.n.$$
echo "TAP version 13"
n=0
fail=0
for s in "$@"; do
	f=$dir/$s/results
	if [ ! -r "$f" ]; then
		n=$((n + 1))
		echo "not ok $n $s: no KUnit results (suite not built in, or KUnit off)"
		fail=1
		continue
	fi
	sed 's/^/# /' "$f"
	# case lines are indented one level: "    ok 3 name" / "    not ok 3 name"
	cases=$(sed -n 's/^    \(\(not \)\{0,1\}ok\) [0-9]* \(.*\)$/\1|\3/p' "$f")
	if [ -z "$cases" ]; then
		n=$((n + 1))
		echo "not ok $n $s: results file holds no cases"
		fail=1
		continue
	fi
	echo "$cases" | {
		while IFS='|' read -r st name; do
			n=$((n + 1))
			echo "$st $n $s: $name"
		done
		echo "$n" > "$tmp"
	}
	n=$(cat "$tmp")
	echo "$cases" | grep -q '^not ok' && fail=1
done
rm -f "$tmp"
echo "1..$n"
exit $fail
