#!/bin/sh
# run uffd-unit-tests -f events N times, one TAP point per run; after a
# failed run, the kernel's messages since the run began
n=${1:-60}
echo 1 > /proc/sys/kernel/print-fatal-signals
echo "1..$n"
i=1; bad=0
while [ $i -le $n ]; do
	dmesg -c > /dev/null
	/pmswap/selftests/uffd-unit-tests -f events > /tmp/ev.log 2>&1
	rc=$?
	if [ $rc = 0 ]; then echo "ok $i events run"; else bad=$((bad+1)); grep -v "done$" /tmp/ev.log | sed 's/^/# /'; dmesg | tail -40 | sed 's/^/# dmesg: /'; echo "not ok $i events run rc=$rc"; fi
	i=$((i+1))
done
echo "# events runs: $n, failed: $bad"
