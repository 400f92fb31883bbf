// SPDX-License-Identifier: GPL-2.0
/*
 * Every path that can meet a swapped-out PMD-mapped THP, each checked on
 * its data: zap (munmap, MADV_DONTNEED, MADV_FREE, partial munmap),
 * mprotect (whole and partial), mremap (aligned and unaligned), madvise
 * (PAGEOUT/COLD on swapped memory, WILLNEED reads ahead), mincore, smaps, pagemap,
 * soft-dirty, GUP (through /proc/self/mem), mbind, MADV_COLLAPSE,
 * userfaultfd and fork.
 *
 * Each case swaps out a 4 MiB THP region (two THPs) with MADV_PAGEOUT.
 * With huge swap entries (pmswap, /sys/kernel/mm/pmswap/huge_swap = 1) it
 * first checks that the region really is held by huge swap entries, so
 * every case runs against them; on a stock kernel the same cases run
 * against PTE swap entries and must give the same results.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "kselftest.h"
#include "pmswap_test.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif
#ifndef MADV_COLD
#define MADV_COLD 20
#endif

#define SIZE	(4 * PT_MIB)
#define SEED	42

static int huge;	/* huge swap entries expected */
/* map-in-place policy: 0 never (or no pmem), 1 read, 2 always */
static int inplace;

/* A swapped-out THP region, verified to be in the expected form. */
static char *swapped_region(size_t size, uint64_t seed)
{
	char *mem = pt_alloc_thp(size);
	long kb;

	if (!mem)
		return NULL;
	pt_fill(mem, size, seed);
	if (pt_smaps_kb(mem, "AnonHugePages") != (long)(size >> 10) ||
	    pt_pageout(mem, size)) {
		ksft_print_msg("could not populate and swap out %zu bytes\n", size);
		pt_free_thp(mem, size);
		return NULL;
	}
	kb = huge ? pt_smaps_kb(mem, "SwapPmdMapped") : pt_smaps_kb(mem, "Swap");
	if (kb != (long)(size >> 10)) {
		ksft_print_msg("region not swapped out as expected (%ld kB)\n", kb);
		pt_free_thp(mem, size);
		return NULL;
	}
	return mem;
}

static size_t zero_pages(const char *p, size_t size)
{
	size_t off, n = 0;

	for (off = 0; off < size; off += PT_PAGE_SIZE) {
		const uint64_t *w = (const uint64_t *)(p + off);
		size_t i, z = 1;

		for (i = 0; i < PT_PAGE_SIZE / 8; i += 64)
			if (w[i])
				z = 0;
		n += z;
	}
	return n;
}

#define CASE(name) static int name(void)
#define FAIL(...) do { ksft_print_msg(__VA_ARGS__); return -1; } while (0)

CASE(case_munmap)
{
	long used0 = pt_swap_held_kb();
	char *mem = swapped_region(SIZE, SEED);

	if (!mem)
		return -1;
	/*
	 * The region holds its slots (smaps); the global count may also drop
	 * meanwhile, as reclaim frees swap cache an earlier test left behind,
	 * so only a count above the one before is a leak.
	 */
	if (pt_smaps_kb(mem, "Swap") != (long)(SIZE >> 10))
		FAIL("region holds %ld kB of swap\n", pt_smaps_kb(mem, "Swap"));
	pt_free_thp(mem, SIZE);
	if (pt_swap_held_kb() > used0 + pt_swap_slot_cache_kb())
		FAIL("slots leaked: %ld kB used, %ld before\n", pt_swap_held_kb(), used0);
	return 0;
}

/* MADV_DONTNEED and MADV_FREE drop swapped memory: slots freed, reads zero. */
static int discard(int advice, const char *name)
{
	long used0 = pt_swap_held_kb();
	char *mem = swapped_region(SIZE, SEED);
	int ret = 0;

	if (!mem)
		return -1;
	if (madvise(mem, SIZE, advice))
		FAIL("%s: %s\n", name, strerror(errno));
	if (pt_swap_held_kb() > used0 + pt_swap_slot_cache_kb())
		FAIL("%s left %ld kB of swap\n", name, pt_swap_held_kb() - used0);
	if (zero_pages(mem, SIZE) != SIZE / PT_PAGE_SIZE)
		ret = -1;
	pt_free_thp(mem, SIZE);
	return ret;
}

CASE(case_dontneed)
{
	return discard(MADV_DONTNEED, "MADV_DONTNEED");
}

