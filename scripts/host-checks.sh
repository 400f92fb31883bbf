#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# host-checks.sh KERNEL-TREE REPO LOGDIR
#
# The host side of `make test`: checkpatch on the series and the new kernel
# files, and the host-side unit tests (tests/host/*.sh and *.py, which
# print TAP). Results are judged like a guest suite, against the list of
# programs written to LOGDIR/host.suite first, and summarised in
# LOGDIR/host.out.
set -uo pipefail
tree=$1 repo=$2 logs=$3
# host tests that configure kernels do it in the same build directory
export PMSWAP_BUILD=${PMSWAP_BUILD:-$(cd "$tree/.." && pwd)}
mkdir -p "$logs"
out=$logs/host.out
tests=()
for t in "$repo"/tests/host/*.sh "$repo"/tests/host/*.py; do
	[ -f "$t" ] && tests+=("$t")
done
{
	echo "checkpatch"
	for t in "${tests[@]}"; do
		name=$(basename "$t")
		echo "${name%.*}"
	done
} > "$logs/host.suite"
{
	echo "PMSWAP-SUITE-BEGIN host"
	echo "PMSWAP-BEGIN checkpatch"
	"$repo/scripts/checkpatch-series.sh" "$tree" "$repo"
	echo "PMSWAP-END checkpatch rc=$?"
	for t in "${tests[@]}"; do
		name=$(basename "$t")
		echo "PMSWAP-BEGIN ${name%.*}"
		case "$t" in
		*.py) python3 "$t" ;;
		*) "$t" ;;
		esac
		echo "PMSWAP-END ${name%.*} rc=$?"
	done
	echo "PMSWAP-SUITE-END host"
} > "$out" 2>&1
python3 "$repo/tests/check-results.py" --no-console --out "$out" --suite host \
	--suite-file "$logs/host.suite"
