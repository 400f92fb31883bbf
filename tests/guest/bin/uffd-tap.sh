#!/bin/sh
# Run the upstream uffd-unit-tests and turn its "Testing X... done|skipped|
# failed" lines into TAP, one test point each. Its closing "pass=N,
# skip=N, fail=N (total=N)" line is cross-checked against what was parsed.
#
# uffd-unit-tests also stops in the middle of a test: err() prints
# "ERROR: ..." after "Testing X... " and exits 1 (the events tests on
# anonymous memory do that now and then on stock 6.12 as well, with
# UFFDIO_COPY failing with ENOENT: tests/results/upstream-flake). The test
# that was running is then reported not ok, with the error after " # ", so
# the runner judges that test (a known stock failure or not). The tests it
# did not reach are not lost: each test name from that one on ("-l" gives
# the order) runs again in its own process ("-f NAME"), and its results
# are reported as they come, the test that stopped as "X (rerun)". A
# crash (killed by a signal) fails the run, as before.
#
# UFFD_UNIT_TESTS names the program (host tests use a stand-in).
prog=${UFFD_UNIT_TESTS:-/pmswap/selftests/uffd-unit-tests}
tmp=${TMPDIR:-/tmp}/uffd-tap.$$
mkdir -p "$tmp" || exit 1
trap 'rm -rf "$tmp"' EXIT

# parse LOG: one line per test: "ok|skip|fail|cut<TAB>NAME<TAB>DETAIL",
# then "summary<TAB>TOTAL" if the closing line was printed
parse() {
	awk '
	/^Testing .*\.\.\. / {
		name = $0; sub(/^Testing /, "", name); sub(/\.\.\. .*/, "", name)
		st = $0; sub(/^Testing .*\.\.\. /, "", st)
		if (st ~ /^done/) print "ok\t" name "\t"
		else if (st ~ /^skipped/) {
			sub(/^skipped \[reason: /, "", st); sub(/\]$/, "", st)
			print "skip\t" name "\t" st
		} else if (st ~ /^failed/) print "fail\t" name "\t" st
		else { cutname = name; cutwhy = st; next }
		cutname = ""
		next
	}
	/^Testing / { name = $0; sub(/^Testing /, "", name); sub(/\.\.\..*/, "", name); cutname = name; cutwhy = ""; next }
	/^Userfaults unit tests: pass=/ {
		split($0, a, /[=,() ]+/)
		for (i = 1; i in a; i++) { if (a[i] == "total") total = a[i + 1] }
		summary = 1
		next
	}
	cutname != "" && cutwhy == "" && $0 != "" { cutwhy = $0 }
	END {
		if (cutname != "" && !summary) print "cut\t" cutname "\t" cutwhy
		if (summary) print "summary\t" total
	}' "$1"
}

# emit POINTS-FILE SUFFIX: TAP points for the lines of a parse; names
# already reported get SUFFIX, and are left out if SUFFIX is empty
n=0
: > "$tmp/seen"
emit() {
	while IFS='	' read -r kind name detail; do
		[ "$kind" = summary ] && continue
		shown=$name
		if grep -qxF -- "$name" "$tmp/seen"; then
			[ -z "$2" ] && continue
			shown="$name $2"
		else
			echo "$name" >> "$tmp/seen"
		fi
		n=$((n + 1))
		case $kind in
		ok) echo "ok $n $shown" ;;
		skip) echo "ok $n $shown # SKIP $detail" ;;
		fail) echo "not ok $n $shown ($detail)" ;;
		cut) echo "not ok $n $shown # cut off by exit status $3: ${detail:-no message}" ;;
		esac
	done < "$1"
}

"$prog" "$@" > "$tmp/all.log" 2>&1
rc=$?
sed 's/^/# /' "$tmp/all.log"
echo "TAP version 13"
parse "$tmp/all.log" > "$tmp/all.pts"
emit "$tmp/all.pts" "" "$rc"
total=$(awk -F '\t' '$1 == "summary" { print $2 }' "$tmp/all.pts")
counted=$(grep -c -v '^summary' "$tmp/all.pts")
cut=$(awk -F '\t' '$1 == "cut" { print $2 }' "$tmp/all.pts")

if [ -n "$cut" ] && [ "$rc" -gt 0 ] && [ "$rc" -lt 128 ]; then
	# the names from the one that stopped on, in the program's order
	"$prog" -l > "$tmp/names" 2>/dev/null
	first=${cut% on *}
	rest=$(awk -v f="$first" '$0 == f { go = 1 } go' "$tmp/names")
	if [ -z "$rest" ]; then
		n=$((n + 1))
		echo "not ok $n cannot list the tests after $first (uffd-unit-tests -l)"
	fi
	for t in $rest; do
		"$prog" -f "$t" > "$tmp/one.log" 2>&1
		r=$?
		sed "s/^/# [-f $t] /" "$tmp/one.log"
		# only the tests named exactly t: -f matches substrings
		parse "$tmp/one.log" | awk -F '\t' -v t="$t" '
			$1 != "summary" { nm = $2; sub(/ on [^ ]*$/, "", nm); if (nm == t) print }' > "$tmp/one.pts"
		emit "$tmp/one.pts" "(rerun)" "$r"
		if [ "$r" -ge 128 ]; then
			n=$((n + 1))
			echo "not ok $n uffd-unit-tests -f $t killed by signal $((r - 128))"
			rc=$r
		fi
	done
	n=$((n + 1))
	echo "ok $n exit status $rc is the stop in $cut, reported above; the tests from $first on ran again one name at a time"
elif [ -n "$total" ] && [ "$total" = "$counted" ] && [ "$rc" = 0 ]; then
	n=$((n + 1))
	echo "ok $n parsed results match the summary ($total)"
else
	n=$((n + 1))
	echo "not ok $n parsed $counted results, summary total $total, exit $rc"
fi
echo "1..$n"
# a crash of the tests (killed by a signal) is the exit status of this
# program too: the runner fails it even after known stock failures
[ "$rc" -ge 128 ] && exit "$rc"
exit 0
