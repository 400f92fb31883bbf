// SPDX-License-Identifier: GPL-2.0
/*
 * Map in place at PTE level: 4 KiB pages swapped out to pmem come back by
 * mapping the slot's pmem page into the process, not by copying it into
 * DRAM.
 *
 * Acceptance (policy "read", 32 MiB of small pages by default, one access
 * per 4 KiB): at most one fault per page, every page mapped in place,
 * MemFree drops by less than 8 MiB, nothing copied (the device's
 * pages_read), data intact; the same read with policy "never" in the same
 * boot is timed for the ratio (printed, not asserted). Fault-around: one
 * fault per 64 KiB window, stopping at the VMA, skipping zero-filled
 * slots; one per page when turned off. Then every
 * operation that meets an in-place PTE, each checked on the data: writes
 * under each policy, fork, munmap and exit (slots freed), mprotect,
 * mremap, MADV_DONTNEED / FREE / PAGEOUT, GUP and a FOLL_LONGTERM pin,
 * memcg accounting, promotion of a hot page while a cold one stays,
 * MADV_POPULATE_READ/WRITE (GUP that takes no page) and mlock. Memory
 * failure and swapoff are in inplace_destructive. The per-slot state
 * (stats/inplace_slot_records, inplace_metadata_bytes): one record per 2 MiB
 * extent with slots in place, none left once they are unmapped or
 * promoted; the bytes per TiB of device it gives are printed.
 *
 * The vmstat counters are global and other processes' small pages are
 * mapped in place and promoted too, so counter deltas are lower bounds;
 * the exact per-region figures come from smaps.
 *
 * Skips as a whole when swap is not on a DAX pmem device (zram).
 * usage: pte_inplace [MiB]   (default 32)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest.h"
#include "pmswap_test.h"
#include "../../../mm/gup_test.h"

#define KNOBS		"/sys/kernel/mm/pmswap/inplace/"
#define MIB(x)		((size_t)(x) << 20)
#define PAGES(size)	((long)((size) / PT_PAGE_SIZE))

static struct pt_inplace_dev dev;

static void set_policy(const char *p)
{
	if (pt_write_str(dev.policy, p))
		ksft_exit_fail_msg("cannot set policy %s\n", p);
}

/* 4 KiB pages only (pt_alloc_small()), or the test ends */
static char *alloc_small(size_t size)
{
	char *mem = pt_alloc_small(size);

	if (!mem)
		ksft_exit_fail_perror("mmap");
	return mem;
}

/* A region of 4 KiB pages filled with @seed's pattern and swapped out. */
static char *swapped_small(size_t size, uint64_t seed)
{
	char *mem = alloc_small(size);
	long kb = pt_swap_out_filled(mem, size, seed);

	if (kb < 0)
		ksft_exit_fail_perror("MADV_PAGEOUT");
	if (kb != (long)(size >> 10))
		ksft_print_msg("only %ld of %zu kB swapped out\n", kb, size >> 10);
	return mem;
}

static long inplace_kb(const void *p)
{
	return pt_smaps_kb(p, "PmswapInPlace");
}

/* Size of the swap device in kB, from /proc/swaps; -1 if not found. */
static long dev_size_kb(void)
{
	char name[256], line[512];
	long kb = -1, size;
	FILE *f = fopen("/proc/swaps", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%255s %*s %ld", name, &size) == 2 &&
		    !strcmp(name, dev.dev))
			kb = size;
	fclose(f);
	return kb;
}

/*
 * 12. Per-slot state grows with what is mapped in place: a record per
 * 2 MiB extent whose slots are mapped by PTEs, freed with the last one.
 */
static void case_metadata(void)
{
	long rec0 = pt_stat_key(dev.stats, "inplace_slot_records");
	long bytes0 = pt_stat_key(dev.stats, "inplace_metadata_bytes");
	long dev_kb = dev_size_kb(), rec1, bytes1, per, ext[PAGES(MIB(4))];
	size_t size = MIB(4);
	int fd = pt_pagemap_open(), next = 0, i, j;
	char *mem;

	set_policy("read");
	mem = swapped_small(size, 81);
	/* the extents of the slots the region went to */
	for (i = 0; fd >= 0 && i < PAGES(size); i++) {
		uint64_t e = pt_pagemap_entry(fd, mem + i * PT_PAGE_SIZE);
		long x = e & PT_PM_SWAP ? (long)(PT_PM_SWP_OFFSET(e) / PT_PMD_PAGES) : -1;

		for (j = 0; j < next && ext[j] != x; j++)
			;
		if (j == next)
			ext[next++] = x;
	}
	if (fd >= 0)
		close(fd);
	pt_touch_read(mem, size);
	rec1 = pt_stat_key(dev.stats, "inplace_slot_records");
	bytes1 = pt_stat_key(dev.stats, "inplace_metadata_bytes");
	per = rec1 > rec0 ? (bytes1 - bytes0) / (rec1 - rec0) : 0;
	ksft_print_msg("metadata: device %ld kB; before: %ld records, %ld bytes; 4 MiB in place (%ld kB) over %d extents: %ld records, %ld bytes (%ld per record)\n",
		       dev_kb, rec0, bytes0, inplace_kb(mem), next, rec1, bytes1, per);
	if (dev_kb > 0 && per > 0) {
		double tib = (double)(1UL << 30) / dev_kb;	/* TiB / device */
		double idle = (bytes0 - rec0 * per) * tib;
		/* 10 % of the slots in place, in whole extents / all extents */
		double dense = idle + 0.1 * (dev_kb / 2048.0) * per * tib;
		double spread = idle + (dev_kb / 2048.0) * per * tib;

		ksft_print_msg("metadata per TiB of device: idle %.2f MiB; 10 %% of slots mapped in place by PTEs, packed in 10 %% of the extents: %.1f MiB, spread over every extent: %.1f MiB (before this change: 352 MiB at any use)\n",
			       idle / (1 << 20), dense / (1 << 20), spread / (1 << 20));
	}
	ksft_test_result(inplace_kb(mem) == (long)(size >> 10) &&
			 rec1 - rec0 == next && per > 0 && per <= 1024,
			 "metadata: one slot record per extent in place (%ld new, %d extents), %ld bytes each\n",
			 rec1 - rec0, next, per);
	pt_free_small(mem, size);
	ksft_test_result(pt_stat_key(dev.stats, "inplace_slot_records") == rec0 &&
			 pt_stat_key(dev.stats, "inplace_metadata_bytes") == bytes0,
			 "metadata: the records go with the mappings (munmap: %ld records, %ld bytes; before %ld, %ld)\n",
			 pt_stat_key(dev.stats, "inplace_slot_records"),
			 pt_stat_key(dev.stats, "inplace_metadata_bytes"), rec0, bytes0);
}