CASE(case_free)
{
	/* Like PTE swap entries: the slots are dropped, the data is gone. */
	return discard(MADV_FREE, "MADV_FREE");
}

CASE(case_partial_munmap)
{
	long used0 = pt_swap_held_kb();
	char *mem = swapped_region(SIZE, SEED);
	size_t hole = PT_MIB, at = PT_MIB / 2;

	if (!mem)
		return -1;
	/* A hole inside the first THP splits its entry. */
	if (munmap(mem + at, hole))
		FAIL("munmap: %s\n", strerror(errno));
	if (pt_verify_range(mem, 0, at, SEED))
		FAIL("data before the hole changed\n");
	if (pt_verify_range(mem, at + hole, SIZE - at - hole, SEED))
		FAIL("data after the hole changed\n");
	munmap(mem, at);
	munmap(mem + at + hole, SIZE - at - hole);
	if (pt_swap_held_kb() > used0 + pt_swap_slot_cache_kb())
		FAIL("slots leaked after partial munmap: %ld kB\n",
		     pt_swap_held_kb() - used0);
	return 0;
}

CASE(case_mprotect_whole)
{
	char *mem = swapped_region(SIZE, SEED);
	long pmd;

	if (!mem)
		return -1;
	if (mprotect(mem, SIZE, PROT_READ) || mprotect(mem, SIZE, PROT_READ | PROT_WRITE))
		FAIL("mprotect: %s\n", strerror(errno));
	pmd = pt_smaps_kb(mem, "SwapPmdMapped");
	if (huge && pmd != (long)(SIZE >> 10))
		FAIL("mprotect of the whole range split the entries (%ld kB left)\n", pmd);
	if (pt_verify(mem, SIZE, SEED))
		FAIL("data changed\n");
	pt_fill(mem, SIZE, SEED + 1);
	if (pt_verify(mem, SIZE, SEED + 1))
		FAIL("writes after mprotect lost\n");
	/* policy "always": the writes went to the pmem, mapped in place */
	if (huge && inplace == 2 &&
	    pt_smaps_kb(mem, "PmswapInPlace") != (long)(SIZE >> 10))
		FAIL("not in place after writes (policy always)\n");
	if (huge && inplace != 2 &&
	    pt_smaps_kb(mem, "AnonHugePages") != (long)(SIZE >> 10))
		FAIL("not THP after swap-in\n");
	pt_free_thp(mem, SIZE);
	return 0;
}

CASE(case_mprotect_partial)
{
	char *mem = swapped_region(SIZE, SEED);

	if (!mem)
		return -1;
	if (mprotect(mem + PT_MIB, PT_MIB, PROT_READ))
		FAIL("mprotect: %s\n", strerror(errno));
	if (pt_verify(mem, SIZE, SEED))
		FAIL("data changed after partial mprotect\n");
	if (mprotect(mem + PT_MIB, PT_MIB, PROT_READ | PROT_WRITE))
		FAIL("mprotect back: %s\n", strerror(errno));
	pt_fill(mem, SIZE, SEED + 2);
	if (pt_verify(mem, SIZE, SEED + 2))
		FAIL("writes lost\n");
	pt_free_thp(mem, SIZE);
	return 0;
}

static int do_mremap(size_t shift)
{
	char *mem = swapped_region(SIZE, SEED), *dst, *area;
	long used0;

	if (!mem)
		return -1;
	/* A free, 2 MiB-aligned destination (plus @shift). */
	area = pt_alloc_thp(SIZE + PT_PMD_SIZE);
	if (!area)
		FAIL("no destination\n");
	munmap(area, SIZE + PT_PMD_SIZE);
	dst = mremap(mem, SIZE, SIZE, MREMAP_MAYMOVE | MREMAP_FIXED, area + shift);
	if (dst == MAP_FAILED)
		FAIL("mremap: %s\n", strerror(errno));
	if (pt_smaps_kb(dst, "Swap") != (long)(SIZE >> 10))
		FAIL("moved range not all in swap (%ld kB)\n", pt_smaps_kb(dst, "Swap"));
	if (huge && !shift && pt_smaps_kb(dst, "SwapPmdMapped") != (long)(SIZE >> 10))
		FAIL("aligned move split the entries\n");
	if (pt_verify(dst, SIZE, SEED))
		FAIL("data changed by mremap\n");
	used0 = pt_swap_held_kb();
	munmap(dst, SIZE);
	if (pt_swap_held_kb() > used0 + pt_swap_slot_cache_kb())
		FAIL("swap grew on munmap\n");
	return 0;
}

