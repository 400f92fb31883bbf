// SPDX-License-Identifier: GPL-2.0
/*
 * Map in place: data swapped out to pmem comes back by mapping its pmem
 * into the process, not by copying it into DRAM. Two levels: a THP's
 * 2 MiB extent mapped by one PMD, and 4 KiB slots mapped by PTEs.
 *
 * Shaped like tools/testing/selftests/mm/cow.c: a table of cases, each
 * run at each level it applies to and under each policy it names, the
 * plan computed from the table, every check its own result. Every case
 * makes its own regions and sets the policy it needs; none depends on
 * another having run. Cases that change the device for good (memory
 * failure, swapoff) are in inplace_destructive.
 *
 * Acceptance (policy "read", one access per 4 KiB; 256 MiB of THPs and
 * 32 MiB of 4 KiB pages by default): at most one fault per THP or page,
 * MemFree drops by less than 8 MiB, nothing copied (the device's
 * pages_read), data intact; the same read under "never" in the same boot
 * is timed for the ratio (printed, not asserted: times are for the
 * benchmark). Then every operation that meets an in-place mapping, each
 * checked on the data: writes under each policy, fork, munmap and exit
 * (slots freed; one TLB flush per extent, not per mm), mprotect, mremap,
 * MADV_DONTNEED / FREE / PAGEOUT, GUP with and without pages
 * (/proc/self/mem, MADV_POPULATE_*, mlock), a FOLL_LONGTERM pin, O_DIRECT
 * from and into in-place pages, memcg accounting (memory.stat
 * pmswap_inplace, not anon), the promotion of hot data while cold data
 * stays, the multi-gen LRU's walk, bad knob values. At PTE level also
 * fault-around and the per-slot records (stats/inplace_slot_records,
 * inplace_metadata_bytes; the bytes per TiB of device are printed).
 *
 * The vmstat counters are global: at PMD level nothing else makes huge
 * entries, and deltas are exact; other processes' small pages are mapped
 * in place and promoted too, so at PTE level deltas are lower bounds and
 * the exact per-region figures come from smaps.
 *
 * Skips as a whole when swap is not on a DAX pmem device (zram).
 * usage: inplace [PMD MiB [PTE MiB]]   (defaults 256 and 32: acceptance)
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

#define PMD	(&pt_level_pmd)
#define PTE	(&pt_level_pte)

static const struct pt_level * const levels[] = { PMD, PTE };
/* bytes for the acceptance case, per level (argv can change them) */
static size_t acceptance[] = { MIB(256), MIB(32) };

static struct pt_inplace_dev dev;

static void set_policy(const char *p)
{
	if (pt_write_str(dev.policy, p))
		ksft_exit_fail_msg("cannot set policy %s\n", p);
}

static long units(const struct pt_level *l, size_t size)
{
	return size / l->unit;
}

/* A vmstat delta of @got for @want units at level @l. */
static bool delta_ok(const struct pt_level *l, long got, long want)
{
	return l->exact ? got == want : got >= want;
}

static char *alloc_at(const struct pt_level *l, size_t size)
{
	char *mem = pt_level_alloc(l, size);

	if (!mem)
		ksft_exit_fail_perror("mmap");
	return mem;
}

/* A region at level @l filled with @seed's pattern and swapped out. */
static char *swapped(const struct pt_level *l, size_t size, uint64_t seed)
{
	char *mem = pt_level_swapped(l, size, seed);

	if (!mem)
		ksft_exit_fail_perror("swap out");
	return mem;
}

/* ... and read back, mapped in place under "read" and "always" */
static char *in_place(const struct pt_level *l, size_t size, uint64_t seed)
{
	char *mem = swapped(l, size, seed);

	pt_touch_read(mem, size);
	return mem;
}

/* The size most cases use: a few extents, or one extent of slots. */
static size_t small_size(const struct pt_level *l)
{
	return l == PMD ? MIB(8) : MIB(2);
}