/* 1. The acceptance round trip, policy read against never. */
static void case_acceptance(size_t size)
{
	long nr = PAGES(size), faults, free0, free1, rd0, rd1, map0, map1, av0, av1;
	struct pt_faults f0;
	double t_read, t_never;
	char *mem, *mem2;

	set_policy("read");
	mem = swapped_small(size, 11);
	ksft_test_result(pt_smaps_kb(mem, "Swap") == (long)(size >> 10) &&
			 pt_smaps_kb(mem, "Rss") == 0,
			 "read: %zu MiB of 4 KiB pages swapped out\n", size >> 20);

	free0 = pt_meminfo_kb("MemFree");
	rd0 = pt_stat_key(dev.stats, "pages_read");
	map0 = pt_vmstat("pmswap_inplace_pte_map");
	av0 = pt_stat_key(dev.stats, "inplace_copy_avoided_bytes");
	pt_faults_now(&f0);
	t_read = pt_now();
	pt_touch_read(mem, size);
	t_read = pt_now() - t_read;
	faults = pt_faults_since(&f0, NULL);
	free1 = pt_meminfo_kb("MemFree");
	rd1 = pt_stat_key(dev.stats, "pages_read");
	map1 = pt_vmstat("pmswap_inplace_pte_map");
	av1 = pt_stat_key(dev.stats, "inplace_copy_avoided_bytes");

	ksft_test_result(faults <= nr && map1 - map0 >= nr,
			 "read: %ld faults for %ld pages, %ld mapped in place\n",
			 faults, nr, map1 - map0);
	ksft_test_result(free0 - free1 < 8192,
			 "read: MemFree dropped by %ld kB (< 8192)\n", free0 - free1);
	ksft_test_result(rd1 == rd0 && av1 - av0 == (long)size,
			 "read: 0 pages copied from pmem (pages_read +%ld), copy_avoided_bytes +%ld\n",
			 rd1 - rd0, av1 - av0);
	ksft_test_result(inplace_kb(mem) == (long)(size >> 10) &&
			 pt_smaps_kb(mem, "Swap") == (long)(size >> 10) &&
			 pt_smaps_kb(mem, "Anonymous") == 0 &&
			 pt_meminfo_kb("PmswapInPlace") >= (long)(size >> 10) &&
			 pt_stat_key(dev.stats, "inplace_pte_mapped_now") >= nr,
			 "read: smaps PmswapInPlace %ld kB, Swap %ld kB, Anonymous %ld kB; meminfo PmswapInPlace %ld kB; pte_mapped_now %ld\n",
			 inplace_kb(mem), pt_smaps_kb(mem, "Swap"),
			 pt_smaps_kb(mem, "Anonymous"), pt_meminfo_kb("PmswapInPlace"),
			 pt_stat_key(dev.stats, "inplace_pte_mapped_now"));
	ksft_test_result(pt_verify(mem, size, 11) == 0, "read: data intact in place\n");

	/* The same read-back with policy never, in the same boot. */
	set_policy("never");
	mem2 = swapped_small(size, 12);
	rd0 = pt_stat_key(dev.stats, "pages_read");
	t_never = pt_now();
	pt_touch_read(mem2, size);
	t_never = pt_now() - t_never;
	rd1 = pt_stat_key(dev.stats, "pages_read");
	ksft_test_result(rd1 - rd0 == nr && inplace_kb(mem2) == 0 && pt_verify(mem2, size, 12) == 0,
			 "never: %ld pages copied, none mapped in place, data intact\n",
			 rd1 - rd0);
	ksft_print_msg("read-back %zu MiB of 4 KiB pages: in place %.3f s, copy %.3f s, ratio never/read %.1f\n",
		       size >> 20, t_read, t_never, t_read > 0 ? t_never / t_read : 0);
	pt_free_small(mem2, size);
	set_policy("read");

	/* MADV_PAGEOUT of in-place pages: swap entries again, no I/O */
	{
		long out0 = pt_vmstat("pswpout"), un0 = pt_vmstat("pmswap_inplace_pte_revert");

		pt_pageout(mem, size);
		ksft_test_result(pt_vmstat("pswpout") == out0 &&
				 pt_vmstat("pmswap_inplace_pte_revert") - un0 >= nr &&
				 inplace_kb(mem) == 0 &&
				 pt_smaps_kb(mem, "Swap") == (long)(size >> 10),
				 "pageout: in-place pages are swap entries again without I/O (pswpout +%ld, unmap +%ld)\n",
				 pt_vmstat("pswpout") - out0,
				 pt_vmstat("pmswap_inplace_pte_revert") - un0);
	}
	ksft_test_result(pt_verify(mem, size, 11) == 0 &&
			 inplace_kb(mem) == (long)(size >> 10),
			 "read: mapped in place again after pageout, data intact\n");
	pt_free_small(mem, size);
}

