// SPDX-License-Identifier: GPL-2.0
/*
 * balloon: take memory away from the rest of the guest, so that a few
 * small processes put the whole machine under memory pressure (global
 * reclaim by kswapd and direct reclaim, no memcg limit), as a host whose
 * working sets add up to more than its RAM. Under TCG, filling the real
 * 1.5 GiB of guest RAM would take most of a benchmark's time.
 *
 *   balloon -s MiB      lock MiB of anonymous memory
 *   balloon -f MiB      lock all but MiB of node 0's free memory
 *
 * The memory is bound to node 0 (the DRAM node; with pmem onlined as a
 * CPU-less node 1 for tiering, that node stays what it is), taken as
 * 4 KiB pages (MADV_NOHUGEPAGE: the THP share measured is the
 * workload's), populated and mlock()ed, so reclaim cannot take it back.
 * Prints "locked_mib N" once it holds it, then waits until killed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "pmswap_test.h"

#define MPOL_BIND_	2

/* Free memory of node 0 in kB (node meminfo), else MemAvailable; -1. */
static long node0_free_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/sys/devices/system/node/node0/meminfo", "r");

	if (!f)
		return pt_meminfo_kb("MemAvailable");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Node 0 MemFree: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

int main(int argc, char **argv)
{
	long size_mib = -1, free_mib = -1, avail_kb;
	unsigned long mask;
	size_t size;
	void *p;
	int c;

	while ((c = getopt(argc, argv, "s:f:")) != -1) {
		switch (c) {
		case 's': size_mib = strtol(optarg, NULL, 0); break;
		case 'f': free_mib = strtol(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: balloon -s MiB | -f MiB\n");
			return 2;
		}
	}
	if ((size_mib < 0) == (free_mib < 0)) {
		fprintf(stderr, "usage: balloon -s MiB | -f MiB\n");
		return 2;
	}
	if (free_mib >= 0) {
		avail_kb = node0_free_kb();
		if (avail_kb < 0) {
			fprintf(stderr, "balloon: no free memory figure for node 0\n");
			return 1;
		}
		size_mib = avail_kb / 1024 - free_mib;
		if (size_mib <= 0) {
			fprintf(stderr, "balloon: only %ld MiB available, want %ld free\n",
				avail_kb / 1024, free_mib);
			return 1;
		}
	}
	size = (size_t)size_mib << 20;
	mask = 1;
	/* a kernel without NUMA has one node: nothing to bind */
	if (syscall(SYS_set_mempolicy, MPOL_BIND_, &mask, 8 * sizeof(mask)) &&
	    errno != ENOSYS)
		fprintf(stderr, "balloon: set_mempolicy: %s (not bound)\n", strerror(errno));
	p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "balloon: mmap of %ld MiB: %s\n", size_mib, strerror(errno));
		return 1;
	}
	madvise(p, size, MADV_NOHUGEPAGE);
	if (mlock(p, size)) {
		fprintf(stderr, "balloon: mlock of %ld MiB: %s\n", size_mib, strerror(errno));
		return 1;
	}
	memset(p, 1, size);
	printf("locked_mib %ld\n", size_mib);
	fflush(stdout);
	for (;;)
		pause();
}