/* 1. The acceptance round trip: policy read, then never in the same boot. */
static void case_acceptance(const struct pt_level *l, const char *policy)
{
	size_t size = acceptance[l != PMD];
	long nr = units(l, size), faults, free0, free1, rd0, rd1;
	long map0, map1, av0, av1, kb, out0, un0, coll;
	struct pt_faults f0;
	double t_read, t_never;
	char *mem;

	/*
	 * No promotion scanner here (for_each_run() stops it for every
	 * case): reading and checking 256 MiB takes longer than
	 * promote_threshold scans on the debug kernel, and one hot extent
	 * promoted to DRAM is then written out with I/O at the MADV_PAGEOUT
	 * below (seen once: pswpout +512, unmap +127).
	 */
	mem = swapped(l, size, 11);
	ksft_test_result(pt_smaps_kb(mem, l->swapped) == (long)(size >> 10) &&
			 pt_smaps_kb(mem, "Rss") == 0,
			 "%s acceptance: %zu MiB swapped out (%s %ld kB, Rss %ld kB)\n",
			 l->name, size >> 20, l->swapped,
			 pt_smaps_kb(mem, l->swapped), pt_smaps_kb(mem, "Rss"));

	coll = pt_vmstat("thp_collapse_alloc");
	free0 = pt_meminfo_kb("MemFree");
	rd0 = pt_stat_key(dev.stats, "pages_read");
	map0 = pt_vmstat(l->map);
	av0 = pt_stat_key(dev.stats, "inplace_copy_avoided_bytes");
	pt_faults_now(&f0);
	t_read = pt_now();
	pt_touch_read(mem, size);
	t_read = pt_now() - t_read;
	faults = pt_faults_since(&f0, NULL);
	free1 = pt_meminfo_kb("MemFree");
	/* MemFree is global: a THP khugepaged builds meanwhile is not ours */
	coll = pt_vmstat("thp_collapse_alloc") - coll;
	rd1 = pt_stat_key(dev.stats, "pages_read");
	map1 = pt_vmstat(l->map);
	av1 = pt_stat_key(dev.stats, "inplace_copy_avoided_bytes");

	ksft_test_result(faults <= nr && delta_ok(l, map1 - map0, nr),
			 "%s acceptance: %ld faults for %ld units, %ld mapped in place\n",
			 l->name, faults, nr, map1 - map0);
	ksft_test_result(free0 - free1 < 8192 + coll * (long)(PT_PMD_SIZE >> 10),
			 "%s acceptance: MemFree dropped by %ld kB (< 8192, + 2048 per khugepaged collapse: %ld)\n",
			 l->name, free0 - free1, coll);
	ksft_test_result(rd1 == rd0 && av1 - av0 == (long)size,
			 "%s acceptance: 0 pages copied from pmem (pages_read +%ld), copy_avoided_bytes +%ld\n",
			 l->name, rd1 - rd0, av1 - av0);
	kb = pt_inplace_kb(mem);
	ksft_test_result(kb == (long)(size >> 10) &&
			 pt_smaps_kb(mem, "Swap") == (long)(size >> 10) &&
			 pt_smaps_kb(mem, l->dram) == 0 &&
			 pt_meminfo_kb("PmswapInPlace") >= (long)(size >> 10) &&
			 pt_stat_key(dev.stats, l->now) >= nr,
			 "%s acceptance: smaps PmswapInPlace %ld kB, Swap %ld kB, %s %ld kB; meminfo PmswapInPlace %ld kB; %s %ld\n",
			 l->name, kb, pt_smaps_kb(mem, "Swap"), l->dram,
			 pt_smaps_kb(mem, l->dram), pt_meminfo_kb("PmswapInPlace"),
			 l->now, pt_stat_key(dev.stats, l->now));
	ksft_test_result(pt_verify(mem, size, 11) == 0,
			 "%s acceptance: data intact in place\n", l->name);

	/* MADV_PAGEOUT of an in-place range: swap entries again, no I/O */
	out0 = pt_vmstat("pswpout");
	un0 = pt_vmstat(l->revert);
	pt_pageout(mem, size);
	ksft_test_result(pt_vmstat("pswpout") == out0 &&
			 delta_ok(l, pt_vmstat(l->revert) - un0, nr) &&
			 pt_inplace_kb(mem) == 0 &&
			 pt_smaps_kb(mem, l->swapped) == (long)(size >> 10),
			 "%s acceptance: pageout makes swap entries again without I/O (pswpout +%ld, revert +%ld)\n",
			 l->name, pt_vmstat("pswpout") - out0,
			 pt_vmstat(l->revert) - un0);
	ksft_test_result(pt_verify(mem, size, 11) == 0 &&
			 pt_inplace_kb(mem) == (long)(size >> 10),
			 "%s acceptance: mapped in place again after pageout, data intact\n",
			 l->name);
	pt_level_free(l, mem, size);

	/* The same read-back copied to DRAM, timed for the ratio. */
	set_policy("never");
	mem = swapped(l, size, 12);
	rd0 = pt_stat_key(dev.stats, "pages_read");
	pt_faults_now(&f0);
	t_never = pt_now();
	pt_touch_read(mem, size);
	t_never = pt_now() - t_never;
	faults = pt_faults_since(&f0, NULL);
	rd1 = pt_stat_key(dev.stats, "pages_read");
	ksft_test_result(rd1 - rd0 == (long)(size / PT_PAGE_SIZE) &&
			 pt_inplace_kb(mem) == 0 &&
			 pt_smaps_kb(mem, l->dram) == (long)(size >> 10) &&
			 pt_verify(mem, size, 12) == 0,
			 "%s never: %ld faults, %ld pages copied, %s %ld kB, data intact\n",
			 l->name, faults, rd1 - rd0, l->dram,
			 pt_smaps_kb(mem, l->dram));
	ksft_print_msg("%s read-back %zu MiB: in place %.3f s, copy %.3f s, ratio never/read %.1f\n",
		       l->name, size >> 20, t_read, t_never,
		       t_read > 0 ? t_never / t_read : 0);
	pt_level_free(l, mem, size);
}

