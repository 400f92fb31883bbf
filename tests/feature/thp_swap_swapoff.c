// SPDX-License-Identifier: GPL-2.0
/*
 * swapoff with swapped-out THPs: everything comes back with nothing lost,
 * as THPs when huge swap entries are in use, and swapon restores the
 * device. Works on whichever swap device is active (the first one in
 * /proc/swaps).
 *
 * Under map-in-place policy read or always on a pmem device, the region
 * is read back first, which maps its extents in place; swapoff must
 * revert every one of them and bring the data into DRAM before the
 * device goes.
 *
 * Then swapoff races the owner (issue 14 item 7): swapoff reads a huge
 * swap entry without the PMD lock (huge_swap_unuse_pmd()), and the
 * owner discards the THP with MADV_DONTNEED before swapoff acts on what
 * it read. The kernel's race window "unuse_pmd" holds swapoff there while
 * the test discards, so the race happens every run. swapoff must leave
 * the empty PMD alone: no new THP faulted into it, and in a VMA
 * registered for userfaultfd MISSING no call of the userfaultfd handler
 * (without FAULT_FLAG_ALLOW_RETRY, which DEBUG_VM reports in the kernel
 * log as "FAULT_FLAG_ALLOW_RETRY missing": the test counts those lines
 * in /dev/kmsg, and the runner fails on one too). Only this process's
 * swapoff takes the window's pass.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/swap.h>
#include <sys/syscall.h>

#include "kselftest.h"
#include "pmswap_test.h"

#define SIZE	(32 * PT_MIB)
#define THPS	(SIZE / PT_PMD_SIZE)
#define SEED	11

static int first_swap(char *dev, size_t len)
{
	char line[512];
	FILE *f = fopen("/proc/swaps", "r");
	int ret = -1;

	if (!f)
		return -1;
	if (fgets(line, sizeof(line), f) && fgets(line, sizeof(line), f) &&
	    sscanf(line, "%255s", dev) == 1)
		ret = 0;
	fclose(f);
	(void)len;
	return ret;
}

/* DEBUG_VM's line for handle_userfault() without FAULT_FLAG_ALLOW_RETRY */
static const char * const retry_missing[] = { "FAULT_FLAG_ALLOW_RETRY missing", NULL };

static void race_release(void)
{
	pt_race_release("unuse_pmd");
}

struct swapoff_arg {
	const char *dev;
	int err;
};

static void *swapoff_thread(void *p)
{
	struct swapoff_arg *a = p;

	a->err = swapoff(a->dev) ? errno : 0;
	return NULL;
}