CASE(case_mremap_aligned)
{
	return do_mremap(0);
}

CASE(case_mremap_unaligned)
{
	return do_mremap(PT_PAGE_SIZE);
}

CASE(case_pageout_cold_again)
{
	char *mem = swapped_region(SIZE, SEED);
	long out0 = pt_vmstat("pswpout");

	if (!mem)
		return -1;
	if (pt_pageout(mem, SIZE) || madvise(mem, SIZE, MADV_COLD))
		FAIL("madvise: %s\n", strerror(errno));
	if (pt_vmstat("pswpout") != out0)
		FAIL("PAGEOUT of swapped memory wrote again\n");
	if (huge && pt_smaps_kb(mem, "SwapPmdMapped") != (long)(SIZE >> 10))
		FAIL("PAGEOUT/COLD split the entries\n");
	if (pt_verify(mem, SIZE, SEED))
		FAIL("data changed\n");
	pt_free_thp(mem, SIZE);
	return 0;
}

CASE(case_willneed)
{
	char *mem = swapped_region(SIZE, SEED);
	long in0;

	if (!mem)
		return -1;

	/*
	 * WILLNEED reads the swapped data into the swap cache (a huge entry
	 * as one THP): the read afterwards swaps nothing in. Mapped in place,
	 * nothing needs reading at all.
	 */
	if (madvise(mem, SIZE, MADV_WILLNEED))
		FAIL("MADV_WILLNEED: %s\n", strerror(errno));
	in0 = pt_vmstat("pswpin");
	if (pt_verify(mem, SIZE, SEED))
		FAIL("data changed\n");
	if (pt_vmstat("pswpin") != in0)
		FAIL("%ld pages swapped in after MADV_WILLNEED\n", pt_vmstat("pswpin") - in0);
	if (huge && !inplace &&
	    pt_smaps_kb(mem, "AnonHugePages") != (long)(SIZE >> 10))
		FAIL("not THP after the read\n");
	if (inplace && pt_smaps_kb(mem, "PmswapInPlace") != (long)(SIZE >> 10))
		FAIL("not mapped in place after the read\n");
	pt_free_thp(mem, SIZE);
	return 0;
}

CASE(case_mincore)
{
	char *mem = swapped_region(SIZE, SEED);
	unsigned char vec[SIZE / PT_PAGE_SIZE];
	size_t i, resident = 0;

	if (!mem)
		return -1;
	if (mincore(mem, SIZE, vec))
		FAIL("mincore: %s\n", strerror(errno));
	for (i = 0; i < sizeof(vec); i++)
		resident += vec[i] & 1;
	/* Written out and dropped from the swap cache: not resident. */
	if (resident)
		FAIL("%zu swapped pages reported resident\n", resident);
	pt_touch_read(mem, SIZE);
	mincore(mem, SIZE, vec);
	for (i = 0, resident = 0; i < sizeof(vec); i++)
		resident += vec[i] & 1;
	if (resident != sizeof(vec))
		FAIL("only %zu pages resident after touching\n", resident);
	pt_free_thp(mem, SIZE);
	return 0;
}

CASE(case_soft_dirty)
{
	char *mem = swapped_region(SIZE, SEED);
	int fd = pt_pagemap_open();
	uint64_t e;

	if (!mem || fd < 0)
		return -1;
	if (pt_write_str("/proc/self/clear_refs", "4"))
		FAIL("clear_refs: %s\n", strerror(errno));
	e = pt_pagemap_entry(fd, mem);
	if (!(e & PT_PM_SWAP) || (e & PT_PM_SOFT_DIRTY))
		FAIL("swapped page still soft-dirty after clear_refs (%llx)\n",
		     (unsigned long long)e);
	mem[0] = 1;
	e = pt_pagemap_entry(fd, mem);
	if (!(e & PT_PM_SOFT_DIRTY))
		FAIL("written page not soft-dirty (%llx)\n", (unsigned long long)e);
	close(fd);
	pt_free_thp(mem, SIZE);
	return 0;
}

CASE(case_gup_proc_mem)
{
	char *mem = swapped_region(SIZE, SEED);
	char *buf = malloc(SIZE);
	int fd = open("/proc/self/mem", O_RDONLY);

	if (!mem || !buf || fd < 0)
		return -1;
	/* /proc/self/mem reads through GUP, which faults the THPs in. */
	if (pread(fd, buf, SIZE, (off_t)(uintptr_t)mem) != (ssize_t)SIZE)
		FAIL("read /proc/self/mem: %s\n", strerror(errno));
	if (pt_verify(buf, SIZE, SEED))
		FAIL("GUP read wrong data\n");
	if (huge && pt_smaps_kb(mem, "AnonHugePages") != (long)(SIZE >> 10))
		FAIL("GUP did not bring the THPs back whole (%ld kB)\n",
		     pt_smaps_kb(mem, "AnonHugePages"));
	close(fd);
	free(buf);
	pt_free_thp(mem, SIZE);
	return 0;
}