/*
 * 1b. Fault-around: a fault maps the eligible swap entries of its aligned
 * fault_around_kb window in place with its page, within its VMA; 0 turns
 * it off. Zero-filled slots (the zeromap) are left to their own faults.
 */
static void case_fault_around(void)
{
	size_t size = MIB(4), win = 64 << 10;
	long nr = PAGES(size), faults, a0, around, zero_bad = 0, in1, in2;
	char *mem, *raw, *z, old[32] = "", val[32] = "";
	struct pt_faults f0;
	int i, einval;

	pt_read_str(KNOBS "fault_around_kb", old, sizeof(old));
	einval = pt_write_str(KNOBS "fault_around_kb", "4096") &&
		 pt_write_str(KNOBS "fault_around_kb", "64k") &&
		 !pt_write_str(KNOBS "fault_around_kb", "100") &&
		 !pt_read_str(KNOBS "fault_around_kb", val, sizeof(val)) &&
		 atoi(val) == 64;
	ksft_test_result(atoi(old) == 64 && einval,
			 "fault-around: default %d kB; 4096 and \"64k\" refused, 100 rounds down to %d kB\n",
			 atoi(old), atoi(val));
	pt_write_str(KNOBS "fault_around_kb", "64");

	/* one fault per 64 KiB window (one more if not aligned), all in place */
	mem = swapped_small(size, 15);
	a0 = pt_stat_key(dev.stats, "inplace_pte_maps_around");
	pt_faults_now(&f0);
	pt_touch_read(mem, size);
	faults = pt_faults_since(&f0, NULL);
	around = pt_stat_key(dev.stats, "inplace_pte_maps_around") - a0;
	ksft_test_result(faults <= (long)(size / win) + 8 &&
			 around >= nr - (long)(size / win) - 1 &&
			 inplace_kb(mem) == (long)(size >> 10) &&
			 pt_verify(mem, size, 15) == 0,
			 "fault-around 64 kB: %ld faults for %ld pages, %ld mapped around a fault, data intact\n",
			 faults, nr, around);
	pt_free_small(mem, size);

	/* off: one fault per page */
	pt_write_str(KNOBS "fault_around_kb", "0");
	mem = swapped_small(size, 16);
	pt_faults_now(&f0);
	pt_touch_read(mem, size);
	faults = pt_faults_since(&f0, NULL);
	ksft_test_result(faults >= nr && inplace_kb(mem) == (long)(size >> 10) &&
			 pt_verify(mem, size, 16) == 0,
			 "fault-around 0: %ld faults for %ld pages, data intact\n",
			 faults, nr);
	pt_free_small(mem, size);
	pt_write_str(KNOBS "fault_around_kb", "64");

	/*
	 * A fault on the first page of a VMA maps nothing of the next one:
	 * 16 pages, one window, between PROT_NONE guards; its second half
	 * read-only, a VMA of its own.
	 */
	raw = mmap(NULL, 3 * win, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		ksft_exit_fail_perror("mmap");
	mem = (char *)(((uintptr_t)raw + win - 1) & ~(uintptr_t)(win - 1));
	if (mprotect(mem, win, PROT_READ | PROT_WRITE) ||
	    madvise(mem, win, MADV_NOHUGEPAGE))
		ksft_exit_fail_perror("mprotect");
	pt_fill(mem, 16 * PT_PAGE_SIZE, 17);
	if (mprotect(mem + 8 * PT_PAGE_SIZE, 8 * PT_PAGE_SIZE, PROT_READ))
		ksft_exit_fail_perror("mprotect");
	for (i = 0; i < 5 && pt_smaps_kb(mem, "Swap") + pt_smaps_kb(mem + 8 * PT_PAGE_SIZE, "Swap") != 64; i++)
		pt_pageout(mem, 16 * PT_PAGE_SIZE);
	pt_touch_read(mem, PT_PAGE_SIZE);
	in1 = inplace_kb(mem);
	in2 = inplace_kb(mem + 8 * PT_PAGE_SIZE);
	ksft_test_result(in1 == 32 && in2 == 0 &&
			 pt_smaps_kb(mem + 8 * PT_PAGE_SIZE, "Swap") == 32 &&
			 pt_verify(mem, 16 * PT_PAGE_SIZE, 17) == 0,
			 "fault-around stops at the VMA: %ld kB in place in it, %ld kB in the next, data intact\n",
			 in1, in2);
	munmap(raw, 3 * win);

	/* every 4th page zero-filled: those are read into DRAM, not mapped */
	mem = alloc_small(MIB(1));
	pt_fill(mem, MIB(1), 18);
	for (z = mem; z < mem + MIB(1); z += 4 * PT_PAGE_SIZE)
		memset(z, 0, PT_PAGE_SIZE);
	for (i = 0; i < 5 && pt_smaps_kb(mem, "Swap") != 1024; i++)
		pt_pageout(mem, MIB(1));
	pt_touch_read(mem, MIB(1));
	for (z = mem; z < mem + MIB(1); z += PT_PAGE_SIZE) {
		size_t k = (z - mem) / PT_PAGE_SIZE;

		if (k % 4 == 0)
			zero_bad += z[0] || memcmp(z, z + 1, PT_PAGE_SIZE - 1);
		else
			zero_bad += pt_verify_range(mem, k * PT_PAGE_SIZE, PT_PAGE_SIZE, 18);
	}
	ksft_test_result(inplace_kb(mem) == 768 &&
			 pt_smaps_kb(mem, "Anonymous") == 256 && zero_bad == 0,
			 "fault-around skips zero-filled slots: %ld kB in place, %ld kB in DRAM, %ld bad pages\n",
			 inplace_kb(mem), pt_smaps_kb(mem, "Anonymous"), zero_bad);
	pt_free_small(mem, MIB(1));
}

/* 2. Writes under each policy land where the policy says, data correct. */
static void case_writes(void)
{
	size_t size = MIB(2);
	long nr = PAGES(size), m0, p0, faults;
	struct pt_faults f0;
	char *mem;

	/* read: the first write to an in-place page promotes it */
	set_policy("read");
	mem = swapped_small(size, 21);
	pt_touch_read(mem, size);
	p0 = pt_vmstat("pmswap_inplace_pte_promote");
	pt_fill(mem, size, 22);
	ksft_test_result(pt_vmstat("pmswap_inplace_pte_promote") - p0 >= nr &&
			 inplace_kb(mem) == 0 &&
			 pt_smaps_kb(mem, "Anonymous") == (long)(size >> 10) &&
			 pt_verify(mem, size, 22) == 0,
			 "read: writes promote every page to DRAM (promote +%ld), new data intact\n",
			 pt_vmstat("pmswap_inplace_pte_promote") - p0);
	pt_free_small(mem, size);

	/*
	 * always: write faults map writable in place, and fault-around maps
	 * the (exclusive) neighbours writable too: one fault per 64 KiB
	 * window (one more if the region is not aligned to it).
	 */
	set_policy("always");
	mem = swapped_small(size, 23);
	m0 = pt_vmstat("pmswap_inplace_pte_map");
	p0 = pt_vmstat("pmswap_inplace_pte_promote");
	pt_faults_now(&f0);
	pt_fill(mem, size, 24);
	faults = pt_faults_since(&f0, NULL);
	ksft_test_result(pt_vmstat("pmswap_inplace_pte_map") - m0 >= nr &&
			 faults <= nr / 16 + 8 &&
			 inplace_kb(mem) == (long)(size >> 10),
			 "always: writes map writable in place, %ld faults for %ld pages (map +%ld, promote +%ld)\n",
			 faults, nr, pt_vmstat("pmswap_inplace_pte_map") - m0,
			 pt_vmstat("pmswap_inplace_pte_promote") - p0);
	pt_pageout(mem, size);
	set_policy("never");
	ksft_test_result(inplace_kb(mem) == 0 && pt_verify(mem, size, 24) == 0 &&
			 pt_smaps_kb(mem, "Anonymous") == (long)(size >> 10),
			 "always: data written in place reads back correctly through DRAM\n");
	pt_free_small(mem, size);

	/* never: nothing mapped in place */
	mem = swapped_small(size, 25);
	pt_touch_read(mem, size);
	ksft_test_result(inplace_kb(mem) == 0 && pt_verify(mem, size, 25) == 0,
			 "never: read-back copies, nothing mapped in place\n");
	pt_free_small(mem, size);
	set_policy("read");
}

struct fork_arg {
	char *mem;
	size_t size;
};

static int fork_child(void *p)
{
	struct fork_arg *a = p;

	if (pt_verify(a->mem, a->size, 31))
		return 1;
	pt_fill(a->mem, a->size, 32);
	return pt_verify(a->mem, a->size, 32) ? 2 : 0;
}

/* 3. fork: both sides read the shared data, writes stay private. */
static void case_fork(const char *policy)
{
	size_t size = MIB(2);
	struct fork_arg a = { .size = size };
	long held0 = pt_swap_held_kb(), kb;
	int rc;

	set_policy(policy);
	a.mem = swapped_small(size, 31);
	/* "always" maps writable on a write fault: write the same data */
	if (!strcmp(policy, "always"))
		pt_fill(a.mem, size, 31);
	else
		pt_touch_read(a.mem, size);
	kb = inplace_kb(a.mem);
	rc = pt_fork_run(fork_child, &a);
	ksft_test_result(kb == (long)(size >> 10) && rc == 0 && pt_verify(a.mem, size, 31) == 0,
			 "fork (%s): %ld kB in place; child read the data and wrote its own (rc %d), parent's unchanged\n",
			 policy, kb, rc);
	pt_fill(a.mem, size, 33);
	ksft_test_result(pt_verify(a.mem, size, 33) == 0,
			 "fork (%s): parent writes after fork\n", policy);
	pt_free_small(a.mem, size);
	ksft_test_result(pt_swap_held_kb() <= held0 + pt_swap_slot_cache_kb(),
			 "fork (%s): swap held back to %ld kB (was %ld kB) after both are gone\n",
			 policy, pt_swap_held_kb(), held0);
	set_policy("read");
}

/* 4. munmap and exit free the slots of in-place pages. */
static int exit_child(void *p)
{
	char *mem = swapped_small(MIB(2), 41);

	pt_touch_read(mem, MIB(2));
	return inplace_kb(mem) == 2048 ? 0 : 1;
}

static void case_unmap_exit(void)
{
	long held0 = pt_swap_held_kb(), now0 = pt_stat_key(dev.stats, "inplace_pte_mapped_now");
	size_t size = MIB(2);
	char *mem;
	int rc;

	mem = swapped_small(size, 42);
	pt_touch_read(mem, size);
	ksft_test_result(pt_stat_key(dev.stats, "inplace_pte_mapped_now") - now0 == PAGES(size),
			 "munmap: %ld pages mapped in place\n",
			 pt_stat_key(dev.stats, "inplace_pte_mapped_now") - now0);
	pt_free_small(mem, size);
	ksft_test_result(pt_swap_held_kb() <= held0 + pt_swap_slot_cache_kb() &&
			 pt_stat_key(dev.stats, "inplace_pte_mapped_now") == now0,
			 "munmap: slots freed (held %ld kB, was %ld), nothing mapped in place\n",
			 pt_swap_held_kb(), held0);
	rc = pt_fork_run(exit_child, NULL);
	ksft_test_result(rc == 0 && pt_swap_held_kb() <= held0 + pt_swap_slot_cache_kb() &&
			 pt_stat_key(dev.stats, "inplace_pte_mapped_now") == now0,
			 "exit: child had 2 MiB in place (rc %d); slots freed at exit\n", rc);
}

/* 5. mprotect, mremap, DONTNEED, FREE, GUP. */
static void case_walkers(void)
{
	size_t size = MIB(2);
	long held0 = pt_swap_held_kb(), p0;
	char *mem, *dst, *moved;
	size_t i;

	/* mprotect read-only and back: data stays, a write then promotes */
	mem = swapped_small(size, 51);
	pt_touch_read(mem, size);
	ksft_test_result(mprotect(mem, size, PROT_READ) == 0 &&
			 inplace_kb(mem) == (long)(size >> 10) &&
			 pt_verify(mem, size, 51) == 0,
			 "mprotect: PROT_READ over in-place pages, still in place, data intact\n");
	p0 = pt_vmstat("pmswap_inplace_pte_promote");
	ksft_test_result(mprotect(mem, size, PROT_READ | PROT_WRITE) == 0 &&
			 (pt_fill(mem, size, 55), pt_verify(mem, size, 55) == 0) &&
			 pt_vmstat("pmswap_inplace_pte_promote") - p0 >= PAGES(size),
			 "mprotect: PROT_WRITE back, writes promote (+%ld), data correct\n",
			 pt_vmstat("pmswap_inplace_pte_promote") - p0);
	pt_free_small(mem, size);

	/* mremap: in-place PTEs move with the data */
	mem = swapped_small(size, 52);
	pt_touch_read(mem, size);
	dst = alloc_small(size);
	moved = mremap(mem, size, size, MREMAP_MAYMOVE | MREMAP_FIXED, dst);
	ksft_test_result(moved == dst && inplace_kb(moved) == (long)(size >> 10) &&
			 pt_verify(moved, size, 52) == 0,
			 "mremap: in-place pages move (%ld kB in place), data intact\n",
			 inplace_kb(moved));
	munmap(mem + size, PT_PAGE_SIZE);	/* the old guard */
	pt_free_small(moved, size);

	/* MADV_DONTNEED drops them and frees the slots */
	mem = swapped_small(size, 53);
	pt_touch_read(mem, size);
	madvise(mem, size, MADV_DONTNEED);
	for (i = 0; i < size; i += PT_PAGE_SIZE)
		if (mem[i])
			break;
	ksft_test_result(i == size && inplace_kb(mem) == 0 &&
			 pt_swap_held_kb() <= held0 + pt_swap_slot_cache_kb(),
			 "MADV_DONTNEED: in-place pages dropped, read as zero, slots freed\n");
	pt_free_small(mem, size);

	/* MADV_FREE has no DRAM to free: the pages stay in place, intact */
	mem = swapped_small(size, 56);
	pt_touch_read(mem, size);
	madvise(mem, size, MADV_FREE);
	ksft_test_result(inplace_kb(mem) == (long)(size >> 10) && pt_verify(mem, size, 56) == 0,
			 "MADV_FREE: in-place pages stay (no DRAM to free), data intact\n");
	pt_free_small(mem, size);

	/* GUP: /proc/self/mem reads fault the pages into DRAM first */
	{
		char *buf = malloc(size);
		int fd = open("/proc/self/mem", O_RDONLY);

		mem = swapped_small(size, 54);
		pt_touch_read(mem, size);
		p0 = pt_vmstat("pmswap_inplace_pte_promote");
		ksft_test_result(fd >= 0 && buf &&
				 pread(fd, buf, size, (off_t)(uintptr_t)mem) == (ssize_t)size &&
				 pt_verify(buf, size, 54) == 0 &&
				 pt_vmstat("pmswap_inplace_pte_promote") - p0 >= PAGES(size) &&
				 inplace_kb(mem) == 0 && pt_verify(mem, size, 54) == 0,
				 "GUP: /proc/self/mem read of in-place pages promotes them (+%ld), data intact\n",
				 pt_vmstat("pmswap_inplace_pte_promote") - p0);
		if (fd >= 0)
			close(fd);
		free(buf);
		pt_free_small(mem, size);
	}
}

/* 6. A FOLL_LONGTERM pin moves the data to DRAM first. */
static void case_longterm(void)
{
	size_t size = MIB(1);
	struct gup_test g = { 0 };
	char *mem;
	int fd, ret;

	fd = open("/sys/kernel/debug/gup_test", O_RDWR);
	if (fd < 0) {
		ksft_test_result_skip("FOLL_LONGTERM: no gup_test (%s)\n", strerror(errno));
		return;
	}
	mem = swapped_small(size, 61);
	pt_touch_read(mem, size);
	g.addr = (uintptr_t)mem;
	g.size = size;
	g.nr_pages_per_call = PAGES(size);
	ret = ioctl(fd, PIN_LONGTERM_BENCHMARK, &g);
	ksft_test_result(ret == 0 && inplace_kb(mem) == 0 &&
			 pt_smaps_kb(mem, "Anonymous") == (long)(size >> 10) &&
			 pt_verify(mem, size, 61) == 0,
			 "FOLL_LONGTERM: pin moved in-place pages to DRAM (ret %d, in place %ld kB)\n",
			 ret, inplace_kb(mem));
	close(fd);
	pt_free_small(mem, size);
}

/* 7. memcg: in-place memory is swap, not DRAM, and memory.stat shows it */
#define CG "pmswap-pte-inplace"

static int memcg_child(void *arg, int fd)
{
	long out[4];
	size_t size = MIB(4);
	char *mem;

	if (pt_memcg_enter(CG))
		return 1;
	mem = swapped_small(size, 66);
	pt_touch_read(mem, size);
	out[0] = pt_memcg_stat(CG, "memory.stat", "pmswap_inplace");
	out[1] = pt_memcg_stat(CG, "memory.stat", "anon");
	out[2] = pt_memcg_read_long(CG, "memory.swap.current");
	out[3] = pt_verify(mem, size, 66);
	if (write(fd, out, sizeof(out)) != sizeof(out))
		return 2;
	pt_free_small(mem, size);
	return pt_memcg_stat(CG, "memory.stat", "pmswap_inplace") == 0 ? 0 : 3;
}

static void case_memcg(void)
{
	long v[4] = { -1, -1, -1, -1 };
	int rc;

	if (pt_memcg_create(CG)) {
		ksft_test_result_fail("memcg: cannot create %s\n", CG);
		return;
	}
	rc = pt_fork_report(memcg_child, NULL, v, sizeof(v));
	rc = rc >= 0 && WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
	ksft_test_result(rc == 0 && v[0] == (long)MIB(4) && v[1] < (long)MIB(2) &&
			 v[2] >= (long)MIB(4) && v[3] == 0,
			 "memcg: memory.stat pmswap_inplace %ld kB, anon %ld kB, memory.swap.current %ld kB; 0 after munmap (rc %d)\n",
			 v[0] >> 10, v[1] >> 10, v[2] >> 10, rc);
	pt_memcg_destroy(CG);
}

/* 8. A hot page is promoted within a bounded time; a cold one stays. */
static void case_promotion(void)
{
	size_t size = 16 * PT_PAGE_SIZE;
	char *hot, *cold;
	long p0, rec0;
	double t0, t = -1;
	bool in0;
	int i;

	pt_write_str(KNOBS "promote_threshold", "2");
	pt_write_str(KNOBS "promote_interval_ms", "100");
	rec0 = pt_stat_key(dev.stats, "inplace_slot_records");
	hot = swapped_small(size, 71);
	cold = swapped_small(size, 72);
	pt_touch_read(hot, size);
	pt_touch_read(cold, size);
	/* both start in place: a page that never was is not a promotion */
	in0 = inplace_kb(hot) == (long)(size >> 10) &&
	      inplace_kb(cold) == (long)(size >> 10);
	if (!in0)
		ksft_print_msg("promotion: in place at the start: hot %ld kB, cold %ld kB\n",
			       inplace_kb(hot), inplace_kb(cold));
	p0 = pt_vmstat("pmswap_inplace_pte_promote");
	t0 = pt_now();
	for (i = 0; i < 1000; i++) {
		pt_touch_read(hot, size);
		if (inplace_kb(hot) == 0 &&
		    pt_smaps_kb(hot, "Anonymous") == (long)(size >> 10)) {
			t = pt_now() - t0;
			break;
		}
		usleep(10000);
	}
	ksft_test_result(in0 && t >= 0 && pt_verify(hot, size, 71) == 0,
			 "promotion: hot pages moved to DRAM after %.2f s (bound 10 s), data intact\n",
			 t);
	ksft_test_result(in0 && inplace_kb(cold) == (long)(size >> 10) &&
			 pt_vmstat("pmswap_inplace_pte_promote") - p0 >= PAGES(size) &&
			 pt_verify(cold, size, 72) == 0,
			 "promotion: cold pages stay in place (promote +%ld for %ld hot pages)\n",
			 pt_vmstat("pmswap_inplace_pte_promote") - p0, PAGES(size));
	pt_write_str(KNOBS "promote_interval_ms", "1000");
	pt_write_str(KNOBS "promote_threshold", "3");
	pt_free_small(hot, size);
	pt_free_small(cold, size);
	/* each promotion's fault took its bit: no record is left behind */
	ksft_test_result(pt_stat_key(dev.stats, "inplace_slot_records") == rec0,
			 "promotion: no slot record left once both regions are freed (%ld, before %ld)\n",
			 pt_stat_key(dev.stats, "inplace_slot_records"), rec0);
}

/*
 * 9a. The multi-gen LRU's page table walk (aging) meets in-place PTEs and
 * PMDs: it must leave them alone, without a warning (the console check
 * of the guest runner fails the run on one). Turned on for this case only.
 */
static long lru_gen_max_seq(void)
{
	FILE *f = fopen("/sys/kernel/debug/lru_gen", "r");
	char line[256], path[128];
	long seq, max = -1;
	int id, in_root = 0, node = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "memcg %d %127s", &id, path) == 2) {
			in_root = id == 1 && !strcmp(path, "/");
			continue;
		}
		if (sscanf(line, " node %d", &node) == 1)
			continue;
		if (in_root && node == 0 && sscanf(line, " %ld", &seq) == 1 && seq > max)
			max = seq;
	}
	fclose(f);
	return max;
}

