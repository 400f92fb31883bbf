// SPDX-License-Identifier: GPL-2.0
/*
 * Map in place, the cases that change the device for the tests after
 * them: swapoff of a device with pages mapped in place, and memory
 * failure on a pmem page mapped in place. Each runs at both levels: a
 * 2 MiB extent mapped by a PMD, and 4 KiB slots mapped by PTEs.
 *
 * Kept out of inplace, which leaves the device as it found it and can
 * run in any order. A poisoned page stays bad for the rest of the boot
 * (QEMU cannot clear poison), so the suite runs this program with the
 * other destructive ones (pmem_swap, pmem_failure), after every test
 * that expects a clean device; swapoff comes first here, on a device that
 * is still clean.
 *
 * Skips as a whole when swap is not on a DAX pmem device (zram).
 * usage: inplace_destructive
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/swap.h>
#include <sys/wait.h>

#include "kselftest.h"
#include "pmswap_test.h"

#define MIB(x)		((size_t)(x) << 20)
#define POISON		"/sys/kernel/debug/hwpoison/corrupt-pfn"

#define PMD	(&pt_level_pmd)
#define PTE	(&pt_level_pte)

static struct pt_inplace_dev dev;

/* A region at level @l, filled with @seed's pattern and swapped out. */
static char *swapped(const struct pt_level *l, size_t size, uint64_t seed)
{
	char *mem = pt_level_swapped(l, size, seed);

	if (!mem)
		ksft_exit_fail_perror("swap out");
	return mem;
}

/*
 * swapoff brings what is mapped in place back to DRAM with its data: an
 * extent as a THP, slots as 4 KiB pages. The device is swapped on again.
 */
static void case_swapoff(const struct pt_level *l)
{
	size_t size = l == PMD ? MIB(16) : MIB(2);
	long in0 = 0, kb = -1;
	char *mem;
	int ret = -1;

	mem = swapped(l, size, 91 + (l == PTE));
	pt_touch_read(mem, size);
	in0 = pt_inplace_kb(mem);
	if (in0 == (long)(size >> 10)) {
		ret = swapoff(dev.dev);
		kb = pt_smaps_kb(mem, l->dram);
	}
	ksft_test_result(ret == 0 && pt_inplace_kb(mem) == 0 &&
			 kb == (long)(size >> 10) &&
			 pt_verify(mem, size, 91 + (l == PTE)) == 0,
			 "swapoff (%s): %ld kB in place before, %ld kB %s after, data intact\n",
			 l->name, in0, kb, l->dram);
	if (ret == 0 && swapon(dev.dev, 0))
		ksft_exit_fail_msg("swapon %s: %s\n", dev.dev, strerror(errno));
	pt_level_free(l, mem, size);
}

/*
 * Memory failure on a pmem page mapped in place: the mapping of that page
 * goes (a PMD: the whole extent's, reverted to its swap entry; a PTE:
 * that page's), the owner gets SIGBUS at its next access of the page,
 * what else it has in place stays in place with its data, and the kernel
 * lives. Runs in a child, which reports what it saw before its SIGBUS.
 */
struct poison_arg {
	const struct pt_level *l;
	unsigned long phys0;	/* physical address of slot 0 */
};