/* 2. Writes land where the policy says, with the data correct. */
static void case_writes(const struct pt_level *l, const char *policy)
{
	size_t size = l == PMD ? MIB(16) : MIB(2);
	long nr = units(l, size), m0, p0, faults;
	/* a fault per extent; per 64 KiB window with fault-around */
	long bound = l == PMD ? nr : nr / 16 + 8;
	struct pt_faults f0;
	char *mem;

	if (!strcmp(policy, "read")) {
		/* the first write to in-place data promotes it */
		mem = in_place(l, size, 21);
		p0 = pt_vmstat(l->promote);
		pt_fill(mem, size, 22);
		ksft_test_result(delta_ok(l, pt_vmstat(l->promote) - p0, nr) &&
				 pt_inplace_kb(mem) == 0 &&
				 pt_smaps_kb(mem, l->dram) == (long)(size >> 10) &&
				 pt_verify(mem, size, 22) == 0,
				 "%s writes (read): promote every unit to DRAM (+%ld), new data intact\n",
				 l->name, pt_vmstat(l->promote) - p0);
	} else if (!strcmp(policy, "always")) {
		/* write faults map writable in place (exclusive data) */
		mem = swapped(l, size, 23);
		m0 = pt_vmstat(l->map);
		p0 = pt_vmstat(l->promote);
		pt_faults_now(&f0);
		pt_fill(mem, size, 24);
		faults = pt_faults_since(&f0, NULL);
		ksft_test_result(delta_ok(l, pt_vmstat(l->map) - m0, nr) &&
				 (!l->exact || pt_vmstat(l->promote) == p0) &&
				 faults <= bound &&
				 pt_inplace_kb(mem) == (long)(size >> 10),
				 "%s writes (always): map writable in place, %ld faults for %ld units (map +%ld, promote +%ld)\n",
				 l->name, faults, nr, pt_vmstat(l->map) - m0,
				 pt_vmstat(l->promote) - p0);
		pt_pageout(mem, size);
		set_policy("never");
		ksft_test_result(pt_inplace_kb(mem) == 0 &&
				 pt_verify(mem, size, 24) == 0 &&
				 pt_smaps_kb(mem, l->dram) == (long)(size >> 10),
				 "%s writes (always): data written in place reads back correctly through DRAM\n",
				 l->name);
	} else {
		/* never: nothing mapped in place */
		mem = swapped(l, size, 25);
		m0 = pt_vmstat(l->map);
		pt_touch_read(mem, size);
		ksft_test_result((!l->exact || pt_vmstat(l->map) == m0) &&
				 pt_inplace_kb(mem) == 0 &&
				 pt_verify(mem, size, 25) == 0,
				 "%s writes (never): read-back copies, nothing mapped in place\n",
				 l->name);
	}
	pt_level_free(l, mem, size);
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
static void case_fork(const struct pt_level *l, const char *policy)
{
	size_t size = small_size(l);
	struct fork_arg a = { .size = size };
	long held0 = pt_swap_held_kb(), kb;
	int rc;

	a.mem = swapped(l, size, 31);
	/* "always" maps writable on a write fault: write the same data */
	if (!strcmp(policy, "always"))
		pt_fill(a.mem, size, 31);
	else
		pt_touch_read(a.mem, size);
	kb = pt_inplace_kb(a.mem);
	rc = pt_fork_run(fork_child, &a);
	ksft_test_result(kb == (long)(size >> 10) && rc == 0 &&
			 pt_verify(a.mem, size, 31) == 0,
			 "%s fork (%s): %ld kB in place; child read the data and wrote its own (rc %d), parent's unchanged\n",
			 l->name, policy, kb, rc);
	pt_fill(a.mem, size, 33);
	ksft_test_result(pt_verify(a.mem, size, 33) == 0,
			 "%s fork (%s): parent writes after fork\n", l->name, policy);
	pt_level_free(l, a.mem, size);
	ksft_test_result(pt_swap_held_kb() <= held0 + pt_swap_slot_cache_kb(),
			 "%s fork (%s): swap held back to %ld kB (was %ld kB) after both are gone\n",
			 l->name, policy, pt_swap_held_kb(), held0);
}

/* 4. munmap and exit free the slots of in-place data. */
static int exit_child(void *p)
{
	const struct pt_level *l = p;
	size_t size = small_size(l);
	char *mem = in_place(l, size, 41);

	return pt_inplace_kb(mem) == (long)(size >> 10) ? 0 : 1;
}

static void case_unmap_exit(const struct pt_level *l, const char *policy)
{
	long held0 = pt_swap_held_kb(), now0 = pt_stat_key(dev.stats, l->now);
	size_t size = small_size(l);
	char *mem;
	int rc;

	mem = in_place(l, size, 42);
	ksft_test_result(pt_stat_key(dev.stats, l->now) - now0 == units(l, size),
			 "%s munmap: %ld units mapped in place\n", l->name,
			 pt_stat_key(dev.stats, l->now) - now0);
	pt_level_free(l, mem, size);
	ksft_test_result(pt_swap_held_kb() <= held0 + pt_swap_slot_cache_kb() &&
			 pt_stat_key(dev.stats, l->now) == now0,
			 "%s munmap: slots freed (held %ld kB, was %ld), nothing mapped in place\n",
			 l->name, pt_swap_held_kb(), held0);
	rc = pt_fork_run(exit_child, (void *)l);
	ksft_test_result(rc == 0 && pt_swap_held_kb() <= held0 + pt_swap_slot_cache_kb() &&
			 pt_stat_key(dev.stats, l->now) == now0,
			 "%s exit: child had %zu MiB in place (rc %d); slots freed at exit\n",
			 l->name, size >> 20, rc);
}

/*
 * 4a. Issue 14 item 9: a munmap of 32 extents mapped in place reverts each
 * one, and each revert flushed the whole mm (flush_tlb_mm(), addr 0 from
 * the zap path). Now each flushes its own 2 MiB: the full flushes of the
 * munmap stay far below one per extent. Counts from /proc/vmstat
 * (nr_tlb_local_flush_all, nr_tlb_remote_flush; CONFIG_DEBUG_TLBFLUSH in
 * configs/pmswap.config): the process is single-threaded, so its flushes
 * are local; other CPUs' flushes in the same window only add to the count.
 */
static void case_unmap_flush(const struct pt_level *l, const char *policy)
{
	size_t size = MIB(64);
	long all0, all1, one0, one1, in;
	char *mem;

	all0 = pt_vmstat("nr_tlb_local_flush_all");
	if (all0 < 0) {
		ksft_test_result_fail("%s munmap flush: no nr_tlb_local_flush_all in /proc/vmstat (CONFIG_DEBUG_TLBFLUSH)\n",
				      l->name);
		return;
	}
	mem = in_place(l, size, 43);
	in = pt_inplace_kb(mem);
	all0 = pt_vmstat("nr_tlb_local_flush_all");
	one0 = pt_vmstat("nr_tlb_local_flush_one");
	pt_level_free(l, mem, size);
	all1 = pt_vmstat("nr_tlb_local_flush_all");
	one1 = pt_vmstat("nr_tlb_local_flush_one");
	ksft_test_result(in == (long)(size >> 10) && all1 - all0 < 8,
			 "%s munmap flush: %ld kB in place, munmap made %ld full and %ld single TLB flushes (full < 8, 32 extents)\n",
			 l->name, in, all1 - all0, one1 - one0);
}

/*
 * 5. mprotect: read-only over in-place data, and back with writes, which
 * promote; a 4 KiB mprotect inside in-place data (splits a PMD).
 */
static void case_mprotect(const struct pt_level *l, const char *policy)
{
	size_t size = small_size(l);
	long p0, in1;
	char *mem;
	int ret;

	mem = in_place(l, size, 51);
	ksft_test_result(mprotect(mem, size, PROT_READ) == 0 &&
			 pt_verify(mem, size, 51) == 0,
			 "%s mprotect: PROT_READ over in-place data (%ld kB in place), data intact\n",
			 l->name, pt_inplace_kb(mem));
	pt_touch_read(mem, size);
	/*
	 * Writes bring the data into DRAM: in-place PTEs stay through the
	 * mprotect() and the writes promote them; mprotect() back to
	 * writable reverts an in-place PMD to its swap entry (as any PMD
	 * walker that changes it does), which the write faults in whole,
	 * with no promotion.
	 */
	p0 = pt_vmstat(l->promote);
	ret = mprotect(mem, size, PROT_READ | PROT_WRITE);
	in1 = pt_inplace_kb(mem);
	pt_fill(mem, size, 55);
	ksft_test_result(ret == 0 && pt_verify(mem, size, 55) == 0 &&
			 pt_inplace_kb(mem) == 0 &&
			 pt_smaps_kb(mem, l->dram) == (long)(size >> 10) &&
			 (l == PMD || delta_ok(l, pt_vmstat(l->promote) - p0, units(l, size))),
			 "%s mprotect: PROT_WRITE back (%ld kB in place), writes bring the data into DRAM (%s %ld kB, promote +%ld), data correct\n",
			 l->name, in1, l->dram, pt_smaps_kb(mem, l->dram),
			 pt_vmstat(l->promote) - p0);
	pt_level_free(l, mem, size);

	mem = in_place(l, size, 56);
	ksft_test_result(mprotect(mem + PT_PAGE_SIZE, PT_PAGE_SIZE, PROT_READ) == 0 &&
			 pt_verify(mem, size, 56) == 0,
			 "%s mprotect: 4 KiB inside in-place data, data intact\n",
			 l->name);
	pt_level_free(l, mem, size);
}

/*
 * 5a. mremap of in-place data: a PMD moves as its swap entry (the move
 * reverts it), a PTE moves in place.
 */
static void case_mremap(const struct pt_level *l, const char *policy)
{
	size_t size = small_size(l);
	const char *field = l == PMD ? "Swap" : "PmswapInPlace";
	char *mem, *dst, *moved;

	mem = in_place(l, size, 52);
	dst = alloc_at(l, size);
	moved = mremap(mem, size, size, MREMAP_MAYMOVE | MREMAP_FIXED, dst);
	ksft_test_result(moved == dst &&
			 pt_smaps_kb(moved, field) == (long)(size >> 10) &&
			 pt_verify(moved, size, 52) == 0,
			 "%s mremap: in-place data moves (%s %ld kB after), data intact\n",
			 l->name, field, moved == dst ? pt_smaps_kb(moved, field) : -1);
	if (l == PTE)
		munmap(mem + size, PT_PAGE_SIZE);	/* the old guard */
	pt_level_free(l, moved, size);
}

/* 5b. MADV_DONTNEED drops in-place data and frees the slots. */
static void case_dontneed(const struct pt_level *l, const char *policy)
{
	size_t size = small_size(l), i;
	long held0 = pt_swap_held_kb();
	char *mem;

	mem = in_place(l, size, 53);
	madvise(mem, size, MADV_DONTNEED);
	for (i = 0; i < size; i += PT_PAGE_SIZE)
		if (mem[i])
			break;
	ksft_test_result(i == size && pt_inplace_kb(mem) == 0 &&
			 pt_swap_held_kb() <= held0 + pt_swap_slot_cache_kb(),
			 "%s MADV_DONTNEED: in-place data dropped, reads as zero, slots freed\n",
			 l->name);
	pt_level_free(l, mem, size);
}

/*
 * 5c. MADV_FREE: an in-place PMD is dropped with its slots, as a clean
 * THP would be; in-place PTEs have no DRAM to free and stay, intact.
 */
static void case_free(const struct pt_level *l, const char *policy)
{
	size_t size = small_size(l), i;
	long held0 = pt_swap_held_kb();
	char *mem;
	bool ok;

	mem = in_place(l, size, 57);
	madvise(mem, size, MADV_FREE);
	if (l == PMD) {
		for (i = 0; i < size; i += PT_PAGE_SIZE)
			if (mem[i])
				break;
		ok = i == size && pt_inplace_kb(mem) == 0 &&
		     pt_swap_held_kb() <= held0 + pt_swap_slot_cache_kb();
	} else {
		ok = pt_inplace_kb(mem) == (long)(size >> 10) &&
		     pt_verify(mem, size, 57) == 0;
	}
	ksft_test_result(ok, "%s MADV_FREE: %s\n", l->name,
			 l == PMD ? "in-place THPs dropped, slots freed" :
				    "in-place pages stay (no DRAM to free), data intact");
	pt_level_free(l, mem, size);
}

/* 5d. GUP that takes pages (/proc/self/mem) promotes in-place data first. */
static void case_gup(const struct pt_level *l, const char *policy)
{
	size_t size = small_size(l);
	char *buf = malloc(size), *mem;
	int fd = open("/proc/self/mem", O_RDONLY);
	long p0;

	mem = in_place(l, size, 54);
	p0 = pt_vmstat(l->promote);
	ksft_test_result(fd >= 0 && buf &&
			 pread(fd, buf, size, (off_t)(uintptr_t)mem) == (ssize_t)size &&
			 pt_verify(buf, size, 54) == 0 &&
			 delta_ok(l, pt_vmstat(l->promote) - p0, units(l, size)) &&
			 pt_inplace_kb(mem) == 0 &&
			 pt_smaps_kb(mem, l->dram) == (long)(size >> 10) &&
			 pt_verify(mem, size, 54) == 0,
			 "%s GUP: /proc/self/mem read of in-place data promotes it (+%ld), data intact\n",
			 l->name, pt_vmstat(l->promote) - p0);
	if (fd >= 0)
		close(fd);
	free(buf);
	pt_level_free(l, mem, size);
}

/*
 * 6. GUP that takes no page: MADV_POPULATE_READ maps in place as user
 * reads would, with no copy and no DRAM; again, it finds the data
 * populated and promotes nothing. MADV_POPULATE_WRITE needs it writable:
 * under "read" that promotes it, under "always" (one owner) it is mapped
 * writable in place.
 */
static void case_populate(const struct pt_level *l, const char *policy)
{
	size_t size = small_size(l);
	long nr = units(l, size), rd0, m0, p0, ret;
	char *mem;

	if (!strcmp(policy, "always")) {
		mem = swapped(l, size, 96);
		p0 = pt_vmstat(l->promote);
		ret = madvise(mem, size, MADV_POPULATE_WRITE);
		ksft_test_result(ret == 0 && pt_inplace_kb(mem) == (long)(size >> 10) &&
				 pt_smaps_kb(mem, l->dram) == 0 &&
				 (!l->exact || pt_vmstat(l->promote) == p0) &&
				 pt_verify(mem, size, 96) == 0 &&
				 (pt_fill(mem, size, 97), pt_verify(mem, size, 97) == 0) &&
				 pt_inplace_kb(mem) == (long)(size >> 10),
				 "%s MADV_POPULATE_WRITE (always): %ld kB writable in place, writes land there, data correct (ret %ld)\n",
				 l->name, pt_inplace_kb(mem), ret);
		pt_level_free(l, mem, size);
		return;
	}
	mem = swapped(l, size, 95);
	rd0 = pt_stat_key(dev.stats, "pages_read");
	m0 = pt_vmstat(l->map);
	p0 = pt_vmstat(l->promote);
	ret = madvise(mem, size, MADV_POPULATE_READ);
	ksft_test_result(ret == 0 && pt_inplace_kb(mem) == (long)(size >> 10) &&
			 pt_smaps_kb(mem, l->dram) == 0 &&
			 pt_stat_key(dev.stats, "pages_read") == rd0 &&
			 pt_vmstat(l->map) - m0 >= nr &&
			 (!l->exact || pt_vmstat(l->promote) == p0),
			 "%s MADV_POPULATE_READ: %ld kB in place, %ld kB in DRAM, pages_read +%ld, maps +%ld, promotions +%ld (ret %ld)\n",
			 l->name, pt_inplace_kb(mem), pt_smaps_kb(mem, l->dram),
			 pt_stat_key(dev.stats, "pages_read") - rd0,
			 pt_vmstat(l->map) - m0, pt_vmstat(l->promote) - p0, ret);
	p0 = pt_vmstat(l->promote);
	ret = madvise(mem, size, MADV_POPULATE_READ);
	ksft_test_result(ret == 0 && pt_inplace_kb(mem) == (long)(size >> 10) &&
			 (!l->exact || pt_vmstat(l->promote) == p0) &&
			 pt_verify(mem, size, 95) == 0,
			 "%s MADV_POPULATE_READ again: still in place, nothing promoted, data intact (ret %ld)\n",
			 l->name, ret);
	ret = madvise(mem, size, MADV_POPULATE_WRITE);
	ksft_test_result(ret == 0 && pt_inplace_kb(mem) == 0 &&
			 pt_smaps_kb(mem, l->dram) == (long)(size >> 10) &&
			 delta_ok(l, pt_vmstat(l->promote) - p0, nr) &&
			 pt_verify(mem, size, 95) == 0,
			 "%s MADV_POPULATE_WRITE (read): promoted (+%ld), %ld kB in DRAM, data intact (ret %ld)\n",
			 l->name, pt_vmstat(l->promote) - p0,
			 pt_smaps_kb(mem, l->dram), ret);
	pt_level_free(l, mem, size);
}

/*
 * 6a. mlock: locked memory lives in DRAM. mm_populate() is GUP without
 * pages too, but it must not find in-place data populated: read-only in
 * a PROT_READ VMA under "read", writable under "always".
 */
static void case_mlock(const struct pt_level *l, const char *policy)
{
	bool ro = !strcmp(policy, "read");
	size_t size = l == PMD ? MIB(8) : MIB(1);
	long in0;
	char *mem;
	int ret;

	mem = in_place(l, size, 98 + ro);
	in0 = pt_inplace_kb(mem);
	if (ro && mprotect(mem, size, PROT_READ))
		ksft_exit_fail_perror("mprotect");
	ret = mlock(mem, size);
	ksft_test_result(in0 == (long)(size >> 10) && ret == 0 &&
			 pt_inplace_kb(mem) == 0 &&
			 pt_smaps_kb(mem, l->dram) == (long)(size >> 10) &&
			 pt_verify(mem, size, 98 + ro) == 0,
			 "%s mlock (%s%s): in-place data brought into DRAM (%ld kB in place before, %ld after), data intact\n",
			 l->name, policy, ro ? ", PROT_READ" : "", in0,
			 pt_inplace_kb(mem));
	munlock(mem, size);
	pt_level_free(l, mem, size);
}

/* 7. A FOLL_LONGTERM pin moves the data to DRAM first. */
static void case_longterm(const struct pt_level *l, const char *policy)
{
	size_t size = l == PMD ? MIB(4) : MIB(1);
	struct gup_test g = { 0 };
	char *mem;
	int fd, ret;

	fd = open("/sys/kernel/debug/gup_test", O_RDWR);
	if (fd < 0) {
		ksft_test_result_fail("%s FOLL_LONGTERM: no gup_test (%s)\n",
				      l->name, strerror(errno));
		return;
	}
	mem = in_place(l, size, 61);
	g.addr = (uintptr_t)mem;
	g.size = size;
	g.nr_pages_per_call = size / PT_PAGE_SIZE;
	ret = ioctl(fd, PIN_LONGTERM_BENCHMARK, &g);
	ksft_test_result(ret == 0 && pt_inplace_kb(mem) == 0 &&
			 pt_smaps_kb(mem, l->dram) == (long)(size >> 10) &&
			 pt_verify(mem, size, 61) == 0,
			 "%s FOLL_LONGTERM: pin moved in-place data to DRAM (ret %d, in place %ld kB)\n",
			 l->name, ret, pt_inplace_kb(mem));
	close(fd);
	pt_level_free(l, mem, size);
}

/* 7a. O_DIRECT from and into in-place data (a zram disk as the target) */
static void case_odirect(const struct pt_level *l, const char *policy)
{
	size_t size = l == PMD ? MIB(4) : MIB(1);
	ssize_t wr = -1, rd = -1;
	char *src, *dst;
	long p0, p1;
	int fd;

	if (!pt_path_exists("/sys/block/zram0") ||
	    (pt_read_long("/sys/block/zram0/disksize") == 0 &&
	     pt_write_str("/sys/block/zram0/disksize", "16M"))) {
		ksft_test_result_fail("%s O_DIRECT: no zram0 disk to write to\n",
				      l->name);
		return;
	}
	fd = open("/dev/zram0", O_RDWR | O_DIRECT);
	if (fd < 0) {
		ksft_test_result_fail("%s O_DIRECT: open /dev/zram0: %s\n",
				      l->name, strerror(errno));
		return;
	}
	src = in_place(l, size, 63);
	dst = in_place(l, size, 64);
	p0 = pt_vmstat(l->promote);
	if (pt_inplace_kb(src) == (long)(size >> 10) && pt_inplace_kb(dst) == (long)(size >> 10)) {
		wr = pwrite(fd, src, size, 0);	/* GUP reads the in-place pages */
		rd = pread(fd, dst, size, 0);	/* GUP writes into them */
	}
	p1 = pt_vmstat(l->promote);
	ksft_test_result(wr == (ssize_t)size && rd == (ssize_t)size &&
			 pt_verify(src, size, 63) == 0 && pt_verify(dst, size, 63) == 0 &&
			 delta_ok(l, p1 - p0, 2 * units(l, size)),
			 "%s O_DIRECT: write from and read into in-place data (%zd, %zd bytes), promoted first (+%ld), data correct\n",
			 l->name, wr, rd, p1 - p0);
	close(fd);
	pt_write_str("/sys/block/zram0/reset", "1");
	pt_level_free(l, src, size);
	pt_level_free(l, dst, size);
}

/* 8. memcg: in-place memory is swap, not anon, and memory.stat shows it */
#define CG "pmswap-inplace"

static int memcg_child(void *arg, int fd)
{
	const struct pt_level *l = arg;
	size_t size = l == PMD ? MIB(16) : MIB(4);
	long out[4];
	char *mem;

	if (pt_memcg_enter(CG))
		return 1;
	mem = in_place(l, size, 66);
	out[0] = pt_memcg_stat(CG, "memory.stat", "pmswap_inplace");
	out[1] = pt_memcg_stat(CG, "memory.stat", "anon");
	out[2] = pt_memcg_read_long(CG, "memory.swap.current");
	out[3] = pt_verify(mem, size, 66);
	if (write(fd, out, sizeof(out)) != sizeof(out))
		return 2;
	pt_level_free(l, mem, size);
	return pt_memcg_stat(CG, "memory.stat", "pmswap_inplace") == 0 ? 0 : 3;
}

static void case_memcg(const struct pt_level *l, const char *policy)
{
	long size = l == PMD ? MIB(16) : MIB(4);
	long v[4] = { -1, -1, -1, -1 };
	int rc;

	if (pt_memcg_create(CG)) {
		ksft_test_result_fail("%s memcg: cannot create %s\n", l->name, CG);
		return;
	}
	rc = pt_fork_report(memcg_child, (void *)l, v, sizeof(v));
	rc = rc >= 0 && WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
	ksft_test_result(rc == 0 && v[0] == size && v[1] < size / 2 &&
			 v[2] >= size && v[3] == 0,
			 "%s memcg: memory.stat pmswap_inplace %ld kB, anon %ld kB, memory.swap.current %ld kB; 0 after munmap (rc %d)\n",
			 l->name, v[0] >> 10, v[1] >> 10, v[2] >> 10, rc);
	pt_memcg_destroy(CG);
}

/*
 * 9. Hot data is promoted within a bounded time, cold data stays, and no
 * per-slot record is left behind.
 */
static void case_promotion(const struct pt_level *l, const char *policy)
{
	size_t size = l == PMD ? PT_PMD_SIZE : 16 * PT_PAGE_SIZE;
	long p0, rec0 = pt_stat_key(dev.stats, "inplace_slot_records");
	double t0, t = -1;
	char *hot, *cold;
	bool in0;
	int i;

	hot = in_place(l, size, 71);
	cold = in_place(l, size, 72);
	/* both start in place: data that never was is not a promotion */
	in0 = pt_inplace_kb(hot) == (long)(size >> 10) &&
	      pt_inplace_kb(cold) == (long)(size >> 10);
	/*
	 * Fast scans only from here: the touch that maps the cold data
	 * must not span two of them (on the debug kernel under TCG it took
	 * longer than 100 ms once, the extent looked accessed twice in a row
	 * and was promoted: promote +2).
	 */
	pt_write_str(KNOBS "promote_threshold", "2");
	pt_write_str(KNOBS "promote_interval_ms", "100");
	p0 = pt_vmstat(l->promote);
	t0 = pt_now();
	for (i = 0; i < 1000; i++) {
		pt_touch_read(hot, size);
		if (pt_inplace_kb(hot) == 0 &&
		    pt_smaps_kb(hot, l->dram) == (long)(size >> 10)) {
			t = pt_now() - t0;
			break;
		}
		usleep(10000);
	}
	ksft_test_result(in0 && t >= 0 && pt_verify(hot, size, 71) == 0,
			 "%s promotion: hot data moved to DRAM after %.2f s (bound 10 s), data intact\n",
			 l->name, t);
	ksft_test_result(in0 && pt_inplace_kb(cold) == (long)(size >> 10) &&
			 delta_ok(l, pt_vmstat(l->promote) - p0, units(l, size)) &&
			 pt_verify(cold, size, 72) == 0,
			 "%s promotion: cold data stays in place (promote +%ld for %ld hot units)\n",
			 l->name, pt_vmstat(l->promote) - p0, units(l, size));
	pt_write_str(KNOBS "promote_interval_ms", "0");
	pt_write_str(KNOBS "promote_threshold", "3");
	pt_level_free(l, hot, size);
	pt_level_free(l, cold, size);
	/* each promotion's fault took its bit: no record is left behind */
	ksft_test_result(pt_stat_key(dev.stats, "inplace_slot_records") == rec0,
			 "%s promotion: no slot record left once both regions are freed (%ld, before %ld)\n",
			 l->name, pt_stat_key(dev.stats, "inplace_slot_records"), rec0);
}

/*
 * 10. Fault-around: a fault maps the eligible swap entries of its aligned
 * fault_around_kb window in place with its page, within its VMA; 0 turns
 * it off. Zero-filled slots (the zeromap) are left to their own faults.
 */
static void case_fault_around(const struct pt_level *l, const char *policy)
{
	size_t size = MIB(4), win = 64 << 10;
	long nr = units(l, size), faults, a0, around, zero_bad = 0, in1, in2;
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
			 "PTE fault-around: default %d kB; 4096 and \"64k\" refused, 100 rounds down to %d kB\n",
			 atoi(old), atoi(val));
	pt_write_str(KNOBS "fault_around_kb", "64");

	/* one fault per 64 KiB window (one more if not aligned), all in place */
	mem = swapped(l, size, 15);
	a0 = pt_stat_key(dev.stats, "inplace_pte_maps_around");
	pt_faults_now(&f0);
	pt_touch_read(mem, size);
	faults = pt_faults_since(&f0, NULL);
	around = pt_stat_key(dev.stats, "inplace_pte_maps_around") - a0;
	ksft_test_result(faults <= (long)(size / win) + 8 &&
			 around >= nr - (long)(size / win) - 1 &&
			 pt_inplace_kb(mem) == (long)(size >> 10) &&
			 pt_verify(mem, size, 15) == 0,
			 "PTE fault-around 64 kB: %ld faults for %ld pages, %ld mapped around a fault, data intact\n",
			 faults, nr, around);
	pt_level_free(l, mem, size);

	/* off: one fault per page */
	pt_write_str(KNOBS "fault_around_kb", "0");
	mem = swapped(l, size, 16);
	pt_faults_now(&f0);
	pt_touch_read(mem, size);
	faults = pt_faults_since(&f0, NULL);
	ksft_test_result(faults >= nr && pt_inplace_kb(mem) == (long)(size >> 10) &&
			 pt_verify(mem, size, 16) == 0,
			 "PTE fault-around 0: %ld faults for %ld pages, data intact\n",
			 faults, nr);
	pt_level_free(l, mem, size);
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
	in1 = pt_inplace_kb(mem);
	in2 = pt_inplace_kb(mem + 8 * PT_PAGE_SIZE);
	ksft_test_result(in1 == 32 && in2 == 0 &&
			 pt_smaps_kb(mem + 8 * PT_PAGE_SIZE, "Swap") == 32 &&
			 pt_verify(mem, 16 * PT_PAGE_SIZE, 17) == 0,
			 "PTE fault-around stops at the VMA: %ld kB in place in it, %ld kB in the next, data intact\n",
			 in1, in2);
	munmap(raw, 3 * win);

	/* every 4th page zero-filled: those are read into DRAM, not mapped */
	mem = alloc_at(l, MIB(1));
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
	ksft_test_result(pt_inplace_kb(mem) == 768 &&
			 pt_smaps_kb(mem, "Anonymous") == 256 && zero_bad == 0,
			 "PTE fault-around skips zero-filled slots: %ld kB in place, %ld kB in DRAM, %ld bad pages\n",
			 pt_inplace_kb(mem), pt_smaps_kb(mem, "Anonymous"), zero_bad);
	pt_level_free(l, mem, MIB(1));
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
 * 11. Per-slot state grows with what is mapped in place: a record per
 * 2 MiB extent whose slots are mapped by PTEs, freed with the last one.
 */
static void case_metadata(const struct pt_level *l, const char *policy)
{
	long rec0 = pt_stat_key(dev.stats, "inplace_slot_records");
	long bytes0 = pt_stat_key(dev.stats, "inplace_metadata_bytes");
	long dev_kb = dev_size_kb(), rec1, bytes1, per;
	size_t size = MIB(4);
	long ext[MIB(4) / PT_PAGE_SIZE];
	int fd = pt_pagemap_open(), next = 0, i, j;
	char *mem;

	mem = swapped(l, size, 81);
	/* the extents of the slots the region went to */
	for (i = 0; fd >= 0 && i < (int)units(l, size); i++) {
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
		       dev_kb, rec0, bytes0, pt_inplace_kb(mem), next, rec1, bytes1, per);
	if (dev_kb > 0 && per > 0) {
		double tib = (double)(1UL << 30) / dev_kb;	/* TiB / device */
		double idle = (bytes0 - rec0 * per) * tib;
		/* 10 % of the slots in place, in whole extents / all extents */
		double dense = idle + 0.1 * (dev_kb / 2048.0) * per * tib;
		double spread = idle + (dev_kb / 2048.0) * per * tib;

		ksft_print_msg("metadata per TiB of device: idle %.2f MiB; 10 %% of slots mapped in place by PTEs, packed in 10 %% of the extents: %.1f MiB, spread over every extent: %.1f MiB (before this change: 352 MiB at any use)\n",
			       idle / (1 << 20), dense / (1 << 20), spread / (1 << 20));
	}
	ksft_test_result(pt_inplace_kb(mem) == (long)(size >> 10) &&
			 rec1 - rec0 == next && per > 0 && per <= 1024,
			 "PTE metadata: one slot record per extent in place (%ld new, %d extents), %ld bytes each\n",
			 rec1 - rec0, next, per);
	pt_level_free(l, mem, size);
	ksft_test_result(pt_stat_key(dev.stats, "inplace_slot_records") == rec0 &&
			 pt_stat_key(dev.stats, "inplace_metadata_bytes") == bytes0,
			 "PTE metadata: the records go with the mappings (munmap: %ld records, %ld bytes; before %ld, %ld)\n",
			 pt_stat_key(dev.stats, "inplace_slot_records"),
			 pt_stat_key(dev.stats, "inplace_metadata_bytes"), rec0, bytes0);
}

/*
 * 12. The multi-gen LRU's page table walk (aging) meets in-place PTEs and
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

static void case_mglru(const struct pt_level *l, const char *policy)
{
	size_t size = MIB(2);
	char old[64] = "", cmd[96];
	char *mem, *thp;
	long seq = -1;
	int i, ok;

	if (pt_read_str("/sys/kernel/mm/lru_gen/enabled", old, sizeof(old))) {
		ksft_test_result_fail("MGLRU walk: no multi-gen LRU in this kernel\n");
		return;
	}
	mem = swapped(PTE, size, 96);
	thp = swapped(PMD, size, 97);
	if (pt_write_str("/sys/kernel/mm/lru_gen/enabled", "y")) {
		ksft_test_result_fail("MGLRU walk: cannot enable the multi-gen LRU\n");
		return;
	}
	/* young, so that the walk looks at them */
	pt_touch_read(mem, size);
	pt_touch_read(thp, size);
	ok = pt_inplace_kb(mem) == (long)(size >> 10) && pt_inplace_kb(thp) == (long)(size >> 10);
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
			 pt_inplace_kb(mem) == (long)(size >> 10) &&
			 pt_inplace_kb(thp) == (long)(size >> 10) &&
			 pt_verify(mem, size, 96) == 0 && pt_verify(thp, size, 97) == 0,
			 "MGLRU walk: aging (seq %ld -> %ld) walked in-place PTEs and PMDs, left them in place, data intact\n",
			 seq, lru_gen_max_seq());
	old[strcspn(old, "\n")] = 0;
	pt_write_str("/sys/kernel/mm/lru_gen/enabled", old);
	pt_level_free(PTE, mem, size);
	pt_level_free(PMD, thp, size);
}

