#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/guest/bin/khugepaged-tap.sh on recorded khugepaged output (no
# guest): a clean run, a failed check, a run cut off by an early exit in
# one test (the form a "Failed to allocate huge page" exit takes, seen on
# stock in CI), and a crash. Each case checks the TAP points the runner
# judges.
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
tap=$repo/tests/guest/bin/khugepaged-tap.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n $*"; }
nok() { n=$((n + 1)); fail=1; echo "not ok $n $*"; }
G=$'\033[32m' R=$'\033[31m' Z=$'\033[0m'
head() {
	printf 'Save THP and khugepaged settings... %sOK%s\n' "$G" "$Z"
	printf '\nRun test: collapse_full (khugepaged:anon)\n'
	printf 'Collapse multiple fully populated PTE table.... %sOK%s\n' "$G" "$Z"
	printf '\nRun test: collapse_compound_extreme (madvise:anon)\n'
}
# run CASE RC: the wrapper's TAP for log $tmp/CASE.log and exit status RC
run() {
	KHUGEPAGED_LOG=$tmp/$1.log KHUGEPAGED_RC=$2 ${SH:-sh} "$tap" > "$tmp/$1.tap"
	echo $? > "$tmp/$1.rc"
}
has() { grep -qxF -- "$2" "$tmp/$1.tap"; }
echo "TAP version 13"
echo "1..4"

{ head; printf 'Construct PTE page table... %sOK%s\n' "$G" "$Z"
  printf 'Restore THP and khugepaged settings... %sOK%s\n' "$G" "$Z"; } > "$tmp/clean.log"
run clean 0
if has clean "ok 1 collapse_full (khugepaged:anon)" &&
   has clean "ok 2 collapse_compound_extreme (madvise:anon)" &&
   has clean "ok 3 exit status 0 agrees with 0 failed checks" &&
   [ "$(grep -c '^not ok' "$tmp/clean.tap")" = 0 ]; then
	ok "clean run: every test ok, exit status agrees"
else
	sed 's/^/# /' "$tmp/clean.tap"; nok "clean run: every test ok, exit status agrees"
fi

{ head; printf '%sFail%s\n' "$R" "$Z"
  printf 'Restore THP and khugepaged settings... %sOK%s\n' "$G" "$Z"; } > "$tmp/red.log"
run red 1
if has red "not ok 2 collapse_compound_extreme (madvise:anon)" &&
   has red "ok 3 exit status 1 agrees with 1 failed checks"; then
	ok "a failed check fails its test"
else
	sed 's/^/# /' "$tmp/red.log" "$tmp/red.tap"; nok "a failed check fails its test"
fi

{ head; printf 'Construct PTE page table   1/512...Construct PTE page table   2/512...Failed to allocate huge page\n'
  printf 'Restore THP and khugepaged settings... %sOK%s\n' "$G" "$Z"; } > "$tmp/cut.log"
run cut 1
if has cut "ok 1 collapse_full (khugepaged:anon)" &&
   has cut "not ok 2 collapse_compound_extreme (madvise:anon) # cut off by exit status 1: Failed to allocate huge page" &&
   grep -q '^ok 3 exit status 1 is the cut-off of collapse_compound_extreme (madvise:anon)' "$tmp/cut.tap"; then
	ok "an early exit fails the test that was running, with its last line"
else
	sed 's/^/# /' "$tmp/cut.tap"; nok "an early exit fails the test that was running, with its last line"
fi

head > "$tmp/crash.log"
run crash 139
if [ "$(cat "$tmp/crash.rc")" = 139 ] &&
   has crash "not ok 2 collapse_compound_extreme (madvise:anon) # killed by signal 11" &&
   has crash "not ok 3 exit status 139, 0 failed checks, 2 tests"; then
	ok "a crash fails the run and is the wrapper's exit status"
else
	sed 's/^/# /' "$tmp/crash.tap"; nok "a crash fails the run and is the wrapper's exit status"
fi
exit $fail
