// SPDX-License-Identifier: GPL-2.0
/*
 * A THP whose 512 pages are all zero when it is swapped out leaves
 * nothing on the device: 6.12 records its slots in the zeromap. A fault
 * on that huge swap entry comes back as a whole THP even in a memcg with
 * no 2 MiB of headroom, on a synchronous device under every in-place policy:
 * there is nothing to copy or to map in place, the fault is a first touch
 * of THP memory, and its charge reclaims as a THP fault's does. Split,
 * the 512 pages came back one zero-filled 4 KiB fault at a time (what
 * THP-backed stress-ng under memcg pressure did: memory it populated
 * but had not written yet went out as zero THPs).
 *
 * The control: the same touches on THPs holding data split where the
 * memcg has no room (thp_swap_memcg_tight has the details), so the rule
 * is the zero entries'. Data is checked every time.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest.h"
#include "pmswap_test.h"

#define CG	"pt_swap_zero"
#define SIZE	(32 * PT_MIB)	/* 16 THPs ... */
#define THPS	(SIZE / PT_PMD_SIZE)
#define ROOM	(6 * PT_MIB)	/* ... in a memcg with room for 3 */
#define MARK	0x5a

/* one page per THP, in a fixed order with no two neighbours in a row */
static const int order[THPS] = {
	9, 2, 14, 6, 0, 11, 4, 15, 7, 12, 1, 5, 13, 3, 10, 8 };

/* thp_swpin_pmd, thp_swpin_pmd_fallback, pmswap_inplace_map */
struct swpin {
	long pmd, fb, map;
};

static struct swpin swpin_now(void)
{
	struct swpin s = { pt_vmstat("thp_swpin_pmd"),
			   pt_vmstat("thp_swpin_pmd_fallback"),
			   pt_vmstat("pmswap_inplace_map") };
	return s;
}

/*
 * A fresh SIZE region of THPs, all zero (@zero) or filled from @seed,
 * swapped out as huge swap entries, in the memcg with memory.max ROOM
 * above what it holds then. Reports how the swap-out went.
 */
static char *swapped_region(bool zero, uint64_t seed, const char *what)
{
	long out0, pmd0, thp_kb, zout;
	char val[32];
	size_t off;
	char *mem;

	pt_memcg_set(CG, "memory.max", "max");
	mem = pt_alloc_thp(SIZE);
	if (!mem)
		ksft_exit_fail_perror("mmap");
	if (zero) {
		/* a write first: a read would map the huge zero page */
		for (off = 0; off < SIZE; off += PT_PMD_SIZE)
			((volatile char *)mem)[off] = 0;
	} else {
		pt_fill(mem, SIZE, seed);
	}
	thp_kb = pt_smaps_kb(mem, "AnonHugePages");
	out0 = pt_vmstat("pswpout");
	pmd0 = pt_vmstat("thp_swpout_pmd");
	zout = pt_memcg_stat(CG, "memory.stat", "swpout_zero");
	pt_pageout(mem, SIZE);
	out0 = pt_vmstat("pswpout") - out0;
	pmd0 = pt_vmstat("thp_swpout_pmd") - pmd0;
	zout = pt_memcg_stat(CG, "memory.stat", "swpout_zero") - zout;
	/*
	 * Zero pages are not written, only marked in the zeromap: every
	 * page of the zero region counts in the memcg's own swpout_zero
	 * (global pswpout could count another process's swapping too), and
	 * none of the region with data does.
	 */
	ksft_test_result(thp_kb == (long)(SIZE / 1024) &&
			 pmd0 == (long)THPS &&
			 (zero ? zout == (long)(SIZE / PT_PAGE_SIZE) :
				 zout == 0 && out0 >= (long)(SIZE / PT_PAGE_SIZE)),
			 "%s: %ld kB in THPs, %ld huge swap entries made, memcg swpout_zero +%ld, pswpout +%ld\n",
			 what, thp_kb, pmd0, zout, out0);
	snprintf(val, sizeof(val), "%ld",
		 pt_memcg_read_long(CG, "memory.current") + (long)ROOM);
	pt_memcg_set(CG, "memory.max", val);
	return mem;
}

/*
 * Touch one page of each THP, for writing (@write: store MARK at the
 * page's first byte) or reading; count the touches that came back whole,
 * those that split and those that mapped the extent in place (a write
 * under "always"), each judged alone.
 */
static void touch_each(char *mem, bool write, int *whole, int *split,
		       int *inplace, int *odd)
{
	struct swpin s0, s1;
	char *p;
	int i;

	*whole = *split = *inplace = *odd = 0;
	for (i = 0; i < (int)THPS; i++) {
		p = mem + order[i] * PT_PMD_SIZE + 5 * PT_PAGE_SIZE;
		s0 = swpin_now();
		if (write)
			*(volatile char *)p = MARK;
		else
			(void)*(volatile char *)p;
		s1 = swpin_now();
		if (s1.pmd - s0.pmd == 1 && s1.fb == s0.fb &&
		    s1.map == s0.map) {
			(*whole)++;
		} else if (s1.pmd == s0.pmd && s1.fb - s0.fb == 1) {
			(*split)++;
		} else if (s1.pmd == s0.pmd && s1.fb == s0.fb &&
			   s1.map - s0.map == 1) {
			(*inplace)++;
		} else {
			(*odd)++;
			ksft_print_msg("touch %d (THP %d): thp_swpin_pmd +%ld, fallback +%ld\n",
				       i, order[i], s1.pmd - s0.pmd,
				       s1.fb - s0.fb);
		}
	}
}