/* Pages of the 2 MiB at @mem that are present or swapped (pagemap). */
static int pages_left(const char *mem)
{
	uint64_t e[PT_PMD_PAGES];
	int fd = pt_pagemap_open(), i, n = 0;

	if (fd < 0 || pt_pagemap_range(fd, mem, PT_PMD_PAGES, e)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	for (i = 0; i < PT_PMD_PAGES; i++)
		n += !!(e[i] & (PT_PM_PRESENT | PT_PM_SWAP));
	return n;
}

/*
 * swapoff stopped in the unuse_pmd window on the one huge swap entry of
 * a 2 MiB THP while the owner discards it (MADV_DONTNEED); @uffd_armed:
 * the VMA is registered for userfaultfd MISSING. One test point.
 */
static void race_discard(const char *dev, bool huge, bool uffd_armed)
{
	const char *what = uffd_armed ? "userfaultfd MISSING VMA" : "plain VMA";
	struct uffdio_api api = { .api = UFFD_API };
	struct swapoff_arg arg = { .dev = dev, .err = -1 };
	struct uffdio_register reg;
	struct pollfd pfd;
	long hits0, pmd_kb, rss, retry;
	int uffd = -1, dn = -1, left, msgs = -1, on = -1, kfd;
	bool waited = false, started;
	pthread_t t;
	char *mem;

	if (!huge) {
		ksft_test_result_skip("swapoff races MADV_DONTNEED (%s): no huge swap entries\n",
				      what);
		return;
	}
	if (!pt_race_available()) {
		ksft_test_result_skip("swapoff races MADV_DONTNEED (%s): kernel without race windows (CONFIG_PMSWAP_RACE_WINDOWS)\n",
				      what);
		return;
	}
	mem = pt_alloc_thp(PT_PMD_SIZE);
	if (!mem)
		ksft_exit_fail_perror("mmap");
	pt_fill(mem, PT_PMD_SIZE, SEED + 1);
	pt_pageout(mem, PT_PMD_SIZE);
	pmd_kb = pt_smaps_kb(mem, "SwapPmdMapped");
	if (uffd_armed) {
		uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
		reg.range.start = (uintptr_t)mem;
		reg.range.len = PT_PMD_SIZE;
		reg.mode = UFFDIO_REGISTER_MODE_MISSING;
		if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api) ||
		    ioctl(uffd, UFFDIO_REGISTER, &reg))
			ksft_exit_fail_msg("userfaultfd: %s\n", strerror(errno));
	}

	hits0 = pt_race_hits("unuse_pmd");
	kfd = pt_kmsg_open();
	/* only this process's swapoff (the thread below) takes the pass */
	if (pt_race_arm("unuse_pmd", 400000, getpid()))
		ksft_exit_fail_msg("cannot arm the unuse_pmd window\n");
	started = !pthread_create(&t, NULL, swapoff_thread, &arg);
	if (started)
		waited = pt_race_wait("unuse_pmd", hits0, 120);
	/* swapoff holds what it read; the owner discards the THP */
	if (waited)
		dn = madvise(mem, PT_PMD_SIZE, MADV_DONTNEED) ? errno : 0;
	pt_race_release("unuse_pmd");
	if (started)
		pthread_join(t, NULL);

	left = pages_left(mem);
	/* -1: the kernel log could not be read, which fails the point */
	retry = kfd < 0 ? -1 : pt_kmsg_grep(kfd, retry_missing, 4);
	if (kfd >= 0)
		close(kfd);
	rss = pt_smaps_kb(mem, "Rss");
	if (uffd >= 0) {
		pfd.fd = uffd;
		pfd.events = POLLIN;
		msgs = poll(&pfd, 1, 0);
	}
	ksft_print_msg("%s: SwapPmdMapped %ld kB before; swapoff %s the window (hits %ld -> %ld); MADV_DONTNEED %s; swapoff: %s; after it %d pages present or swapped, Rss %ld kB%s%s\n",
		       what, pmd_kb, waited ? "waited in" : "NEVER reached",
		       hits0, pt_race_hits("unuse_pmd"),
		       dn < 0 ? "not done" : dn ? strerror(dn) : "done",
		       arg.err < 0 ? "not run" : arg.err ? strerror(arg.err) : "done",
		       left, rss, uffd >= 0 ? ", userfaultfd messages pending: " : "",
		       uffd < 0 ? "" : msgs ? "YES" : "none");
	ksft_print_msg("%s: new kernel lines \"FAULT_FLAG_ALLOW_RETRY missing\": %ld\n",
		       what, retry);
	if (!arg.err)
		on = swapon(dev, 0) ? errno : 0;
	ksft_test_result(pmd_kb == (long)(PT_PMD_SIZE >> 10) && waited &&
			 dn == 0 && arg.err == 0 && left == 0 &&
			 (uffd < 0 || msgs == 0) && retry == 0 && on == 0,
			 "swapoff races MADV_DONTNEED (%s): the discarded THP stays empty, swapoff and swapon succeed\n",
			 what);
	if (uffd >= 0)
		close(uffd);
	munmap(mem, PT_PMD_SIZE);
}

