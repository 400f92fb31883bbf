#!/bin/sh
# run-suite.sh NAME: run every line of /pmswap/suites/NAME as one test
# program ("name timeout-seconds command args..."), framed by markers the
# host runner (tests/check-results.py) parses. Lines starting with '#' are
# comments. PMSWAP-PROGRAMS lists the programs of the suite file the guest
# has, so the host can tell a stale initramfs; each PMSWAP-END carries the
# exit status (128+N: killed by signal N; a timeout is 143, busybox's
# timeout sends SIGTERM), the uptime at start and end, and the kernel's
# taint after the program. A timeout with a '$' in it is expanded by the
# shell first. PMSWAP_SUITES: another directory of suites (the
# host-side test runs this script).
suite=$1
file=${PMSWAP_SUITES:-/pmswap/suites}/$suite
if [ ! -f "$file" ]; then
	echo "PMSWAP-ERROR no suite $suite"
	exit 1
fi
names=
while read -r name _; do
	case "$name" in ''|'#'*) continue ;; esac
	names="$names $name"
done < "$file"
echo "PMSWAP-PROGRAMS$names"
cd /tmp || exit 1
while read -r name tmo cmd; do
	case "$name" in ''|'#'*) continue ;; esac
	# a timeout may be an expression of the environment, such as the
	# soak's $((${PMSWAP_SOAK:-120}+600)): the soak's length is a boot
	# parameter (make soak DURATION=...)
	case "$tmo" in *'$'*) tmo=$(eval "echo \"$tmo\"") ;; esac
	# race windows (CONFIG_PMSWAP_RACE_WINDOWS) a killed program left armed
	for f in /sys/kernel/debug/pmswap/race/*_left /sys/kernel/debug/pmswap/race/*_delay_ms; do
		[ -f "$f" ] && echo 0 > "$f"
	done
	echo "PMSWAP-BEGIN $name"
	start=$(cut -d' ' -f1 /proc/uptime)
	# shellcheck disable=SC2086
	timeout "$tmo" sh -c "$cmd" < /dev/null
	rc=$?
	end=$(cut -d' ' -f1 /proc/uptime)
	taint=$(cat /proc/sys/kernel/tainted 2>/dev/null)
	echo "PMSWAP-END $name rc=$rc start=$start end=$end taint=$taint"
done < "$file"