static void case_mglru(void)
{
	size_t size = MIB(2);
	char old[64] = "", cmd[96];
	char *mem, *thp;
	long seq = -1;
	int i, ok;

	if (pt_read_str("/sys/kernel/mm/lru_gen/enabled", old, sizeof(old))) {
		ksft_test_result_skip("MGLRU walk: no multi-gen LRU in this kernel\n");
		return;
	}
	mem = swapped_small(size, 96);
	thp = pt_alloc_thp(size);
	if (!thp)
		ksft_exit_fail_perror("mmap");
	pt_fill(thp, size, 97);
	pt_pageout(thp, size);
	if (pt_write_str("/sys/kernel/mm/lru_gen/enabled", "y")) {
		ksft_test_result_fail("MGLRU walk: cannot enable the multi-gen LRU\n");
		return;
	}
	/* young, so that the walk looks at them */
	pt_touch_read(mem, size);
	pt_touch_read(thp, size);
	ok = inplace_kb(mem) == (long)(size >> 10) && inplace_kb(thp) == (long)(size >> 10);
	/*
	 * "+ memcg node seq swappiness force_scan": age, walking every mm.
	 * An aging pass that meets one already running (kswapd's) does not
	 * advance the generation: ask again.
	 */
	for (i = 0; i < 10; i++) {
		seq = lru_gen_max_seq();
		snprintf(cmd, sizeof(cmd), "+ 1 0 %ld 1 1", seq);
		if (seq < 0 || pt_write_str("/sys/kernel/debug/lru_gen", cmd) ||
		    lru_gen_max_seq() > seq)
			break;
		usleep(100000);
	}
	ok = ok && seq >= 0 && lru_gen_max_seq() > seq;
	ksft_test_result(ok &&
			 inplace_kb(mem) == (long)(size >> 10) &&
			 inplace_kb(thp) == (long)(size >> 10) &&
			 pt_verify(mem, size, 96) == 0 && pt_verify(thp, size, 97) == 0,
			 "MGLRU walk: aging (seq %ld -> %ld) walked in-place PTEs and PMDs, left them in place, data intact\n",
			 seq, lru_gen_max_seq());
	old[strcspn(old, "\n")] = 0;
	pt_write_str("/sys/kernel/mm/lru_gen/enabled", old);
	pt_free_small(mem, size);
	pt_free_thp(thp, size);
}

