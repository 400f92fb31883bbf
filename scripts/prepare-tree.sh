#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# prepare-tree.sh PRISTINE DEST REPO
#
# Make DEST a copy of the pristine kernel tree PRISTINE with REPO's
# patches/series applied and REPO's new files (mm/, drivers/, include/)
# overlaid.
# The result is assembled in a hard-linked staging tree and then synced
# into DEST by content, so files whose content did not change keep their
# timestamps and an incremental kernel build recompiles only what the
# change touched.
set -euo pipefail

pristine=$1 dest=$2 repo=$3
stage=$dest.stage
ver=$(make -s -C "$pristine" kernelversion 2>/dev/null || echo unknown)

rm -rf "$stage"
# "$pristine/.": a pristine tree reached through a symbolic link (a
# worktree's build/linux pointing at another checkout's) is hard-linked
# file by file; "cp -al LINK" would copy the link itself, and the patches
# below would then be applied to the pristine tree through it.
cp -al "$pristine/." "$stage"

series=$repo/patches/series
n=0
if [ -f "$series" ]; then
	while read -r p _; do
		case "$p" in ''|'#'*) continue ;; esac
		n=$((n + 1))
		if [ ! -f "$repo/patches/$p" ]; then
			echo "prepare-tree: patches/series names $p, which does not exist" >&2
			exit 1
		fi
		if ! out=$(patch -p1 -N -s -t --fuzz=0 --no-backup-if-mismatch -r - \
			   -d "$stage" < "$repo/patches/$p" 2>&1); then
			echo "$out" >&2
			echo "prepare-tree: patch $p does not apply to Linux $ver ($pristine)" >&2
			exit 1
		fi
	done < "$series"
fi

# New files: overlaid at the same paths. cp --remove-destination breaks the
# hard links to the pristine tree before writing.
for d in mm drivers include; do
	[ -d "$repo/$d" ] || continue
	(cd "$repo" && find "$d" -type f ! -name '.*' -print0) |
	while IFS= read -r -d '' f; do
		mkdir -p "$stage/$(dirname "$f")"
		cp --remove-destination "$repo/$f" "$stage/$f"
	done
done

mkdir -p "$dest"
# -c: compare by content; no -t: rewritten files get the current time so
# make sees them as new even when their content went back to older text.
rsync -rlc --delete "$stage/" "$dest/"
rm -rf "$stage"
echo "prepare-tree: Linux $ver, $n patch(es) applied, overlay synced into $dest"
