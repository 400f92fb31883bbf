#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/guest/bin/uffd-tap.sh against a stand-in for uffd-unit-tests (no
# guest): a clean run, a reported failure, a run stopped by err() in the
# middle of a test (the form the events tests' ENOENT takes, on stock as
# well), whose later tests must run again one name at a time, and a crash.
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
tap=$repo/tests/guest/bin/uffd-tap.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n $*"; }
nok() { n=$((n + 1)); fail=1; echo "not ok $n $*"; }

# the stand-in: tests "zeropage", "events", "events-wp" on anon and shmem;
# FAKE says what goes wrong: "" nothing, fail (zeropage on shmem fails),
# stop (err() in events on anon, in the full run only), crash (SIGSEGV)
cat > "$tmp/fake" <<'FAKE'
#!/bin/bash
names="zeropage events events-wp"
if [ "${1:-}" = -l ]; then printf '%s\n' $names; exit 0; fi
filter=
[ "${1:-}" = -f ] && filter=$2
pass=0 fl=0 total=0
for t in $names; do
	case $t in *"$filter"*) ;; *) continue ;; esac
	for m in anon shmem; do
		total=$((total + 1))
		printf 'Testing %s on %s... ' "$t" "$m"
		if [ "$FAKE" = stop ] && [ -z "$filter" ] && [ "$t $m" = "events anon" ]; then
			echo "ERROR: UFFDIO_COPY error: -2 (errno=2, @uffd-common.c:617)"; exit 1
		fi
		if [ "$FAKE" = crash ] && [ "$t $m" = "events anon" ]; then kill -SEGV $$; fi
		if [ "$FAKE" = fail ] && [ "$t $m" = "zeropage shmem" ]; then
			echo "failed [reason: wrong data]"; fl=$((fl + 1)); continue
		fi
		echo done; pass=$((pass + 1))
	done
done
echo "Userfaults unit tests: pass=$pass, skip=0, fail=$fl (total=$total)"
[ $fl = 0 ]
FAKE
chmod +x "$tmp/fake"
run() { FAKE=$1 UFFD_UNIT_TESTS=$tmp/fake ${SH:-sh} "$tap" > "$tmp/$1.tap" 2>&1; echo $? > "$tmp/$1.rc"; }
has() { grep -qxF -- "$2" "$tmp/$1.tap"; }
points() { grep -cE '^(not )?ok ' "$tmp/$1.tap"; }
echo "TAP version 13"
echo "1..4"

run ""
mv "$tmp/.tap" "$tmp/clean.tap"; mv "$tmp/.rc" "$tmp/clean.rc"
if has clean "ok 1 zeropage on anon" && has clean "ok 6 events-wp on shmem" &&
   has clean "ok 7 parsed results match the summary (6)" && has clean "1..7" &&
   [ "$(cat "$tmp/clean.rc")" = 0 ]; then
	ok "clean run: six tests and the summary check"
else
	sed 's/^/# /' "$tmp/clean.tap"; nok "clean run: six tests and the summary check"
fi

run fail
if has fail "not ok 2 zeropage on shmem (failed [reason: wrong data])" &&
   grep -q '^not ok 7 parsed 6 results, summary total 6, exit 1$' "$tmp/fail.tap"; then
	ok "a failed test fails, and so does the exit status"
else
	sed 's/^/# /' "$tmp/fail.tap"; nok "a failed test fails, and so does the exit status"
fi

run stop
if has stop "ok 2 zeropage on shmem" &&
   has stop "not ok 3 events on anon # cut off by exit status 1: ERROR: UFFDIO_COPY error: -2 (errno=2, @uffd-common.c:617)" &&
   has stop "ok 4 events on anon (rerun)" && has stop "ok 5 events on shmem" &&
   has stop "ok 6 events-wp on anon" && has stop "ok 7 events-wp on shmem" &&
   grep -q '^ok 8 exit status 1 is the stop in events on anon' "$tmp/stop.tap" &&
   has stop "1..8" && [ "$(cat "$tmp/stop.rc")" = 0 ]; then
	ok "a stop fails its test; the tests after it run again, each once"
else
	sed 's/^/# /' "$tmp/stop.tap"; nok "a stop fails its test; the tests after it run again, each once"
fi

run crash
if [ "$(cat "$tmp/crash.rc")" = 139 ] && grep -q '^not ok .* exit 139$' "$tmp/crash.tap"; then
	ok "a crash fails the run and is the wrapper's exit status"
else
	sed 's/^/# /' "$tmp/crash.tap"; nok "a crash fails the run and is the wrapper's exit status"
fi
exit $fail