/*
 * 15. GUP that takes no page: MADV_POPULATE_READ maps the slots in place
 * as user reads would, with no copy and no DRAM; again, it finds them
 * populated and promotes nothing. MADV_POPULATE_WRITE needs them
 * writable: under "read" that promotes them, under "always" (one owner)
 * they are mapped writable in place.
 */
static void case_populate(void)
{
	size_t size = MIB(2);
	long nr = PAGES(size), rd0, m0, p0, ret;
	char *mem;

	set_policy("read");
	mem = swapped_small(size, 95);
	rd0 = pt_stat_key(dev.stats, "pages_read");
	m0 = pt_vmstat("pmswap_inplace_pte_map");
	p0 = pt_vmstat("pmswap_inplace_pte_promote");
	ret = madvise(mem, size, MADV_POPULATE_READ);
	ksft_test_result(ret == 0 && inplace_kb(mem) == (long)(size >> 10) &&
			 pt_smaps_kb(mem, "Anonymous") == 0 &&
			 pt_stat_key(dev.stats, "pages_read") == rd0 &&
			 pt_vmstat("pmswap_inplace_pte_map") - m0 >= nr &&
			 pt_vmstat("pmswap_inplace_pte_promote") == p0,
			 "MADV_POPULATE_READ: %ld kB in place, %ld kB in DRAM, pages_read +%ld, maps +%ld, promotions +%ld (ret %ld)\n",
			 inplace_kb(mem), pt_smaps_kb(mem, "Anonymous"),
			 pt_stat_key(dev.stats, "pages_read") - rd0,
			 pt_vmstat("pmswap_inplace_pte_map") - m0,
			 pt_vmstat("pmswap_inplace_pte_promote") - p0, ret);
	ret = madvise(mem, size, MADV_POPULATE_READ);
	ksft_test_result(ret == 0 && inplace_kb(mem) == (long)(size >> 10) &&
			 pt_vmstat("pmswap_inplace_pte_promote") == p0 &&
			 pt_verify(mem, size, 95) == 0,
			 "MADV_POPULATE_READ again: still in place, nothing promoted, data intact (ret %ld)\n",
			 ret);
	ret = madvise(mem, size, MADV_POPULATE_WRITE);
	ksft_test_result(ret == 0 && inplace_kb(mem) == 0 &&
			 pt_smaps_kb(mem, "Anonymous") == (long)(size >> 10) &&
			 pt_vmstat("pmswap_inplace_pte_promote") - p0 >= nr &&
			 pt_verify(mem, size, 95) == 0,
			 "MADV_POPULATE_WRITE under read: promoted (+%ld), %ld kB in DRAM, data intact (ret %ld)\n",
			 pt_vmstat("pmswap_inplace_pte_promote") - p0,
			 pt_smaps_kb(mem, "Anonymous"), ret);
	pt_free_small(mem, size);

	set_policy("always");
	mem = swapped_small(size, 96);
	p0 = pt_vmstat("pmswap_inplace_pte_promote");
	ret = madvise(mem, size, MADV_POPULATE_WRITE);
	ksft_test_result(ret == 0 && inplace_kb(mem) == (long)(size >> 10) &&
			 pt_smaps_kb(mem, "Anonymous") == 0 &&
			 pt_vmstat("pmswap_inplace_pte_promote") == p0 &&
			 pt_verify(mem, size, 96) == 0 &&
			 (pt_fill(mem, size, 97), pt_verify(mem, size, 97) == 0) &&
			 inplace_kb(mem) == (long)(size >> 10),
			 "MADV_POPULATE_WRITE under always: %ld kB writable in place, writes land there, data correct (ret %ld)\n",
			 inplace_kb(mem), ret);
	pt_free_small(mem, size);
	set_policy("read");
}

