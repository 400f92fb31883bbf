#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# install-deps.sh [PACKAGE...]: install the Debian packages pmswap needs,
# and any named, only those that are missing.
set -euo pipefail

pkgs=(
	linux-source-6.12
	build-essential flex bison bc libelf-dev libssl-dev cpio xz-utils
	rsync patch perl python3 ccache
	qemu-system-x86 ndctl daxctl libndctl-dev libdaxctl-dev uuid-dev libjson-c-dev
	stress-ng busybox-static util-linux mount
	libnuma-dev libcap-dev gnuplot-nox redis-tools
	linux-config-6.12 systemd
	"$@"
)

missing=()
for p in "${pkgs[@]}"; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$st" = "install ok installed" ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing Debian packages: ${missing[*]}" >&2
	echo "install-deps: run 'make deps' as root, or install them yourself" >&2
	exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
