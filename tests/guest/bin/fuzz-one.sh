#!/bin/sh
# fuzz-one.sh: one fuzzer run for "make fuzz". PMSWAP_FUZZ (from
# pmswap.fuzz= on the kernel command line) is SEED:DURATION[:ARG...], with
# ':' for the spaces between the extra fuzz arguments.
IFS=: read -r seed duration rest <<EOF2
$PMSWAP_FUZZ
EOF2
[ -n "$seed" ] && [ -n "$duration" ] || {
	echo "Bail out! pmswap.fuzz=SEED:DURATION[:ARGS] is missing or incomplete"
	exit 1
}
args=$(echo "$rest" | tr ':' ' ')
echo "# fuzz --seed $seed --duration $duration $args"
# shellcheck disable=SC2086
exec fuzz --seed "$seed" --duration "$duration" $args