/*
 * 16. mlock: locked memory lives in DRAM. mm_populate() is GUP without
 * pages too, but it must not find in-place pages populated: read-only
 * ones in a PROT_READ VMA under "read", writable ones under "always".
 */
static void case_mlock(void)
{
	static const char * const policy[] = { "read", "always" };
	size_t size = MIB(1);
	long in0;
	char *mem;
	int i, ret;

	for (i = 0; i < 2; i++) {
		set_policy(policy[i]);
		mem = swapped_small(size, 98 + i);
		pt_touch_read(mem, size);
		in0 = inplace_kb(mem);
		if (i == 0 && mprotect(mem, size, PROT_READ))
			ksft_exit_fail_perror("mprotect");
		ret = mlock(mem, size);
		ksft_test_result(in0 == (long)(size >> 10) && ret == 0 &&
				 inplace_kb(mem) == 0 &&
				 pt_smaps_kb(mem, "Anonymous") == (long)(size >> 10) &&
				 pt_verify(mem, size, 98 + i) == 0,
				 "mlock (%s%s): in-place pages brought into DRAM (%ld kB in place before, %ld after), data intact\n",
				 policy[i], i == 0 ? ", PROT_READ" : "", in0,
				 inplace_kb(mem));
		munlock(mem, size);
		pt_free_small(mem, size);
	}
	set_policy("read");
}

