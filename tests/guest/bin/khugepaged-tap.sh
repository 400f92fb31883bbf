#!/bin/sh
# khugepaged-tap.sh [ARGS...]: run the upstream khugepaged selftest and
# turn its output into TAP: one point per "Run test: NAME (CONTEXT:MEM)",
# not ok when any check in it printed in red (fail()), SKIP when one
# printed in yellow (skip()) and none failed. A last point checks that the
# exit status agrees with the failures counted (khugepaged exits with the
# number of failed checks).
#
# khugepaged also exits early, with status 1, when a test cannot set up
# (exit(EXIT_FAILURE) after "Failed to allocate huge page", for one). Then
# the exit status is not the count of failed checks, and the test that was
# running is the one that failed: it is reported not ok, with the last line
# it printed, so that the runner judges that test (a known stock failure or
# not) instead of an anonymous "exit status" point. The tests after it did
# not run, and the last point says so.
log=${KHUGEPAGED_LOG:-/tmp/khugepaged.log}
if [ -z "${KHUGEPAGED_LOG:-}" ]; then
	${KHUGEPAGED:-/pmswap/selftests/khugepaged} "$@" > "$log" 2>&1
	rc=$?
else
	rc=${KHUGEPAGED_RC:?}
fi
sed 's/^/# /' "$log" | tr -d '\033'
echo "TAP version 13"
awk -v rc="$rc" '
function flush(why) {
	if (name == "") return
	n++
	if (why != "") { print "not ok " n " " name " # " why; fails++ }
	else if (bad) { print "not ok " n " " name; fails++ }
	else if (skipped) print "ok " n " " name " # SKIP"
	else print "ok " n " " name
	name = ""; bad = 0; skipped = 0
}
/^Run test: / { flush(""); name = $0; sub(/^Run test: /, "", name); last = ""; next }
/\033\[31m/ { bad = 1; redlines++ }
/\033\[33m/ { skipped = 1 }
/^Restore THP and khugepaged settings/ { next }
{ line = $0; gsub(/\033\[[0-9;]*m/, "", line); sub(/.*\.\.\./, "", line); if (line != "") last = line }
END {
	if (rc >= 128 && name != "")
		flush("killed by signal " rc - 128)
	cut = rc > 0 && rc < 128 && rc != redlines && name != ""
	if (cut) {
		cutname = name
		flush("cut off by exit status " rc ": " last)
	} else
		flush("")
	n++
	if (cut)
		print "ok " n " exit status " rc " is the cut-off of " cutname ", reported above; the tests after it did not run"
	else if (rc < 128 && (rc == 0) == (redlines == 0) && n > 1)
		print "ok " n " exit status " rc " agrees with " redlines + 0 " failed checks"
	else
		print "not ok " n " exit status " rc ", " redlines + 0 " failed checks, " n - 1 " tests"
	print "1.." n
}' "$log"
[ "$rc" -ge 128 ] && exit "$rc"
exit 0