CASE(case_mbind)
{
	char *mem = swapped_region(SIZE, SEED);
	unsigned long nodemask = 1;
	long r;

	if (!mem)
		return -1;
	/* MPOL_BIND = 2, MPOL_MF_MOVE = 2 */
	r = syscall(SYS_mbind, mem, SIZE, 2, &nodemask, 8 * sizeof(nodemask), 2);
	if (r && errno != EIO)
		FAIL("mbind: %s\n", strerror(errno));
	if (pt_verify(mem, SIZE, SEED))
		FAIL("data changed\n");
	pt_free_thp(mem, SIZE);
	return 0;
}

CASE(case_collapse)
{
	char *mem = swapped_region(SIZE, SEED);

	if (!mem)
		return -1;
	/* Allowed to fail; must not lose data or crash. */
	madvise(mem, SIZE, MADV_COLLAPSE);
	if (pt_verify(mem, SIZE, SEED))
		FAIL("data changed\n");
	pt_free_thp(mem, SIZE);
	return 0;
}

CASE(case_userfaultfd)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;
	long fb0 = pt_vmstat("thp_swpin_pmd_fallback");
	char *mem = swapped_region(SIZE, SEED);
	int uffd;

	if (!mem)
		return -1;
	uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api))
		FAIL("userfaultfd: %s\n", strerror(errno));
	reg.range.start = (uintptr_t)mem;
	reg.range.len = SIZE;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		FAIL("UFFDIO_REGISTER: %s\n", strerror(errno));
	/* Armed: the entries are split and swapped in 4 KiB at a time. */
	if (pt_verify(mem, SIZE, SEED))
		FAIL("data changed\n");
	if (huge && pt_vmstat("thp_swpin_pmd_fallback") - fb0 != 2)
		FAIL("expected 2 fallbacks, got %ld\n",
		     pt_vmstat("thp_swpin_pmd_fallback") - fb0);
	close(uffd);
	pt_free_thp(mem, SIZE);
	return 0;
}

static char *fork_mem;

static int child_writes(void *arg)
{
	if (pt_verify(fork_mem, SIZE, SEED))
		return 1;
	pt_fill(fork_mem, SIZE, SEED + 9);
	return pt_verify(fork_mem, SIZE, SEED + 9) ? 2 : 0;
}

CASE(case_fork_cow)
{
	long used0 = pt_swap_held_kb();
	int rc;

	fork_mem = swapped_region(SIZE, SEED);
	if (!fork_mem)
		return -1;
	rc = pt_fork_run(child_writes, NULL);
	if (rc)
		FAIL("child failed (%d)\n", rc);
	if (huge && pt_smaps_kb(fork_mem, "SwapPmdMapped") != (long)(SIZE >> 10))
		FAIL("fork split the parent's entries\n");
	if (pt_verify(fork_mem, SIZE, SEED))
		FAIL("parent sees the child's writes\n");
	pt_free_thp(fork_mem, SIZE);
	if (pt_swap_held_kb() > used0 + pt_swap_slot_cache_kb())
		FAIL("slots leaked after fork: %ld kB\n", pt_swap_held_kb() - used0);
	return 0;
}

CASE(case_fork_exit_swapped)
{
	long used0 = pt_swap_held_kb();
	pid_t pid;
	int status;

	fork_mem = swapped_region(SIZE, SEED);
	if (!fork_mem)
		return -1;
	pid = fork();
	if (!pid)
		_exit(0);	/* exit with the entries still swapped */
	waitpid(pid, &status, 0);
	/* Parent swaps in after the child dropped its copy of the counts. */
	if (pt_verify(fork_mem, SIZE, SEED))
		FAIL("data changed\n");
	pt_free_thp(fork_mem, SIZE);
	if (pt_swap_held_kb() > used0 + pt_swap_slot_cache_kb())
		FAIL("slots leaked: %ld kB\n", pt_swap_held_kb() - used0);
	return 0;
}

