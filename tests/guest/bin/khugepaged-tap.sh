#!/bin/sh
# khugepaged-tap.sh [ARGS...]: run the upstream khugepaged selftest and
# turn its output into TAP: one point per "Run test: NAME (CONTEXT:MEM)",
# not ok when any check in it printed in red (fail()), SKIP when one
# printed in yellow (skip()) and none failed. A last point checks that the
# exit status agrees with the failures counted (khugepaged exits with the
# number of failed checks).
/pmswap/selftests/khugepaged "$@" > /tmp/khugepaged.log 2>&1
rc=$?
sed 's/^/# /' /tmp/khugepaged.log | tr -d '\033'
echo "TAP version 13"
awk -v rc="$rc" '
function flush() {
	if (name == "") return
	n++
	if (bad) { print "not ok " n " " name; fails++ }
	else if (skipped) print "ok " n " " name " # SKIP"
	else print "ok " n " " name
	name = ""; bad = 0; skipped = 0
}
/^Run test: / { flush(); name = $0; sub(/^Run test: /, "", name); next }
/\033\[31m/ { bad = 1; redlines++ }
/\033\[33m/ { skipped = 1 }
END {
	flush()
	n++
	if (rc < 128 && (rc == 0) == (redlines == 0) && n > 1)
		print "ok " n " exit status " rc " agrees with " redlines + 0 " failed checks"
	else
		print "not ok " n " exit status " rc ", " redlines + 0 " failed checks, " n - 1 " tests"
	print "1.." n
}' /tmp/khugepaged.log
[ "$rc" -ge 128 ] && exit "$rc"
exit 0
