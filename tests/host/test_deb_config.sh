#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/deb-config.sh, the configuration `make deb-pkg` builds: Debian's
# own 6.12 amd64 configuration (linux-config-6.12) with configs/deb.config
# merged keeps every pmswap option; a base on which Kconfig must drop one
# (no FS_DAX: no pmem backend, no map in place) fails and names it; a
# missing base fails. Configuration only, in BUILD/obj-deb-check.
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=${PMSWAP_BUILD:-$repo/build}
obj=$build/obj-deb-check
base=/usr/src/linux-config-6.12/config.amd64_none_amd64.xz
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
t() {	# t RESULT DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; fail=1; fi
}
echo "TAP version 13"
echo "1..6"
[ -f "$base" ]; t $? "Debian's configuration is installed ($base, package linux-config-6.12)"

"$repo/scripts/deb-config.sh" "$build" "$repo" "$base" "$obj" > "$tmp/ok.out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/ok.out"
[ $rc = 0 ] && grep -q "every pmswap option kept (6 on)" "$tmp/ok.out"
t $? "Debian's configuration with configs/deb.config keeps every pmswap option (exit $rc)"
# the five asked for, and PMSWAP_INPLACE_PTE, which follows PMSWAP_INPLACE
for k in PMSWAP PMSWAP_HUGE_SWAP PMSWAP_PMEM PMSWAP_INPLACE PMSWAP_INPLACE_PTE PMSWAP_SWAP_CACHE_MI; do
	grep -qx "CONFIG_$k=y" "$obj/.config" || echo "# missing: CONFIG_$k=y"
done > "$tmp/missing"
[ ! -s "$tmp/missing" ] && ! grep -q '^CONFIG_PMSWAP_KUNIT_TEST=' "$obj/.config" &&
	grep -qx 'CONFIG_LOCALVERSION="-pmswap"' "$obj/.config" && grep -qx 'CONFIG_FS_DAX=y' "$obj/.config"
t $? "the merged .config: six pmswap options on (INPLACE_PTE with INPLACE), no KUnit test, LOCALVERSION -pmswap, FS_DAX built in"
cat "$tmp/missing"

[ -f "$base" ] && xzcat "$base" | sed 's/^CONFIG_FS_DAX=y$/# CONFIG_FS_DAX is not set/' > "$tmp/nodax.config"
"$repo/scripts/deb-config.sh" "$build" "$repo" "$tmp/nodax.config" "$obj" > "$tmp/nodax.out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/nodax.out"
[ $rc = 1 ]; t $? "a base without FS_DAX fails (exit $rc, want 1)"
grep -q "asks for CONFIG_PMSWAP_PMEM=y, got: nothing" "$tmp/nodax.out" &&
	grep -q "asks for CONFIG_PMSWAP_INPLACE=y" "$tmp/nodax.out"
t $? "the failure names the options Kconfig dropped (PMSWAP_PMEM, PMSWAP_INPLACE)"

"$repo/scripts/deb-config.sh" "$build" "$repo" "$tmp/none.config" "$obj" > "$tmp/none.out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/none.out"
[ $rc = 1 ] && grep -q "no base configuration" "$tmp/none.out"
t $? "a missing base configuration fails with a message (exit $rc)"
exit $fail
