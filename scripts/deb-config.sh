#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deb-config.sh BUILD REPO BASE OBJ
#
# Configure the patched tree in OBJ for a distribution kernel: the
# configuration BASE (a .config, plain or .xz; Debian's is
# /usr/src/linux-config-6.12/config.amd64_none_amd64.xz) with
# configs/deb.config merged over it, then olddefconfig. Fails, naming the
# option, when the result lost anything the fragment asks for (an option
# that Kconfig turned off because a dependency is missing or modular), so
# that a package never ships without pmswap. Configuration only: no build.
set -euo pipefail
build=$(realpath -m "$1") repo=$(realpath "$2") base=$3 obj=$(realpath -m "$4")
pristine=$build/linux src=$build/src-pmswap
frag=$repo/configs/deb.config

[ -f "$base" ] || { echo "deb-config: no base configuration $base (install linux-config-6.12, or give DEB_CONFIG=)" >&2; exit 1; }
[ -f "$pristine/.pmswap-extracted" ] || { echo "deb-config: no kernel source in $pristine (make source)" >&2; exit 1; }
"$repo/scripts/prepare-tree.sh" "$pristine" "$src" "$repo" >/dev/null
mkdir -p "$obj"
case "$base" in
*.xz) xzcat "$base" > "$obj/.config" ;;
*) cp "$base" "$obj/.config" ;;
esac
# the fragment's lines replace the base's for the same options
keys=$(grep -ho '^CONFIG_[A-Za-z0-9_]*\|^# CONFIG_[A-Za-z0-9_]* is not set' "$frag" |
       sed 's/^# //; s/ is not set//' | sort -u)
for k in $keys; do
	sed -i "/^$k=/d; /^# $k is not set\$/d" "$obj/.config"
done
cat "$frag" >> "$obj/.config"
make -s -C "$src" O="$obj" olddefconfig >/dev/null
bad=0
while read -r l; do
	case "$l" in
	"# CONFIG_"*" is not set")
		k=${l#\# }; k=${k% is not set}
		if grep -q "^$k=" "$obj/.config"; then
			echo "deb-config: $k should be off, got: $(grep "^$k=" "$obj/.config")" >&2
			bad=1
		fi ;;
	CONFIG_*)
		if ! grep -qxF "$l" "$obj/.config"; then
			k=${l%%=*}
			echo "deb-config: configs/deb.config asks for $l, got: $(grep "^# $k is not set\|^$k=" "$obj/.config" || echo nothing)" >&2
			bad=1
		fi ;;
	esac
done < <(grep '^CONFIG_\|^# CONFIG_.* is not set' "$frag")
[ $bad = 0 ] || exit 1
echo "deb-config: $(basename "$base") + configs/deb.config: every pmswap option kept ($(grep -c '^CONFIG_PMSWAP[A-Z_]*=y' "$obj/.config") on) in $obj/.config"