/* 13. Bad sysfs values are refused. */
static void case_knobs(const struct pt_level *l, const char *policy)
{
	ksft_test_result(pt_write_str(dev.policy, "sometimes") != 0 &&
			 pt_write_str(KNOBS "promote_threshold", "0") != 0 &&
			 pt_write_str(KNOBS "promote_interval_ms", "-1") != 0 &&
			 pt_write_str(KNOBS "promote_rate_mb", "x") != 0,
			 "knobs: bad values refused\n");
}

#define L_PMD	1
#define L_PTE	2
#define L_BOTH	(L_PMD | L_PTE)
#define L_ONCE	0	/* not per level: covers both itself */

/*
 * The table: each case runs at each level in @levels (once if L_ONCE),
 * under each policy in @policies, and gives checks[j] results under
 * policies[j] each time.
 */
static const struct {
	const char *name;
	void (*fn)(const struct pt_level *l, const char *policy);
	int levels;
	const char *policies[3];
	int checks[3];
} cases[] = {
	{ "acceptance",	case_acceptance, L_BOTH, { "read" }, { 9 } },
	{ "writes",	case_writes,	L_BOTH, { "read", "always", "never" }, { 1, 2, 1 } },
	{ "fork",	case_fork,	L_BOTH, { "read", "always" }, { 3, 3 } },
	{ "unmap_exit",	case_unmap_exit, L_BOTH, { "read" }, { 3 } },
	{ "unmap_flush", case_unmap_flush, L_PMD, { "read" }, { 1 } },
	{ "mprotect",	case_mprotect,	L_BOTH, { "read" }, { 3 } },
	{ "mremap",	case_mremap,	L_BOTH, { "read" }, { 1 } },
	{ "dontneed",	case_dontneed,	L_BOTH, { "read" }, { 1 } },
	{ "free",	case_free,	L_BOTH, { "read" }, { 1 } },
	{ "gup",	case_gup,	L_BOTH, { "read" }, { 1 } },
	{ "populate",	case_populate,	L_BOTH, { "read", "always" }, { 3, 1 } },
	{ "mlock",	case_mlock,	L_BOTH, { "read", "always" }, { 1, 1 } },
	{ "longterm",	case_longterm,	L_BOTH, { "read" }, { 1 } },
	{ "odirect",	case_odirect,	L_BOTH, { "read" }, { 1 } },
	{ "memcg",	case_memcg,	L_BOTH, { "read" }, { 1 } },
	{ "promotion",	case_promotion,	L_BOTH, { "read" }, { 3 } },
	{ "fault_around", case_fault_around, L_PTE, { "read" }, { 5 } },
	{ "metadata",	case_metadata,	L_PTE, { "read" }, { 2 } },
	{ "mglru",	case_mglru,	L_ONCE, { "read" }, { 1 } },
	{ "knobs",	case_knobs,	L_ONCE, { "read" }, { 1 } },
};

