#!/bin/sh
# Run the upstream uffd-unit-tests and turn its "Testing X... done|skipped|
# failed" lines into TAP, one test point each. Its closing "pass=N,
# skip=N, fail=N (total=N)" line is cross-checked against what was parsed.
/pmswap/selftests/uffd-unit-tests "$@" > /tmp/uffd.log 2>&1
rc=$?
sed 's/^/# /' /tmp/uffd.log
echo "TAP version 13"
awk -v rc="$rc" '
function emit(line,   name, st) {
	name = line; sub(/^Testing /, "", name); sub(/\.\.\. .*/, "", name)
	st = line; sub(/^.*\.\.\. /, "", st)
	n++
	if (st ~ /^done/) { print "ok " n " " name; pass++ }
	else if (st ~ /^skipped/) { sub(/^skipped \[reason: /, "", st); sub(/\]$/, "", st); print "ok " n " " name " # SKIP " st; skip++ }
	else { print "not ok " n " " name " (" st ")"; fail++ }
}
/^Testing .*\.\.\. (done|skipped|failed)/ { emit($0); next }
/^Userfaults unit tests: pass=/ {
	split($0, a, /[=,() ]+/)
	for (i = 1; i in a; i++) { if (a[i] == "total") total = a[i + 1] }
	summary = 1
}
END {
	n++
	if (summary && total == pass + skip + fail && rc == 0)
		print "ok " n " parsed results match the summary (" total ")"
	else
		print "not ok " n " parsed " pass + skip + fail " results, summary total " total ", exit " rc
	print "1.." n
}' /tmp/uffd.log
# a crash of the tests (killed by a signal) is the exit status of this
# program too: the runner fails it even after known stock failures
[ "$rc" -ge 128 ] && exit "$rc"
exit 0
