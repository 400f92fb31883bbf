#!/bin/sh
# tap-wrap.sh NAME COMMAND [ARGS...]: one TAP test point for an upstream
# selftest that prints no TAP (ksm_tests): its output as comments, then
# ok (exit 0), SKIP (exit 4, KSFT_SKIP) or not ok. A crash (exit >= 128)
# is passed on, so that the runner fails it even after known failures.
name=$1
shift
"$@" > /tmp/tap-wrap.log 2>&1
rc=$?
echo "TAP version 13"
sed 's/^/# /' /tmp/tap-wrap.log
echo "1..1"
case $rc in
0) echo "ok 1 $name" ;;
4) echo "ok 1 $name # SKIP exit 4 (KSFT_SKIP)" ;;
*) echo "# exit $rc"; echo "not ok 1 $name" ;;
esac
[ "$rc" -ge 128 ] && exit "$rc"
exit 0
