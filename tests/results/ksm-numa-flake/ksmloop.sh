#!/bin/sh
# repeat the upstream KSM run order N times; count numa_merge failures
echo "TAP version 13"
echo "1..1"
f=0; n=0
for i in $(seq 1 40); do
  /pmswap/selftests/ksm_tests -Z -p 10 -z 1 >/dev/null 2>&1
  for m in 1 0; do
    n=$((n+1))
    if ! /pmswap/selftests/ksm_tests -N -m $m > /tmp/k.log 2>&1; then
      f=$((f+1)); echo "# iter $i m=$m failed"; sed 's/^/#   /' /tmp/k.log
      for x in /sys/kernel/mm/ksm/*; do echo "#   $x $(cat $x)"; done
    fi
  done
done
echo "# numa_merge failures: $f of $n"
echo "ok 1 ksmloop"