int main(void)
{
	struct pt_inplace_dev ipd;
	const char *no_inplace = NULL;
	char dev[256];
	long split0, kb, now0 = 0, now1, mi0, mi1, unmap0, unmap1;
	int huge, rc, policy;
	char *mem;

	ksft_print_header();
	if (!pt_swap_active() || first_swap(dev, sizeof(dev)))
		ksft_exit_fail_msg("no swap device is active\n");
	huge = pt_huge_swap_mode() > 0;
	policy = pt_inplace_policy();
	if (pt_huge_swap_mode() < 0)
		no_inplace = "no huge swap entries in this kernel";
	else if (!huge)
		no_inplace = "huge swap entries are off";
	else if (policy < 0 || pt_inplace_dev_find(&ipd))
		no_inplace = "swap is not on a pmem device with map in place";
	else if (policy == 0)
		no_inplace = "under policy never nothing is mapped in place";
	else if (strcmp(ipd.dev, dev))
		no_inplace = "the first swap device is not the pmem device";
	ksft_set_plan(9);

	mem = pt_alloc_thp(SIZE);
	if (!mem)
		ksft_exit_fail_perror("mmap");
	pt_fill(mem, SIZE, SEED);
	pt_pageout(mem, SIZE);
	kb = huge ? pt_smaps_kb(mem, "SwapPmdMapped") : pt_smaps_kb(mem, "Swap");
	ksft_test_result(kb == (long)(SIZE >> 10), "%lu MiB swapped out (%s entries, %ld kB)\n",
			 SIZE >> 20, huge ? "huge" : "PTE", kb);

	mi0 = pt_meminfo_kb("PmswapInPlace");
	if (no_inplace) {
		ksft_test_result_skip("map in place before swapoff: %s\n", no_inplace);
	} else {
		now0 = pt_stat_key(ipd.stats, "inplace_mapped_now");
		/* a read maps each extent in place (policy read or always) */
		rc = pt_verify(mem, SIZE, SEED) == 0;
		kb = pt_smaps_kb(mem, "PmswapInPlace");
		now1 = pt_stat_key(ipd.stats, "inplace_mapped_now");
		mi1 = pt_meminfo_kb("PmswapInPlace");
		ksft_test_result(rc && kb == (long)(SIZE >> 10) && now1 > 0 &&
				 now1 - now0 == (long)THPS &&
				 mi1 - mi0 == (long)(SIZE >> 10),
				 "read back in place before swapoff: data %s, smaps PmswapInPlace %ld kB, mapped_now %ld -> %ld, meminfo PmswapInPlace %+ld kB\n",
				 rc ? "intact" : "WRONG", kb, now0, now1, mi1 - mi0);
	}

	split0 = pt_vmstat("thp_split_swap_pmd");
	unmap0 = pt_vmstat("pmswap_inplace_revert");
	rc = swapoff(dev);
	unmap1 = pt_vmstat("pmswap_inplace_revert");
	ksft_test_result(rc == 0, "swapoff %s with swapped THPs\n", dev);
	ksft_test_result(pt_smaps_kb(mem, "Swap") == 0 && pt_verify(mem, SIZE, SEED) == 0,
			 "all data back in memory and intact (Swap %ld kB)\n",
			 pt_smaps_kb(mem, "Swap"));
	kb = pt_smaps_kb(mem, "AnonHugePages");
	if (huge)
		ksft_test_result(kb == (long)(SIZE >> 10) &&
				 pt_vmstat("thp_split_swap_pmd") == split0,
				 "swapoff brought the THPs back whole (AnonHugePages %ld kB)\n", kb);
	else
		ksft_test_result(kb < (long)(SIZE >> 10),
				 "PTE entries: swapoff brings 4 KiB pages back (AnonHugePages %ld kB)\n",
				 kb);
	if (no_inplace) {
		ksft_test_result_skip("nothing left in place after swapoff: %s\n", no_inplace);
	} else {
		/* the device's stats/inplace_* go with it: gone, or 0 */
		now1 = pt_stat_key(ipd.stats, "inplace_mapped_now");
		kb = pt_smaps_kb(mem, "PmswapInPlace");
		mi1 = pt_meminfo_kb("PmswapInPlace");
		ksft_test_result(kb == 0 && mi1 == mi0 && now1 <= 0 &&
				 unmap1 - unmap0 == (long)THPS,
				 "nothing left in place after swapoff: smaps PmswapInPlace %ld kB, meminfo PmswapInPlace %ld kB (%ld before), mapped_now %ld (-1: gone with the device), %ld extents reverted (want %lu)\n",
				 kb, mi1, mi0, now1, unmap1 - unmap0, THPS);
	}
	rc = swapon(dev, 0);
	ksft_test_result(rc == 0 && pt_swap_active() &&
			 (no_inplace || pt_stat_key(ipd.stats, "inplace_mapped_now") == 0),
			 "swapon %s again\n", dev);
	pt_free_thp(mem, SIZE);
	atexit(race_release);
	race_discard(dev, huge, false);
	race_discard(dev, huge, true);
	ksft_finished();
}
