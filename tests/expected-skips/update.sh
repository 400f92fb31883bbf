#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# update.sh LOGDIR [TAG...]
#
# Write tests/expected-skips/TAG.txt, the skips a suite is expected to
# report, from the skips in LOGDIR/TAG.out (TAG: the PMSWAP_TAG of the run;
# default: every suite of `make test`). Lines of the old list that still
# match a skip are kept as they are (with their reasons); new skips get a
# line "program: text  # reason", where text is the test point after
# "ok N" (or "1..0" for a program that skipped as a whole), and the
# reason the test gave, if any. Entries that no longer match are dropped
# and named on stderr. Review the diff, give every entry a reason, and
# commit it.
#
#   make test; tests/expected-skips/update.sh build/logs; git diff
#
# tests/check-results.py fails a run on a skip its list does not have, and
# reports a listed skip that did not happen. Once every TAG has a list,
# `make` fails a suite without one (STRICT_SKIPS in the Makefile).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
logs=${1:?usage: update.sh LOGDIR [TAG...]}
shift
tags=("$@")
[ ${#tags[@]} -gt 0 ] || tags=(feature feature-zram feature-debug tools upstream soak)
rc=0
for tag in "${tags[@]}"; do
	out=$logs/$tag.out list=$here/$tag.txt
	if [ ! -f "$out" ]; then
		echo "update: no $out: $tag.txt left as it is" >&2
		rc=1
		continue
	fi
	python3 "$here/../check-results.py" --write-skips "$out" \
		--expected-skips "$list" > "$list.new"
	mv "$list.new" "$list"
	echo "update: $tag.txt: $(grep -cv '^#' "$list" || true) expected skip(s)"
done
exit $rc
