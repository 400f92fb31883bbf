// SPDX-License-Identifier: GPL-2.0
/*
 * poison_victim: swap out one THP of its own to the pmem swap device,
 * poison the pmem page behind one of its slots with hwpoison-inject, and
 * read it back. On a pmswap kernel the read must kill this process with
 * SIGBUS and nothing else; the caller checks that (exit status 128+7 from
 * a shell). Exits 2 when it cannot set the test up (no pmem swap device,
 * no hwpoison-inject, the THP did not go to swap), 1 when the poisoned
 * read returned data.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmswap_test.h"

#define PMEM_DIR	"/sys/kernel/mm/pmswap/pmem"
#define POISON		"/sys/kernel/debug/hwpoison/corrupt-pfn"

/* phys_start of the pmem swap device with swap type @type, or 0. */
static unsigned long phys_start_of(unsigned int type)
{
	DIR *d = opendir(PMEM_DIR);
	unsigned long phys = 0;
	struct dirent *e;
	char path[512], buf[64];

	if (!d)
		return 0;
	while (!phys && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), PMEM_DIR "/%s/swap_type", e->d_name);
		if (pt_read_long(path) != (long)type)
			continue;
		snprintf(path, sizeof(path), PMEM_DIR "/%s/phys_start", e->d_name);
		if (!pt_read_str(path, buf, sizeof(buf)))
			phys = strtoul(buf, NULL, 0);
	}
	closedir(d);
	return phys;
}

int main(void)
{
	char *mem = pt_alloc_thp(PT_PMD_SIZE);
	int fd = pt_pagemap_open();
	unsigned long phys;
	char pfn[32];
	uint64_t e;

	if (!mem || fd < 0)
		return 2;
	pt_fill(mem, PT_PMD_SIZE, 99);
	pt_pageout(mem, PT_PMD_SIZE);
	e = pt_pagemap_entry(fd, mem + 5 * PT_PAGE_SIZE);
	if (!(e & PT_PM_SWAP)) {
		printf("poison_victim: THP not in swap\n");
		return 2;
	}
	phys = phys_start_of(PT_PM_SWP_TYPE(e));
	if (!phys) {
		printf("poison_victim: swap type %llu is not a pmem swap device\n",
		       (unsigned long long)PT_PM_SWP_TYPE(e));
		return 2;
	}
	snprintf(pfn, sizeof(pfn), "%#lx",
		 (unsigned long)(phys / PT_PAGE_SIZE + PT_PM_SWP_OFFSET(e)));
	printf("poison_victim: poisoning pfn %s (swap offset %llu)\n", pfn,
	       (unsigned long long)PT_PM_SWP_OFFSET(e));
	fflush(stdout);
	if (pt_write_str(POISON, pfn))
		return 2;
	/* must not return: SIGBUS */
	printf("poison_victim: read %zu bad pages instead of SIGBUS\n",
	       pt_verify(mem, PT_PMD_SIZE, 99));
	return 1;
}