static int child_touches_one_page(void *arg)
{
	volatile uint64_t *p = (uint64_t *)(fork_mem + PT_MIB + PT_PAGE_SIZE);
	uint64_t v;

	/*
	 * Split the child's entry (mprotect of a part), then swap one page
	 * in for a write: the slots are shared, so do_swap_page() reads it
	 * through the swap cache, where it stays. (A read could map the
	 * slot in place without caching it.)
	 */
	if (mprotect(fork_mem + PT_MIB, PT_PAGE_SIZE, PROT_READ))
		return 2;
	v = *p;
	*p = v;
	return v == *(uint64_t *)arg ? 0 : 1;
}

CASE(case_diverged)
{
	long fb0 = pt_vmstat("thp_swpin_pmd_fallback");
	/* the whole THP comes back by copy, or mapped in place */
	const char *whole = inplace ? "pmswap_inplace_map" : "thp_swpin_pmd";
	long in0 = pt_vmstat(whole);
	uint64_t want;
	int rc;

	fork_mem = pt_alloc_thp(SIZE);
	if (!fork_mem)
		return -1;
	pt_fill(fork_mem, SIZE, SEED);
	want = *(uint64_t *)(fork_mem + PT_MIB + PT_PAGE_SIZE);
	pt_pageout(fork_mem, SIZE);
	if (huge && pt_smaps_kb(fork_mem, "SwapPmdMapped") != (long)(SIZE >> 10))
		FAIL("not swapped out as huge entries\n");
	/*
	 * The child splits its copy of the first entry and swaps one page in;
	 * that slot is then cached on its own, so the parent's entry for the
	 * first THP no longer has 512 slots in one state: its fault must
	 * split it. The second THP comes back whole.
	 */
	rc = pt_fork_run(child_touches_one_page, &want);
	if (rc)
		FAIL("child read wrong data (%d)\n", rc);
	if (pt_verify(fork_mem, SIZE, SEED))
		FAIL("parent data changed\n");
	if (huge && (pt_vmstat("thp_swpin_pmd_fallback") - fb0 != 1 ||
		     pt_vmstat(whole) - in0 != 1))
		FAIL("expected 1 fallback and 1 whole swap-in (%s), got %ld and %ld\n",
		     whole, pt_vmstat("thp_swpin_pmd_fallback") - fb0,
		     pt_vmstat(whole) - in0);
	pt_free_thp(fork_mem, SIZE);
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(void);
} cases[] = {
	{ "munmap frees all slots", case_munmap },
	{ "MADV_DONTNEED frees slots, reads zero", case_dontneed },
	{ "MADV_FREE frees slots, reads zero", case_free },
	{ "munmap of 1 MiB inside a swapped THP", case_partial_munmap },
	{ "mprotect of the whole range keeps the entries", case_mprotect_whole },
	{ "mprotect of part of a swapped THP", case_mprotect_partial },
	{ "mremap to a 2 MiB-aligned address", case_mremap_aligned },
	{ "mremap to an unaligned address", case_mremap_unaligned },
	{ "MADV_PAGEOUT/COLD on swapped memory is a no-op", case_pageout_cold_again },
	{ "MADV_WILLNEED, then read back", case_willneed },
	{ "mincore: not resident, then resident", case_mincore },
	{ "soft-dirty cleared and set again", case_soft_dirty },
	{ "GUP through /proc/self/mem", case_gup_proc_mem },
	{ "mbind with MPOL_MF_MOVE", case_mbind },
	{ "MADV_COLLAPSE", case_collapse },
	{ "userfaultfd armed: swap-in falls back", case_userfaultfd },
	{ "fork: child writes, parent keeps its data", case_fork_cow },
	{ "fork: child exits with entries swapped", case_fork_exit_swapped },
	{ "slots in diverged states: the fault splits the entry", case_diverged },
};

int main(void)
{
	int mode;
	size_t i;

	ksft_print_header();
	if (!pt_swap_active())
		ksft_exit_fail_msg("no swap device is active\n");
	mode = pt_huge_swap_mode();
	huge = mode > 0;
	inplace = huge ? pt_inplace_policy() : 0;
	if (inplace < 0)
		inplace = 0;
	ksft_print_msg("huge swap entries: %s, map in place: %s\n",
		       mode < 0 ? "not in this kernel" : huge ? "on" : "off",
		       inplace ? "on" : "off");
	ksft_set_plan(ARRAY_SIZE(cases));
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		int ret = cases[i].fn();

		ksft_test_result(ret == 0, "%s (%s entries)\n", cases[i].name,
				 !huge ? "PTE" : inplace ? "huge, in place" : "huge");
	}
	ksft_finished();
}
