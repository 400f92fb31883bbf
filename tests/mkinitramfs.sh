#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh OUT.cpio TESTBIN SELFTESTBIN
#
# Build the guest's initramfs (uncompressed newc cpio: faster to unpack
# under TCG than a compressed one): busybox-static, ndctl, daxctl, cxl,
# util-linux mkswap/swapon/swapoff, stress-ng, Redis (with their shared
# libraries), the pmswap test programs and the upstream mm selftests.
set -euo pipefail

out=$1 testbin=$2 selftestbin=$3 toolbin=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
root=$out.d
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,lib,lib64,etc,proc,sys,dev,tmp,run,pmswap/bin,pmswap/selftests,pmswap/suites}

cp /bin/busybox "$root/bin/busybox"
for a in $("$root/bin/busybox" --list); do
	[ -e "$root/bin/$a" ] || ln -s busybox "$root/bin/$a"
done

# Real programs with their libraries (resolved with ldd).
copy_bin() {
	local src=$1 dst=$2 lib
	cp -L "$src" "$root/$dst"
	for lib in $(ldd "$src" 2>/dev/null | grep -o '/[^ ]*' | sort -u); do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}
for p in ndctl daxctl cxl stress-ng; do
	copy_bin "$(command -v $p)" usr/bin/$p
done
# Redis for the bench's press-redis (Debian's redis-tools): the server is
# the redis-check-rdb binary run under the name redis-server.
if command -v redis-benchmark > /dev/null; then
	copy_bin "$(command -v redis-benchmark)" usr/bin/redis-benchmark
	copy_bin "$(command -v redis-cli)" usr/bin/redis-cli
	copy_bin "$(command -v redis-check-rdb)" usr/bin/redis-server
fi
for p in mkswap swapon swapoff setpriv; do
	rm -f "$root/sbin/$p" "$root/bin/$p"
	copy_bin "$(PATH=/usr/sbin:/sbin:$PATH command -v $p)" sbin/$p
done

if [ -n "$toolbin" ] && [ -x "$toolbin/pmswap" ]; then
	copy_bin "$toolbin/pmswap" usr/bin/pmswap
fi

cp "$here/guest/init" "$root/init"
cp "$here/guest/setup-swap.sh" "$here/guest/run-suite.sh" "$here/console-patterns.txt" "$root/pmswap/"
cp "$here"/guest/suites/* "$root/pmswap/suites/"
[ -d "$here/guest/bin" ] && cp "$here"/guest/bin/* "$root/pmswap/bin/"
cp "$testbin"/* "$root/pmswap/bin/" 2>/dev/null || true
cp "$selftestbin"/* "$root/pmswap/selftests/" 2>/dev/null || true
printf 'root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n' > "$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$root/etc/group"

(cd "$root" && find . -print0 | sort -z | cpio --null -o -H newc --quiet -R 0:0) > "$out.tmp"
mv "$out.tmp" "$out"
rm -rf "$root"
echo "initramfs: $out ($(du -h "$out" | cut -f1))"
