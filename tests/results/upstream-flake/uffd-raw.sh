#!/bin/sh
/pmswap/selftests/uffd-unit-tests > /tmp/u.log 2>&1
rc=$?
grep -v "done$" /tmp/u.log | sed 's/^/# /'
echo "1..1"
[ $rc = 0 ] && echo "ok 1 uffd" || echo "not ok 1 uffd rc=$rc"
