#!/bin/sh
# Filter the guest's demo output into the report `make run` prints.
sed -e '/^PMSWAP-SUITE-/d' -e '/^PMSWAP-PROGRAMS/d' -e 's/^PMSWAP-BEGIN \(.*\)/--- \1/' -e '/^PMSWAP-END/d' -e '/^TAP version/d' -e '/^1\.\./d'
