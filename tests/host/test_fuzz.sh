#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The fuzzer's own checks, on the host (no swap, no root helper): a short
# run passes with data as modelled; a run told to corrupt one page behind
# the model's back (--inject) must fail and print the seed and a replay
# line; the same seed gives the same operation counts for one thread run
# alone (--only 0.0 --ops N), so that a seed replays.
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
ksft=${KSFT:-$repo/build/linux/tools/testing/selftests}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n $*"; }
nok() { n=$((n + 1)); fail=1; echo "not ok $n $*"; }
echo "TAP version 13"
echo "1..4"
if ! ${CC:-gcc} -O2 -g -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare \
	-I"$repo/tests/lib" -I"$ksft" -static -pthread -o "$tmp/fuzz" \
	"$repo/tests/fuzz/fuzz.c" "$repo"/tests/lib/*.c > "$tmp/cc.log" 2>&1; then
	sed 's/^/# /' "$tmp/cc.log"
	nok "fuzz.c builds"
	exit 1
fi
ok "fuzz.c builds"
timeout 120 "$tmp/fuzz" --seed 11 --duration 3 --no-helper > "$tmp/run.log" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q 'data as modelled' "$tmp/run.log" && ! grep -q '^not ok' "$tmp/run.log"; then
	ok "3 s run, seed 11: data as modelled"
else
	sed 's/^/# /' "$tmp/run.log" | tail -20
	nok "3 s run, seed 11: exit $rc"
fi
timeout 120 "$tmp/fuzz" --seed 5 --duration 3 --no-helper --inject 200 > "$tmp/inj.log" 2>&1
rc=$?
if [ $rc != 0 ] && grep -q 'FUZZ MISMATCH seed=5' "$tmp/inj.log" &&
   grep -q '^# replay: fuzz --seed 5 ' "$tmp/inj.log"; then
	ok "a page corrupted after op 200 fails the run, with seed and replay line"
else
	sed 's/^/# /' "$tmp/inj.log" | tail -20
	nok "--inject 200 was not caught (exit $rc)"
fi
for i in 1 2; do
	timeout 120 "$tmp/fuzz" --seed 12 --only 0.0 --ops 3000 --no-helper > "$tmp/only$i.log" 2>&1
	grep '^# fuzz: seed=12 ops:' "$tmp/only$i.log" > "$tmp/ops$i"
done
if [ -s "$tmp/ops1" ] && cmp -s "$tmp/ops1" "$tmp/ops2"; then
	ok "seed 12, thread 0.0, 3000 ops: the same operations twice"
else
	sed 's/^/# /' "$tmp/ops1" "$tmp/ops2"
	nok "seed 12 replay differs"
fi
exit $fail