/*
 * One write (@write) or read per zero THP, no headroom: every THP comes
 * back whole, its charge reclaiming at memory.max (memory.events "max"
 * rises).
 */
static void zero_touches(char *mem, bool write)
{
	int whole, split, inplace, odd;
	long max0, max1;

	max0 = pt_memcg_stat(CG, "memory.events", "max");
	touch_each(mem, write, &whole, &split, &inplace, &odd);
	max1 = pt_memcg_stat(CG, "memory.events", "max");
	ksft_test_result(whole == (int)THPS && max1 > max0,
			 "no headroom, one %s per zero THP: %d of %lu whole, %d split, %d in place, %d odd, memory.events max +%ld\n",
			 write ? "write" : "read", whole, THPS, split, inplace,
			 odd, max1 - max0);
}

/* Pages of @mem not as expected: all zero but MARK where @marked wrote. */
static size_t verify_zero(const char *mem, bool marked)
{
	size_t off, bad = 0;
	int i;

	for (i = 0; i < (int)THPS; i++) {
		const char *thp = mem + i * PT_PMD_SIZE;

		for (off = 0; off < PT_PMD_SIZE; off += PT_PAGE_SIZE) {
			const char *pg = thp + off;
			bool mark = marked && off == 5 * PT_PAGE_SIZE;
			char want = mark ? MARK : 0;

			if (pg[0] != want ||
			    (pg[1] || memcmp(pg + 1, pg + 2, PT_PAGE_SIZE - 2)))
				bad++;
		}
	}
	return bad;
}

int main(void)
{
	int whole, split, inplace, odd;
	long thp_kb, inplace_kb;
	size_t bad;
	char *mem;

	ksft_print_header();
	if (!pt_swap_active())
		ksft_exit_fail_msg("no swap device is active\n");
	if (pt_huge_swap_mode() <= 0)
		ksft_exit_skip("huge swap entries are not on\n");
	if (pt_memcg_create(CG) || pt_memcg_enter(CG))
		ksft_exit_fail_msg("cannot create and enter memcg %s\n", CG);
	ksft_set_plan(10);

	/*
	 * Writes to zero entries, no headroom: every THP comes back whole,
	 * its charge reclaiming at memory.max (memory.events "max" shows it).
	 */
	mem = swapped_region(true, 0, "zero THPs swapped out");
	zero_touches(mem, true);
	pt_memcg_set(CG, "memory.max", "max");
	bad = verify_zero(mem, true);
	ksft_test_result(bad == 0, "data intact: the written byte, zero elsewhere (%zu bad pages)\n",
			 bad);
	/*
	 * What reclaim pushed out meanwhile holds data now: the verify
	 * brought it back whole, or (policy read) mapped its extent in place.
	 */
	thp_kb = pt_smaps_kb(mem, "AnonHugePages");
	inplace_kb = pt_inplace_kb(mem);
	ksft_test_result(thp_kb + inplace_kb == (long)(SIZE / 1024),
			 "after the verify, %ld kB in THPs and %ld kB mapped in place of %lu kB\n",
			 thp_kb, inplace_kb, SIZE / 1024);
	pt_free_thp(mem, SIZE);

	/* reads of zero entries, no headroom: whole as well */
	mem = swapped_region(true, 0, "zero THPs swapped out again");
	zero_touches(mem, false);
	pt_memcg_set(CG, "memory.max", "max");
	bad = verify_zero(mem, false);
	ksft_test_result(bad == 0, "data intact: all zero (%zu bad pages)\n", bad);
	pt_free_thp(mem, SIZE);

	/*
	 * The control: THPs with data do not all come back whole where the
	 * memcg has no room; they split (policies never and read) or map in
	 * place (a write under always, to an entry with one owner).
	 */
	mem = swapped_region(false, 31, "THPs with data swapped out");
	touch_each(mem, true, &whole, &split, &inplace, &odd);
	ksft_test_result(whole < (int)THPS && split + inplace >= 1 && odd == 0,
			 "no headroom, one write per THP with data: %d whole, %d split, %d in place, %d odd\n",
			 whole, split, inplace, odd);
	pt_memcg_set(CG, "memory.max", "max");
	/* the marks overwrote one byte of page 5 of each THP */
	bad = 0;
	for (int i = 0; i < (int)THPS; i++) {
		size_t base = i * PT_PMD_SIZE;

		bad += pt_verify_range(mem, base, 5 * PT_PAGE_SIZE, 31);
		bad += pt_verify_range(mem, base + 6 * PT_PAGE_SIZE,
				       PT_PMD_SIZE - 6 * PT_PAGE_SIZE, 31);
		bad += mem[base + 5 * PT_PAGE_SIZE] != MARK;
	}
	ksft_test_result(bad == 0, "data intact after the split swap-ins (%zu bad pages)\n",
			 bad);
	pt_free_thp(mem, SIZE);
	pt_memcg_destroy(CG);
	ksft_finished();
}
