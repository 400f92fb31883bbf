#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# build-patched.sh KSFT OUT HDRS: rebuild the upstream selftests that need
# a test-only fix (tests/upstream/patches/*.patch) from patched copies.
# Each patch changes one program's source, tools/testing/selftests/mm/
# NAME.c. The copy is patched in OUT/.patched/mm/ (a dot directory, which
# the initramfs leaves out) and linked the way the selftests' Makefile
# links NAME (with vm_util.c and thp_settings.c), over OUT/NAME. The
# kernel source stays as Debian ships it.
set -eu
ksft=$1 out=$2 hdrs=$3
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$ksft/../../.." && pwd)
for p in "$here"/patches/*.patch; do
	[ -e "$p" ] || continue
	src=$(sed -n 's#^+++ b/tools/testing/selftests/mm/\([^/	]*\.c\).*#\1#p' "$p" | sort -u)
	if [ "$(echo "$src" | wc -w)" -ne 1 ]; then
		echo "build-patched: $p must change exactly one mm/*.c file" >&2
		exit 1
	fi
	name=${src%.c}
	mkdir -p "$out/.patched/mm"
	cp "$ksft/mm/$src" "$out/.patched/mm/$src"
	patch -s -p5 -d "$out/.patched/mm" < "$p"
	echo "selftests: $name from $(basename "$p")"
	# "../kselftest.h" and "vm_util.h" resolve through -I $ksft/mm
	gcc -Wall -O2 -I "$top" -I "$ksft/mm" -static -include "$ksft/kselftest.h" \
		-isystem "$hdrs/usr/include" -isystem "$top/tools/include/uapi" \
		-U_FORTIFY_SOURCE -no-pie -D_GNU_SOURCE= \
		"$out/.patched/mm/$src" "$ksft/mm/vm_util.c" "$ksft/mm/thp_settings.c" \
		-lrt -lpthread -lm -o "$out/$name"
done
