#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kunit-tap.sh SUITE...: the results of built-in KUnit suites, which ran
# at boot, as one TAP program: one test point per KUnit case, read from
# /sys/kernel/debug/kunit/SUITE/results. A suite that did not run (no
# results file) is a failed point; so is a case that is not "ok".
echo "TAP version 13"
n=0
fail=0
for s in "$@"; do
	f=/sys/kernel/debug/kunit/$s/results
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
		echo "$n" > /tmp/kunit.n
	}
	n=$(cat /tmp/kunit.n)
	echo "$cases" | grep -q '^not ok' && fail=1
done
echo "1..$n"
exit $fail