/* promote_interval_ms as the boot left it, put back at exit */
static char scan_interval[32];

static void scan_restore(void)
{
	if (scan_interval[0])
		pt_write_str(KNOBS "promote_interval_ms", scan_interval);
}

/*
 * Every case runs with the promotion scanner stopped, but "promotion",
 * which starts it: a case that reads the same data several times, or
 * counts TLB flushes, must not find an extent the scanner moved to DRAM
 * between two checks (three scans in a row that see it accessed are
 * enough, and on a slow host, or CXL, a case can span them).
 */
static void for_each_run(bool run)
{
	unsigned int i, j, k, plan = 0;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		for (k = 0; k < ARRAY_SIZE(levels); k++) {
			if (cases[i].levels ? !(cases[i].levels & (1 << k)) : k)
				continue;
			for (j = 0; j < 3 && cases[i].policies[j]; j++) {
				if (!run) {
					plan += cases[i].checks[j];
					continue;
				}
				ksft_print_msg("[%s %s %s]\n", cases[i].name,
					       cases[i].levels ? levels[k]->name : "-",
					       cases[i].policies[j]);
				set_policy(cases[i].policies[j]);
				pt_write_str(KNOBS "promote_interval_ms", "0");
				cases[i].fn(levels[k], cases[i].policies[j]);
				set_policy("read");
			}
		}
	if (!run)
		ksft_set_plan(plan);
}

int main(int argc, char **argv)
{
	int cpu;

	if (argc > 1)
		acceptance[0] = MIB(atol(argv[1]));
	if (argc > 2)
		acceptance[1] = MIB(atol(argv[2]));
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

	if (pt_read_str(KNOBS "promote_interval_ms", scan_interval,
			sizeof(scan_interval)) == 0)
		atexit(scan_restore);
	else
		scan_interval[0] = '\0';
	for_each_run(false);
	for_each_run(true);
	ksft_finished();
}