static int poison_child(void *arg, int out)
{
	struct poison_arg *a = arg;
	size_t size = a->l == PMD ? PT_PMD_SIZE : 64 * PT_PAGE_SIZE;
	size_t victim = 7 * PT_PAGE_SIZE;
	/* a PMD's other data is a second region: its own extents */
	size_t osize = a->l == PMD ? MIB(8) : 0;
	char *other = osize ? swapped(PMD, osize, 82) : NULL;
	char *mem = swapped(a->l, size, 81);
	int fd = pt_pagemap_open();
	long report[2];
	char pfn[32];
	uint64_t e;

	if (fd < 0)
		return 10;
	/* pagemap reports the swap entry (it reverts an in-place PMD) */
	e = pt_pagemap_entry(fd, mem + victim);
	if (!(e & PT_PM_SWAP))
		return 11;
	if (other)
		pt_touch_read(other, osize);
	pt_touch_read(mem, size);
	if (pt_inplace_kb(mem) != (long)(size >> 10))
		return 12;
	snprintf(pfn, sizeof(pfn), "%#lx",
		 (unsigned long)(a->phys0 / PT_PAGE_SIZE + PT_PM_SWP_OFFSET(e)));
	printf("# child: poisoning pfn %s, mapped in place\n", pfn);
	fflush(stdout);
	if (pt_write_str(POISON, pfn))
		return 13;
	if (a->l == PMD) {
		if (pt_inplace_kb(mem) != 0)
			return 14;
		report[0] = pt_inplace_kb(other);
		report[1] = pt_verify(other, osize, 82);
	} else {
		report[0] = pt_inplace_kb(mem);
		report[1] = pt_verify_range(mem, 0, victim, 81) +
			    pt_verify_range(mem, victim + PT_PAGE_SIZE,
					    size - victim - PT_PAGE_SIZE, 81);
	}
	if (write(out, report, sizeof(report)) != sizeof(report))
		return 15;
	/* must raise SIGBUS */
	return pt_verify_range(mem, victim, PT_PAGE_SIZE, 81) ? 16 : 17;
}

static void case_poison(const struct pt_level *l)
{
	const char *revert = l->revert;
	/* in place after: the other 8 MiB region, or the other 63 pages */
	long want = l == PMD ? 8192 : 63 * 4;
	struct poison_arg a = { .l = l };
	long un0, notices0, notices1, report[2] = { -1, -1 };
	char path[340], buf[64];
	int st;

	snprintf(path, sizeof(path), "%s/phys_start", dev.dir);
	if (pt_read_str(path, buf, sizeof(buf)) || !pt_path_exists(POISON)) {
		ksft_test_result_fail("poison (%s): no phys_start or hwpoison-inject\n",
				      l->name);
		return;
	}
	a.phys0 = strtoul(buf, NULL, 0);
	un0 = pt_vmstat(revert);
	notices0 = pt_stat_key(dev.stats, "poison_notices");
	st = pt_fork_report(poison_child, &a, report, sizeof(report));
	if (st < 0)
		ksft_exit_fail_perror("fork");
	notices1 = pt_stat_key(dev.stats, "poison_notices");
	ksft_test_result(WIFSIGNALED(st) && WTERMSIG(st) == SIGBUS &&
			 notices1 == notices0 + 1 && pt_vmstat(revert) > un0 &&
			 report[0] == want && report[1] == 0,
			 "poison (%s): mapping reverted (%s +%ld), owner got SIGBUS (%s %d), %ld notice(s); the rest still in place (%ld kB), %ld bad pages\n",
			 l->name, revert, pt_vmstat(revert) - un0,
			 WIFSIGNALED(st) ? "signal" : "exit code",
			 WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st),
			 notices1 - notices0, report[0], report[1]);
}

static const struct {
	const char *name;
	void (*fn)(const struct pt_level *l);
} cases[] = {
	/* on a clean device first: poison is for good */
	{ "swapoff", case_swapoff },
	{ "poison", case_poison },
};

int main(void)
{
	unsigned int i;
	int cpu;

	ksft_print_header();
	/* on pmem, a kernel without map in place fails; on zram, skip */
	if (pt_inplace_dev_find(&dev)) {
		if (pt_swap_on_pmem())
			ksft_exit_fail_msg("swap is on pmem, but this kernel does not map it in place\n");
		ksft_exit_skip("swap is not on a pmem device\n");
	}
	ksft_print_msg("device %s\n", dev.dev);
	/* MADV_PAGEOUT must find every 4 KiB page: one CPU */
	cpu = pt_pin_cpu();
	if (cpu < 0)
		ksft_exit_fail_perror("sched_setaffinity");

	ksft_set_plan(2 * ARRAY_SIZE(cases));
	if (pt_write_str(dev.policy, "read"))
		ksft_exit_fail_msg("cannot set policy read\n");
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		cases[i].fn(PMD);
		cases[i].fn(PTE);
	}
	ksft_finished();
}
