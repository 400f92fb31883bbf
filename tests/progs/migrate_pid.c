// SPDX-License-Identifier: GPL-2.0
/*
 * migrate_pid PID FROM TO: migrate_pages(2) of process PID from NUMA node
 * FROM to node TO (what migratepages(8) does, without libnuma). Prints the
 * number of pages that could not be moved; exits 1 when the call failed.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	unsigned long from, to;
	long ret;

	if (argc != 4) {
		fprintf(stderr, "usage: migrate_pid PID FROM TO\n");
		return 2;
	}
	from = 1UL << atoi(argv[2]);
	to = 1UL << atoi(argv[3]);
	ret = syscall(SYS_migrate_pages, atoi(argv[1]), 8 * sizeof(from), &from, &to);
	if (ret < 0) {
		perror("migrate_pages");
		return 1;
	}
	printf("%ld\n", ret);
	return 0;
}
