// SPDX-License-Identifier: GPL-2.0
/*
 * persist-drv: tools/pmswap/persist.c on its own, for the host test
 * test_persist_unit.sh (no pmem needed):
 *   persist-drv write UUID PRIO [POLICY]    persist_write()
 *   persist-drv write-dax ID PRIO [POLICY]  persist_write(), setup --dax
 *   persist-drv remove                      persist_remove()
 * Exits with what the function returned.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmswap.h"

void err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("pmswap: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "write"))
		return persist_write(argv[2], false, atoi(argv[3]),
				     argc > 4 ? argv[4] : NULL);
	if (argc >= 4 && !strcmp(argv[1], "write-dax"))
		return persist_write(argv[2], true, atoi(argv[3]),
				     argc > 4 ? argv[4] : NULL);
	if (argc == 2 && !strcmp(argv[1], "remove"))
		return persist_remove();
	fprintf(stderr, "usage: persist-drv write|write-dax ID PRIO [POLICY] | remove\n");
	return 2;
}