int main(int argc, char **argv)
{
	size_t size = MIB(argc > 1 ? atol(argv[1]) : 32);
	int cpu;

	ksft_print_header();
	/* the first clock_gettime() faults the vDSO data page in: not later */
	pt_now();
	/* on pmem, a kernel without map in place fails; on zram, skip */
	if (pt_inplace_dev_find(&dev)) {
		if (pt_swap_on_pmem())
			ksft_exit_fail_msg("swap is on pmem, but this kernel does not map it in place\n");
		ksft_exit_skip("swap is not on a pmem device\n");
	}
	if (pt_stat_key(dev.stats, "inplace_pte_maps") < 0)
		ksft_exit_fail_msg("this kernel maps only huge swap entries in place\n");
	ksft_print_msg("device %s\n", dev.dev);
	cpu = pt_pin_cpu();
	if (cpu < 0)
		ksft_exit_fail_perror("sched_setaffinity");
	ksft_print_msg("pinned to CPU %d (MADV_PAGEOUT must find every page)\n", cpu);

	ksft_set_plan(47);
	case_acceptance(size);
	case_fault_around();
	case_writes();
	case_fork("read");
	case_fork("always");
	case_unmap_exit();
	case_walkers();
	case_longterm();
	case_memcg();
	case_promotion();
	case_metadata();
	case_mglru();
	case_populate();
	case_mlock();
	set_policy("read");
	ksft_finished();
}
