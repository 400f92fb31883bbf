#!/bin/sh
# run-suite.sh NAME: run every line of /pmswap/suites/NAME as one test
# program ("name timeout-seconds command args..."), framed by markers the
# host runner parses. Lines starting with '#' are comments.
suite=$1
file=/pmswap/suites/$suite
if [ ! -f "$file" ]; then
	echo "PMSWAP-ERROR no suite $suite"
	exit 1
fi
cd /tmp
while read -r name tmo cmd; do
	case "$name" in ''|'#'*) continue ;; esac
	echo "PMSWAP-BEGIN $name"
	start=$(cut -d' ' -f1 /proc/uptime)
	# shellcheck disable=SC2086
	timeout "$tmo" sh -c "$cmd" < /dev/null
	rc=$?
	end=$(cut -d' ' -f1 /proc/uptime)
	echo "PMSWAP-END $name rc=$rc start=$start end=$end"
done < "$file"
