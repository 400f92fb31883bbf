#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every figure in README.md and Documentation/ names the raw log behind
# it: each path under bench/results/ or tests/results/ that README.md,
# Documentation/ or a reading in bench/results/ names must exist, so that
# a result set that is removed or moved takes the figures citing it with
# it. A path written COMMIT:PATH names a file in git history, as "git
# show" reads it, and is not checked. TAP on stdout.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo" || exit 1

echo "TAP version 13"
n=0 fail=0
files=(README.md)
while IFS= read -r f; do files+=("$f"); done < <(find Documentation bench/results -name '*.rst' -o -name '*.md' | sort)
for f in "${files[@]}"; do
	missing=()
	# paths as written: up to a space, quote, bracket, backquote or comma
	while IFS= read -r p; do
		p=${p%.}
		p=${p%:}
		# a glob or a placeholder names a pattern, not a file
		case $p in *'*'*|*'<'*|*'CONFIG'*|*'ROUND'*|*'X/'*) continue ;; esac
		[ -e "$p" ] || missing+=("$p")
	done < <(grep -o '[A-Za-z0-9_:./-]*\(bench\|tests\)/results/[A-Za-z0-9_./+-]*' "$f" |
		 grep -v ':' | sed 's,^.*\(\(bench\|tests\)/results/\),\1,' | sort -u)
	n=$((n + 1))
	if [ ${#missing[@]} = 0 ]; then
		echo "ok $n $f: every bench/results and tests/results path it names exists"
	else
		echo "not ok $n $f: names paths that do not exist: ${missing[*]}"
		fail=1
	fi
done
echo "1..$n"
exit $fail
