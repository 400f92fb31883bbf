// SPDX-License-Identifier: GPL-2.0
/*
 * Every path that can meet a swapped-out PMD-mapped THP, each checked on
 * its data: zap (munmap, exit, MADV_DONTNEED, MADV_FREE, partial munmap),
 * mprotect (whole and partial), mremap (aligned and unaligned),
 * UFFDIO_MOVE, madvise (PAGEOUT/COLD on swapped memory, WILLNEED reads
 * ahead: once, twice, without memcg headroom, over a partly unmapped
 * range), mincore, smaps, pagemap, soft-dirty (kept by the huge entry,
 * clean stays clean), GUP (through /proc/self/mem), mbind, MADV_COLLAPSE,
 * userfaultfd, fork (with and without COW) and swapoff.
 *
 * Each case swaps out a 4 MiB THP region (two THPs) with MADV_PAGEOUT.
 * With huge swap entries (pmswap, /sys/kernel/mm/pmswap/huge_swap = 1) it
 * first checks that the region really is held by huge swap entries, so
 * every case runs against them; on a stock kernel the same cases run
 * against PTE swap entries and must give the same results.
 *
 * The matrix (issue 14). The feature suite runs this program under policy
 * never (thp_swap_walkers), read (inplace_walkers) and always
 * (inplace_always_walkers) with swap on pmem; `make test` runs the suite
 * again with swap on zram, where the program runs once (the read and
 * always entries skip: no pmem device): that run is the zram column. The
 * result line of each case names its column in brackets.
 *
 * Each cell names the case function (case_ prefix left out):
 *
 *   op               | never              | read                   | always                 | zram
 *   -----------------+--------------------+------------------------+------------------------+-------------------
 *   fork             | fork               | fork (i)               | fork (i)               | fork
 *                    | fork_exit_swapped  | fork_exit_swapped      | fork_exit_swapped      | fork_exit_swapped
 *   fork then COW    | fork_cow           | fork_cow (i)           | fork_cow (i)           | fork_cow
 *   partial munmap   | partial_munmap     | partial_munmap (i)     | partial_munmap (i)     | partial_munmap
 *   partial mprotect | mprotect_partial   | mprotect_partial (i)   | mprotect_partial (i)   | mprotect_partial
 *                    | mprotect_whole     | mprotect_whole         | mprotect_whole (a)     | mprotect_whole
 *   mremap           | mremap_aligned     | mremap_aligned (i)     | mremap_aligned (i)     | mremap_aligned
 *                    | mremap_unaligned   | mremap_unaligned (i)   | mremap_unaligned (i)   | mremap_unaligned
 *   UFFDIO_MOVE      | uffd_move (m)      | uffd_move (m)          | uffd_move (m)          | uffd_move (m)
 *   MADV_FREE        | free               | free (i)               | free (i)               | free
 *   MADV_DONTNEED    | dontneed           | dontneed (i)           | dontneed (i)           | dontneed
 *   MADV_WILLNEED    | willneed           | willneed (i) (w)       | willneed (i) (w)       | willneed
 *                    | willneed_twice     | willneed_twice (w)     | willneed_twice (w)     | willneed_twice
 *                    | willneed_tight     | willneed_tight         | willneed_tight         | willneed_tight
 *                    | willneed_partial   | willneed_partial (w)   | willneed_partial (w)   | willneed_partial
 *   pagemap          | pagemap            | pagemap (p)            | pagemap (p)            | pagemap
 *                    | soft_dirty         | soft_dirty             | soft_dirty             | soft_dirty
 *                    | soft_dirty_kept    | soft_dirty_kept        | soft_dirty_kept        | soft_dirty_kept
 *   mincore          | mincore            | mincore (i)            | mincore (i)            | mincore
 *   swapoff          | swapoff (r)        | swapoff (i) (r)        | swapoff (i) (r)        | swapoff (r)
 *   exit             | exit               | exit (i)               | exit (i)               | exit
 *
 * Outside the matrix, in every column: munmap, pageout_cold_again,
 * gup_proc_mem, mbind, collapse, userfaultfd and diverged.
 *
 * No cell of the four columns skips by design; a cell skips, and says why,
 * only where it cannot run:
 * (r) case_swapoff skips when not run as root (swapoff needs root).
 * (m) case_uffd_move skips on a kernel without UFFDIO_MOVE (6.8+). Moving
 *     swapped THPs must keep the entries huge (issue 14, item 10), and the
 *     data reads back whole once the destination is unregistered (with a
 *     userfaultfd armed, a fault on a huge entry splits it by design).
 * (i) Under read and always the first THP is read first, which maps it in
 *     place: the op meets one extent mapped in place (PmswapInPlace 2 MiB)
 *     and one huge swap entry (SwapPmdMapped 2 MiB). Under never and on
 *     zram both are huge swap entries.
 * (w) MADV_WILLNEED reads into DRAM under read and always too, also an
 *     extent mapped in place already (issue 14, item 11).
 * (a) Under always the writes after the read land on the pmem, mapped in
 *     place writable; under the other policies they go to DRAM THPs.
 * (p) pagemap turns an in-place mapping back into its swap entry
 *     (Documentation/mm/pmswap.rst): after the read, entries present
 *     or swapped are both accepted there, and the data must read back.
 * With PTE swap entries (stock, or huge_swap = 0) each huge-entry check
 * says "n/a: PTE swap entries".
 *
 * Every case reports three checks in its result line:
 *   data    pt_verify/pt_verify_range of what the op leaves readable
 *           (zero after MADV_DONTNEED/FREE; "n/a", with the reason, only
 *           where nothing is left to read);
 *   huge    the entries before the op (SwapPmdMapped == the region; with
 *           (i) PmswapInPlace of the first THP), after the op where the op
 *           defines it (whole-range ops and aligned moves keep the entries,
 *           partial ones split the THP they cut, discards leave none), and
 *           whole THPs after the read back: AnonHugePages (never, zram);
 *           under read and always PmswapInPlace + AnonHugePages, with the
 *           PMD maps counted (vm event pmswap_inplace_map), as
 *           PmswapInPlace also counts 4 KiB pages mapped in place;
 *   leaks   swap held (pt_swap_held_kb: used minus swap cache) after the
 *           case against before it, with the per-CPU slot-cache slack,
 *           and /proc/meminfo PmswapInPlace back to where it was.
 * main() does the leak check around every case. A case that stops at a
 * failed check has its regions unmapped by main(), which shows the leak
 * figures without judging them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/swap.h>
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

/* UFFDIO_MOVE (6.8): the build host's UAPI headers may not have it. */
#define PT_UFFD_FEATURE_MOVE	(1ULL << 16)
struct pt_uffdio_move {
	__u64 dst;
	__u64 src;
	__u64 len;
	__u64 mode;
	__s64 move;
};
#define PT_UFFDIO_MOVE		_IOWR(UFFDIO, 0x05, struct pt_uffdio_move)

#define SIZE	(4 * PT_MIB)
#define PAGES	(SIZE / PT_PAGE_SIZE)
#define SEED	42

static int huge;	/* huge swap entries expected */
/* map-in-place policy: 0 never (or no pmem), 1 read, 2 always */
static int inplace;
/* the matrix column: never, read, always, zram, ... */
static const char *column;

/* --- what a case checked, for its result line --- */

static struct {
	char data[256];
	char huge[640];
	char leak[256];
	char skip[200];
	bool early;	/* stopped at a failed check */
	bool pte_noted;
	long map0;	/* pmswap_inplace_map at mark() */
} R;

/* What a case mapped: unmapped by main() when the case stops early. */
static struct {
	void *p;
	size_t len;
} maps[4];
static int nmaps;

static void *track(void *p, size_t len)
{
	if (p && nmaps < (int)ARRAY_SIZE(maps)) {
		maps[nmaps].p = p;
		maps[nmaps++].len = len;
	}
	return p;
}

static void __attribute__((format(printf, 3, 4)))
addf(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;

	if (used && used + 2 < len) {
		memcpy(buf + used, ", ", 3);
		used += 2;
	}
	if (used >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

#define DATA(...)	addf(R.data, sizeof(R.data), __VA_ARGS__)
#define HUGE(...)	addf(R.huge, sizeof(R.huge), __VA_ARGS__)
#define LEAK(...)	addf(R.leak, sizeof(R.leak), __VA_ARGS__)

#define CASE(name) static int name(void)
#define FAIL(...) do { ksft_print_msg(__VA_ARGS__); R.early = true; return -1; } while (0)
#define SKIP(...) do { snprintf(R.skip, sizeof(R.skip), __VA_ARGS__); return 1; } while (0)

/* The data check: note it, true when no page differs. */
static bool data_ok(const char *what, size_t bad)
{
	if (bad)
		DATA("%s: %zu pages WRONG", what, bad);
	else
		DATA("%s intact", what);
	return !bad;
}

/*
 * smaps field @key of the VMA at @p: noted; true when it is @want (any
 * value when @want < 0).
 */
static bool kb_is(const char *what, const void *p, const char *key, long want)
{
	long kb = pt_smaps_kb(p, key);

	const char *sp = *what ? " " : "";

	if (want < 0 || kb == want) {
		HUGE("%s%s%s %ld kB", what, sp, key, kb);
		return true;
	}
	HUGE("%s%s%s %ld kB, WANT %ld", what, sp, key, kb, want);
	return false;
}

/* The same, for what only huge swap entries define. */
static bool hkb(const char *what, const void *p, const char *key, long want)
{
	if (huge)
		return kb_is(what, p, key, want);
	if (!R.pte_noted)
		HUGE("%s: n/a: PTE swap entries", what);
	R.pte_noted = true;
	return true;
}

/* Whole THPs after a read: copied to DRAM, or mapped in place. */
static const char *whole_key(void)
{
	return inplace ? "PmswapInPlace" : "AnonHugePages";
}

/* Extents mapped in place with one PMD (vm event pmswap_inplace_map). */
static long inplace_pmd_maps(void)
{
	return inplace ? pt_vmstat("pmswap_inplace_map") : 0;
}

/* Before a read whose result whole_ok() checks. */
static void mark(void)
{
	R.map0 = inplace_pmd_maps();
}

/*
 * After a read: the VMA at @p holds @kb of whole THPs (@kb < 0: any
 * amount), @thps of them brought back by the read since mark(). Copied
 * to DRAM: AnonHugePages, which counts PMD mappings only. Under read and
 * always a THP comes back mapped in place, or in DRAM when it was in the
 * swap cache already (a fork sharer's read or promotion put it there):
 * PmswapInPlace + AnonHugePages == @kb; and as PmswapInPlace also counts
 * 4 KiB pages mapped in place, the read must have mapped with a PMD
 * (vm event pmswap_inplace_map) what did not come back as a DRAM THP.
 */
static bool whole_ok(const char *what, const void *p, long kb, long thps)
{
	long maps, thp, inpl;
	bool ok;

	if (!inplace)
		return hkb(what, p, "AnonHugePages", kb);
	thp = pt_smaps_kb(p, "AnonHugePages");
	inpl = pt_smaps_kb(p, "PmswapInPlace");
	maps = inplace_pmd_maps() - R.map0;
	ok = (kb < 0 || thp + inpl == kb) &&
	     maps + thp / (long)(PT_PMD_SIZE >> 10) >= thps;
	if (ok)
		HUGE("%s AnonHugePages %ld kB + PmswapInPlace %ld kB (pmswap_inplace_map +%ld)",
		     what, thp, inpl, maps);
	else
		HUGE("%s AnonHugePages %ld kB + PmswapInPlace %ld kB (pmswap_inplace_map +%ld), WANT %ld kB, %ld THPs whole from the read",
		     what, thp, inpl, maps, kb, thps);
	return ok;
}

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
	HUGE("before: %s %ld kB", huge ? "SwapPmdMapped" : "Swap (PTE entries)", kb);
	return track(mem, size);
}

/*
 * (i) Under read and always: read the first THP, which maps it in place,
 * so that the op meets one extent mapped in place and one huge swap
 * entry. Nothing under never or on zram. 0 when in that state.
 */
static int inplace_first(char *mem, uint64_t seed)
{
	if (!inplace)
		return 0;
	mark();
	if (!data_ok("first THP read in place",
		     pt_verify_range(mem, 0, PT_PMD_SIZE, seed)) ||
	    !kb_is("before: first THP in place,", mem, "PmswapInPlace",
		   PT_PMD_SIZE >> 10) ||
	    !kb_is("second", mem, "SwapPmdMapped", PT_PMD_SIZE >> 10))
		return -1;
	if (inplace_pmd_maps() - R.map0 != 1) {
		HUGE("pmswap_inplace_map +%ld, WANT 1", inplace_pmd_maps() - R.map0);
		return -1;
	}
	return 0;
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

/* Pages of [base, base + size) that differ from pt_fill(seed), but @skip. */
static size_t verify_except(const char *base, size_t size, uint64_t seed,
			    const size_t *skip, int nskip)
{
	size_t off, bad = 0;
	int i;

	for (off = 0; off < size; off += PT_PAGE_SIZE) {
		for (i = 0; i < nskip && skip[i] != off; i++)
			;
		if (i == nskip)
			bad += pt_verify_range(base, off, PT_PAGE_SIZE, seed);
	}
	return bad;
}

CASE(case_munmap)
{
	char *mem = swapped_region(SIZE, SEED);

	if (!mem)
		return -1;
	if (inplace_first(mem, SEED))
		FAIL("first THP not mapped in place\n");
	/*
	 * The region holds its slots (smaps, mapped in place included); the
	 * global count may also drop meanwhile, as reclaim frees swap cache
	 * an earlier test left behind, so only a count above the one before
	 * is a leak (checked by main()).
	 */
	if (!kb_is("before munmap", mem, "Swap", SIZE >> 10))
		FAIL("region holds %ld kB of swap\n", pt_smaps_kb(mem, "Swap"));
	pt_free_thp(mem, SIZE);
	DATA("n/a: unmapped without a read");
	HUGE("after: n/a, unmapped");
	return 0;
}

/* MADV_DONTNEED and MADV_FREE drop swapped memory: slots freed, reads zero. */
static int discard(int advice, const char *name)
{
	long used0 = pt_swap_held_kb();
	char *mem = swapped_region(SIZE, SEED);
	bool ok;

	if (!mem)
		return -1;
	if (inplace_first(mem, SEED))
		FAIL("first THP not mapped in place\n");
	if (madvise(mem, SIZE, advice))
		FAIL("%s: %s\n", name, strerror(errno));
	ok = kb_is("after", mem, "Swap", 0);
	ok &= hkb("after", mem, "SwapPmdMapped", 0);
	if (inplace)
		ok &= kb_is("after", mem, "PmswapInPlace", 0);
	LEAK("after %s, before munmap: swap held %+ld kB", name,
	     pt_swap_held_kb() - used0);
	if (pt_swap_held_kb() > used0 + pt_swap_slot_cache_kb())
		FAIL("%s left %ld kB of swap\n", name, pt_swap_held_kb() - used0);
	if (!data_ok("reads zero:", PAGES - zero_pages(mem, SIZE)))
		ok = false;
	pt_free_thp(mem, SIZE);
	return ok ? 0 : -1;
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
	char *mem = swapped_region(SIZE, SEED), *above;
	size_t hole = PT_MIB, at = PT_MIB / 2;

	if (!mem)
		return -1;
	above = mem + at + hole;
	if (inplace_first(mem, SEED))
		FAIL("first THP not mapped in place\n");
	/* A hole inside the first THP splits its entry (after a revert). */
	if (munmap(mem + at, hole))
		FAIL("munmap: %s\n", strerror(errno));
	if (!hkb("after: below the hole", mem, "SwapPmdMapped", 0) ||
	    !hkb("above it", above, "SwapPmdMapped", PT_PMD_SIZE >> 10) ||
	    !kb_is("below", mem, "Swap", at >> 10) ||
	    !kb_is("above", above, "Swap", (SIZE - at - hole) >> 10))
		FAIL("partial munmap left the wrong entries\n");
	mark();
	if (!data_ok("below the hole", pt_verify_range(mem, 0, at, SEED)))
		FAIL("data before the hole changed\n");
	if (!data_ok("above it", pt_verify_range(mem, at + hole, SIZE - at - hole, SEED)))
		FAIL("data after the hole changed\n");
	/*
	 * The second THP, whole in the VMA above the hole, came back whole;
	 * the rest of the first, 4 KiB pages, may be mapped in place too.
	 */
	if (!whole_ok("after read: above", above,
		      inplace ? -1 : (long)(PT_PMD_SIZE >> 10), 1))
		FAIL("second THP not whole after the read\n");
	munmap(mem, at);
	munmap(above, SIZE - at - hole);
	return 0;
}

CASE(case_mprotect_whole)
{
	char *mem = swapped_region(SIZE, SEED);

	if (!mem)
		return -1;
	if (mprotect(mem, SIZE, PROT_READ) || mprotect(mem, SIZE, PROT_READ | PROT_WRITE))
		FAIL("mprotect: %s\n", strerror(errno));
	if (!hkb("after mprotect", mem, "SwapPmdMapped", SIZE >> 10))
		FAIL("mprotect of the whole range split the entries\n");
	if (!data_ok("read back", pt_verify(mem, SIZE, SEED)))
		FAIL("data changed\n");
	pt_fill(mem, SIZE, SEED + 1);
	if (!data_ok("rewritten", pt_verify(mem, SIZE, SEED + 1)))
		FAIL("writes after mprotect lost\n");
	/* policy "always": the writes went to the pmem, mapped in place */
	if (inplace == 2 &&
	    !kb_is("after writes", mem, "PmswapInPlace", SIZE >> 10))
		FAIL("not in place after writes (policy always)\n");
	if (inplace != 2 &&
	    !hkb("after writes", mem, "AnonHugePages", SIZE >> 10))
		FAIL("not THP after swap-in\n");
	pt_free_thp(mem, SIZE);
	return 0;
}

CASE(case_mprotect_partial)
{
	char *mem = swapped_region(SIZE, SEED);

	if (!mem)
		return -1;
	if (inplace_first(mem, SEED))
		FAIL("first THP not mapped in place\n");
	/* [0, 1M) rw, [1M, 2M) ro: the first THP's entry splits; not the second */
	if (mprotect(mem + PT_MIB, PT_MIB, PROT_READ))
		FAIL("mprotect: %s\n", strerror(errno));
	if (!hkb("after: [0,1M)", mem, "SwapPmdMapped", 0) ||
	    !hkb("[1M,2M)", mem + PT_MIB, "SwapPmdMapped", 0) ||
	    !hkb("[2M,4M)", mem + PT_PMD_SIZE, "SwapPmdMapped", PT_PMD_SIZE >> 10))
		FAIL("partial mprotect: wrong entries\n");
	mark();
	if (!data_ok("read back", pt_verify(mem, SIZE, SEED)))
		FAIL("data changed after partial mprotect\n");
	if (!whole_ok("after read: [2M,4M)", mem + PT_PMD_SIZE,
		      PT_PMD_SIZE >> 10, 1))
		FAIL("second THP not whole after the read\n");
	if (mprotect(mem + PT_MIB, PT_MIB, PROT_READ | PROT_WRITE))
		FAIL("mprotect back: %s\n", strerror(errno));
	pt_fill(mem, SIZE, SEED + 2);
	if (!data_ok("rewritten", pt_verify(mem, SIZE, SEED + 2)))
		FAIL("writes lost\n");
	pt_free_thp(mem, SIZE);
	return 0;
}

static int do_mremap(size_t shift)
{
	char *mem = swapped_region(SIZE, SEED), *dst, *area;
	long pmd, inpl;

	if (!mem)
		return -1;
	if (inplace_first(mem, SEED))
		FAIL("first THP not mapped in place\n");
	/* A free, 2 MiB-aligned destination (plus @shift). */
	area = pt_alloc_thp(SIZE + PT_PMD_SIZE);
	if (!area)
		FAIL("no destination\n");
	munmap(area, SIZE + PT_PMD_SIZE);
	dst = mremap(mem, SIZE, SIZE, MREMAP_MAYMOVE | MREMAP_FIXED, area + shift);
	if (dst == MAP_FAILED)
		FAIL("mremap: %s\n", strerror(errno));
	track(dst, SIZE);
	if (!kb_is("after move", dst, "Swap", SIZE >> 10))
		FAIL("moved range not all in swap (%ld kB)\n", pt_smaps_kb(dst, "Swap"));
	if (huge) {
		/* an aligned move keeps both entries whole (in place: reverted) */
		pmd = pt_smaps_kb(dst, "SwapPmdMapped");
		inpl = inplace ? pt_smaps_kb(dst, "PmswapInPlace") : 0;
		HUGE("SwapPmdMapped %ld kB, PmswapInPlace %ld kB", pmd, inpl);
		if (!shift && pmd + inpl != (long)(SIZE >> 10))
			FAIL("aligned move split the entries\n");
		if (shift && pmd)
			FAIL("unaligned move kept %ld kB of huge entries\n", pmd);
	} else {
		hkb("after move", dst, "SwapPmdMapped", 0);
	}
	mark();
	if (!data_ok("read back", pt_verify(dst, SIZE, SEED)))
		FAIL("data changed by mremap\n");
	if (shift)
		HUGE("after read: n/a, no THP at an unaligned address");
	else if (!whole_ok("after read", dst, SIZE >> 10, 2))
		FAIL("not whole after the read\n");
	munmap(dst, SIZE);
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
	if (!hkb("after PAGEOUT/COLD", mem, "SwapPmdMapped", SIZE >> 10))
		FAIL("PAGEOUT/COLD split the entries\n");
	if (!data_ok("read back", pt_verify(mem, SIZE, SEED)))
		FAIL("data changed\n");
	pt_free_thp(mem, SIZE);
	return 0;
}

/*
 * MADV_WILLNEED reads the swapped data into the swap cache (a huge entry
 * as one THP): the read afterwards swaps nothing in, and maps THPs. Under
 * read and always too, and for an extent mapped in place already (i):
 * the caller asked for the memory in DRAM (issue 14, item 11;
 * Documentation/mm/pmswap.rst).
 */
CASE(case_willneed)
{
	char *mem = swapped_region(SIZE, SEED);
	long in0;

	if (!mem)
		return -1;
	if (inplace_first(mem, SEED))
		FAIL("first THP not mapped in place\n");
	if (madvise(mem, SIZE, MADV_WILLNEED))
		FAIL("MADV_WILLNEED: %s\n", strerror(errno));
	in0 = pt_vmstat("pswpin");
	if (!data_ok("read back", pt_verify(mem, SIZE, SEED)))
		FAIL("data changed\n");
	if (pt_vmstat("pswpin") != in0)
		FAIL("%ld pages swapped in after MADV_WILLNEED\n", pt_vmstat("pswpin") - in0);
	if (!hkb("after read", mem, "AnonHugePages", SIZE >> 10))
		FAIL("not THP in DRAM after MADV_WILLNEED and the read\n");
	if (inplace && !kb_is("after read", mem, "PmswapInPlace", 0))
		FAIL("still mapped in place after MADV_WILLNEED\n");
	pt_free_thp(mem, SIZE);
	return 0;
}

/* MADV_WILLNEED twice: the second finds everything read already. */
CASE(case_willneed_twice)
{
	char *mem = swapped_region(SIZE, SEED);
	long in0, in1, in2, in3, pmd0, pmd1;
	long want = (long)PAGES;

	if (!mem)
		return -1;
	in0 = pt_vmstat("pswpin");
	if (madvise(mem, SIZE, MADV_WILLNEED))
		FAIL("first MADV_WILLNEED: %s\n", strerror(errno));
	in1 = pt_vmstat("pswpin");
	if (madvise(mem, SIZE, MADV_WILLNEED))
		FAIL("second MADV_WILLNEED: %s\n", strerror(errno));
	in2 = pt_vmstat("pswpin");
	hkb("after MADV_WILLNEED", mem, "SwapPmdMapped", SIZE >> 10);
	pmd0 = pt_vmstat("thp_swpin_pmd");
	if (!data_ok("read back", pt_verify(mem, SIZE, SEED)))
		FAIL("data changed\n");
	in3 = pt_vmstat("pswpin");
	pmd1 = pt_vmstat("thp_swpin_pmd");
	if (in1 - in0 != want)
		FAIL("first MADV_WILLNEED read %ld pages, want %ld\n", in1 - in0, want);
	if (in2 != in1)
		FAIL("second MADV_WILLNEED read %ld pages again\n", in2 - in1);
	if (in3 != in2)
		FAIL("%ld pages swapped in after MADV_WILLNEED\n", in3 - in2);
	/* each THP read ahead once, as one folio, mapped whole by its fault */
	if (huge)
		HUGE("thp_swpin_pmd +%ld", pmd1 - pmd0);
	if (huge && pmd1 - pmd0 != (long)(SIZE / PT_PMD_SIZE))
		FAIL("not mapped whole from the swap cache (thp_swpin_pmd +%ld)\n",
		     pmd1 - pmd0);
	if (!hkb("after read", mem, "AnonHugePages", SIZE >> 10))
		FAIL("not THP after the read\n");
	pt_free_thp(mem, SIZE);
	return 0;
}

#define WN_CG	"pt_walkers_willneed"

/*
 * MADV_WILLNEED in a memcg within 2 MiB of memory.high: reading a whole
 * THP ahead would push 2 MiB of other memory out, so a huge entry is not
 * read (Documentation/mm/pmswap.rst) and stays as it is; with
 * headroom again the THPs come back whole.
 */
CASE(case_willneed_tight)
{
	long cur0, cur1, in0, in1, pmd = -1, fb0, fb1;
	char val[32], *mem;
	int r, err, ret = 0;

	if (pt_memcg_create(WN_CG) || pt_memcg_enter(WN_CG))
		FAIL("cannot create and enter memcg %s\n", WN_CG);
	mem = swapped_region(SIZE, SEED);
	if (!mem) {
		pt_memcg_destroy(WN_CG);
		return -1;
	}
	cur0 = pt_memcg_read_long(WN_CG, "memory.current");
	snprintf(val, sizeof(val), "%ld", cur0 + (long)PT_MIB);
	pt_memcg_set(WN_CG, "memory.high", val);
	in0 = pt_vmstat("pswpin");
	r = madvise(mem, SIZE, MADV_WILLNEED);
	err = errno;
	in1 = pt_vmstat("pswpin");
	cur1 = pt_memcg_read_long(WN_CG, "memory.current");
	pmd = pt_smaps_kb(mem, "SwapPmdMapped");
	pt_memcg_set(WN_CG, "memory.high", "max");
	if (huge)
		HUGE("after MADV_WILLNEED without headroom SwapPmdMapped %ld kB, pswpin +%ld, memory.current %+ld kB",
		     pmd, in1 - in0, (cur1 - cur0) >> 10);

	if (r) {
		ksft_print_msg("MADV_WILLNEED without headroom: %s\n", strerror(err));
		ret = -1;
	}
	if (huge && (in1 != in0 || pmd != (long)(SIZE >> 10) ||
		     cur1 - cur0 > (long)PT_MIB)) {
		ksft_print_msg("MADV_WILLNEED without headroom read %ld pages (SwapPmdMapped %ld kB, memory.current %+ld kB)\n",
			       in1 - in0, pmd, (cur1 - cur0) >> 10);
		ret = -1;
	}
	fb0 = pt_vmstat("thp_swpin_pmd_fallback");
	mark();
	if (!data_ok("read back with headroom", pt_verify(mem, SIZE, SEED))) {
		ksft_print_msg("data changed\n");
		ret = -1;
	}
	fb1 = pt_vmstat("thp_swpin_pmd_fallback");
	if (huge && fb1 != fb0) {
		ksft_print_msg("%ld entries split at the read with headroom back\n",
			       fb1 - fb0);
		ret = -1;
	}
	if (!whole_ok("after read", mem, SIZE >> 10, 2)) {
		ksft_print_msg("not whole after the read with headroom back\n");
		ret = -1;
	}
	pt_free_thp(mem, SIZE);
	if (pt_memcg_destroy(WN_CG))
		FAIL("cannot remove memcg %s: %s\n", WN_CG, strerror(errno));
	return ret;
}

/*
 * MADV_WILLNEED over a range with a hole: ENOMEM for the hole, and what is
 * mapped is read ahead all the same: the 4 KiB entries left of the split
 * first THP and the second THP's huge entry as one folio (under read and
 * always too: item 11).
 */
CASE(case_willneed_partial)
{
	long in0, in1, in2;
	char *mem = swapped_region(SIZE, SEED);
	size_t at = PT_MIB, hole = PT_MIB;
	long pte_pages = (PT_PMD_SIZE - hole) / PT_PAGE_SIZE;
	long want = pte_pages + (long)PT_PMD_PAGES;
	int r, err;

	if (!mem)
		return -1;
	if (munmap(mem + at, hole))
		FAIL("munmap: %s\n", strerror(errno));
	hkb("after munmap: below the hole", mem, "SwapPmdMapped", 0);
	hkb("above it", mem + PT_PMD_SIZE, "SwapPmdMapped", PT_PMD_SIZE >> 10);
	in0 = pt_vmstat("pswpin");
	r = madvise(mem, SIZE, MADV_WILLNEED);
	err = errno;
	in1 = pt_vmstat("pswpin");
	if (r != -1 || err != ENOMEM)
		FAIL("MADV_WILLNEED over a hole: %d (%s), want ENOMEM\n", r,
		     r ? strerror(err) : "success");
	if (in1 - in0 != want)
		FAIL("MADV_WILLNEED read %ld pages, want %ld\n", in1 - in0, want);
	if (!data_ok("read back", pt_verify_range(mem, 0, at, SEED) +
		     pt_verify_range(mem, PT_PMD_SIZE, SIZE - PT_PMD_SIZE, SEED)))
		FAIL("data changed\n");
	in2 = pt_vmstat("pswpin");
	if (in2 != in1)
		FAIL("%ld pages swapped in after MADV_WILLNEED\n", in2 - in1);
	if (!hkb("after read: second THP", mem + PT_PMD_SIZE, "AnonHugePages",
		 PT_PMD_SIZE >> 10))
		FAIL("second THP not whole in DRAM after the read\n");
	munmap(mem, at);
	munmap(mem + PT_PMD_SIZE, SIZE - PT_PMD_SIZE);
	return 0;
}

static size_t resident_pages(const char *mem, size_t size, unsigned char *vec)
{
	size_t i, n = 0;

	if (mincore((void *)mem, size, vec))
		return (size_t)-1;
	for (i = 0; i < size / PT_PAGE_SIZE; i++)
		n += vec[i] & 1;
	return n;
}

CASE(case_mincore)
{
	char *mem = swapped_region(SIZE, SEED);
	unsigned char vec[PAGES];
	/* mapped in place is accessible without a fault: resident */
	size_t want = inplace ? PT_PMD_PAGES : 0, resident;

	if (!mem)
		return -1;
	if (inplace_first(mem, SEED))
		FAIL("first THP not mapped in place\n");
	resident = resident_pages(mem, SIZE, vec);
	/* Written out and dropped from the swap cache: not resident. */
	HUGE("mincore: %zu pages resident", resident);
	if (resident != want)
		FAIL("mincore: %zu pages resident, want %zu\n", resident, want);
	/* reading does not change the entries */
	if (!hkb("after mincore", mem, "SwapPmdMapped",
		 (inplace ? PT_PMD_SIZE : SIZE) >> 10) ||
	    (inplace && !kb_is("", mem, "PmswapInPlace", PT_PMD_SIZE >> 10)))
		FAIL("mincore changed the entries\n");
	mark();
	if (!data_ok("read back", pt_verify(mem, SIZE, SEED)))
		FAIL("data changed\n");
	/* (i): the first THP was mapped in place before mark() */
	if (!whole_ok("after read", mem, SIZE >> 10, inplace ? 1 : 2))
		FAIL("not whole after the read\n");
	resident = resident_pages(mem, SIZE, vec);
	HUGE("mincore: %zu pages resident", resident);
	if (resident != PAGES)
		FAIL("only %zu pages resident after the read\n", resident);
	pt_free_thp(mem, SIZE);
	return 0;
}

/*
 * pagemap of the swapped region: every page a swap entry of one device,
 * each THP 512 consecutive slots from a 512-aligned one (a huge entry's
 * cluster); reading pagemap keeps the entries; after the read each THP
 * is present, on 512 consecutive 2 MiB-aligned PFNs when copied to DRAM
 * and the PFNs are visible (root). A THP mapped in place shows as its
 * swap entry, as pagemap turns it back into one
 * (Documentation/mm/pmswap.rst): the data must read back after that.
 */
CASE(case_pagemap)
{
	char *mem = swapped_region(SIZE, SEED);
	uint64_t pm[PAGES], e0;
	size_t i, swapped = 0, runs = 0, present = 0, contiguous = 0, t;
	int fd = pt_pagemap_open();

	if (!mem || fd < 0)
		return -1;
	if (pt_pagemap_range(fd, mem, PAGES, pm))
		FAIL("pagemap: %s\n", strerror(errno));
	for (i = 0; i < PAGES; i++)
		swapped += (pm[i] & PT_PM_SWAP) && !(pm[i] & PT_PM_PRESENT) &&
			   PT_PM_SWP_TYPE(pm[i]) == PT_PM_SWP_TYPE(pm[0]);
	for (t = 0; t < PAGES / PT_PMD_PAGES; t++) {
		e0 = pm[t * PT_PMD_PAGES];
		for (i = 1; i < PT_PMD_PAGES; i++)
			if (PT_PM_SWP_OFFSET(pm[t * PT_PMD_PAGES + i]) !=
			    PT_PM_SWP_OFFSET(e0) + i)
				break;
		runs += i == PT_PMD_PAGES && !(PT_PM_SWP_OFFSET(e0) % PT_PMD_PAGES);
	}
	HUGE("pagemap: %zu of %lu swap entries, %zu THPs on aligned slot runs",
	     swapped, PAGES, runs);
	if (swapped != PAGES || (huge && runs != SIZE / PT_PMD_SIZE))
		FAIL("pagemap of the swapped region is wrong\n");
	if (!hkb("after pagemap", mem, "SwapPmdMapped", SIZE >> 10))
		FAIL("reading pagemap split the entries\n");
	mark();
	if (!data_ok("read back", pt_verify(mem, SIZE, SEED)))
		FAIL("data changed\n");
	if (!whole_ok("after read", mem, SIZE >> 10, 2))
		FAIL("not whole after the read\n");
	if (pt_pagemap_range(fd, mem, PAGES, pm))
		FAIL("pagemap: %s\n", strerror(errno));
	for (t = 0; t < PAGES / PT_PMD_PAGES; t++) {
		e0 = pm[t * PT_PMD_PAGES] & PT_PM_PFN_MASK;
		for (i = 0; i < PT_PMD_PAGES; i++) {
			uint64_t e = pm[t * PT_PMD_PAGES + i];

			present += !!(e & PT_PM_PRESENT);
			contiguous += (e & PT_PM_PRESENT) && e0 &&
				      !(e0 % PT_PMD_PAGES) &&
				      (e & PT_PM_PFN_MASK) == e0 + i;
		}
	}
	HUGE("pagemap after read: %zu present, %zu on THP-contiguous PFNs",
	     present, contiguous);
	if (!inplace && present != PAGES)
		FAIL("%zu of %lu pages present after the read\n", present, PAGES);
	if (huge && !inplace && contiguous && contiguous != PAGES)
		FAIL("only %zu pages on THP-contiguous PFNs\n", contiguous);
	if (!data_ok("read again after pagemap", pt_verify(mem, SIZE, SEED)))
		FAIL("data changed after pagemap\n");
	close(fd);
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
	if (!hkb("after clear_refs", mem, "SwapPmdMapped", SIZE >> 10))
		FAIL("clear_refs split the entries\n");
	e = pt_pagemap_entry(fd, mem);
	if (!(e & PT_PM_SWAP) || (e & PT_PM_SOFT_DIRTY))
		FAIL("swapped page still soft-dirty after clear_refs (%llx)\n",
		     (unsigned long long)e);
	mem[0] = 1;
	e = pt_pagemap_entry(fd, mem);
	if (!(e & PT_PM_SOFT_DIRTY))
		FAIL("written page not soft-dirty (%llx)\n", (unsigned long long)e);
	if (!data_ok("read back (but the written page)",
		     pt_verify_range(mem, PT_PAGE_SIZE, SIZE - PT_PAGE_SIZE, SEED)))
		FAIL("data changed\n");
	close(fd);
	pt_free_thp(mem, SIZE);
	return 0;
}

/*
 * Pages of [p, p + size) in the expected state (@swapped: swapped out;
 * else present, or either when mapped in place, which pagemap reverts to
 * the swap entry) whose soft-dirty bit (pagemap bit 55) is @dirty.
 */
static long pagemap_soft_dirty(int fd, const char *p, size_t size, bool dirty,
			       bool swapped)
{
	size_t i, n = size / PT_PAGE_SIZE;
	uint64_t *pm = calloc(n, sizeof(*pm)), e;
	long ok = 0;

	if (!pm || pt_pagemap_range(fd, p, n, pm)) {
		free(pm);
		return -1;
	}
	for (i = 0; i < n; i++) {
		e = pm[i];
		if (swapped && (!(e & PT_PM_SWAP) || (e & PT_PM_PRESENT)))
			continue;
		if (!swapped && !(e & PT_PM_PRESENT) &&
		    !(inplace && (e & PT_PM_SWAP)))
			continue;
		ok += !!(e & PT_PM_SOFT_DIRTY) == dirty;
	}
	free(pm);
	return ok;
}

/*
 * Soft-dirty through a huge swap entry: after clear_refs, a region written
 * and swapped out keeps the bit on every page, swapped and read back; a
 * region left alone stays clean through the same round trip. (Not with
 * PTE swap entries: splitting the dirty PMD at swap-out sets soft-dirty
 * on every PTE on x86, where pte_mkdirty() sets both bits; a false
 * positive the soft-dirty ABI allows.)
 */
CASE(case_soft_dirty_kept)
{
	long pages = SIZE / PT_PAGE_SIZE, n[4];
	char *dirty = track(pt_alloc_thp(SIZE), SIZE);
	char *clean = track(pt_alloc_thp(SIZE), SIZE);
	int fd = pt_pagemap_open();

	if (!dirty || !clean || fd < 0)
		return -1;
	/* both VMAs exist before clear_refs: a new VMA is all soft-dirty */
	pt_fill(dirty, SIZE, SEED);
	pt_fill(clean, SIZE, SEED + 3);
	if (pt_smaps_kb(dirty, "AnonHugePages") < (long)(SIZE >> 10) ||
	    pt_smaps_kb(clean, "AnonHugePages") < (long)(SIZE >> 10))
		FAIL("regions not THP\n");
	if (pt_write_str("/proc/self/clear_refs", "4"))
		FAIL("clear_refs: %s\n", strerror(errno));
	pt_fill(dirty, SIZE, SEED + 4);
	if (pt_pageout(dirty, SIZE) || pt_pageout(clean, SIZE))
		FAIL("MADV_PAGEOUT: %s\n", strerror(errno));
	if (!hkb("before: written", dirty, "SwapPmdMapped", SIZE >> 10) ||
	    !hkb("clean", clean, "SwapPmdMapped", SIZE >> 10))
		FAIL("not swapped out as huge entries\n");
	n[0] = pagemap_soft_dirty(fd, dirty, SIZE, true, true);
	n[1] = pagemap_soft_dirty(fd, clean, SIZE, false, true);
	if (!data_ok("written", pt_verify(dirty, SIZE, SEED + 4)) ||
	    !data_ok("clean", pt_verify(clean, SIZE, SEED + 3)))
		FAIL("data changed\n");
	hkb("after read: written", dirty, whole_key(), -1);
	n[2] = pagemap_soft_dirty(fd, dirty, SIZE, true, false);
	n[3] = pagemap_soft_dirty(fd, clean, SIZE, false, false);
	/* PTE entries: the clean region is soft-dirty after the split */
	if (n[0] != pages || n[2] != pages ||
	    (huge && (n[1] != pages || n[3] != pages)))
		FAIL("pages with the right soft-dirty bit, of %ld: written %ld swapped, %ld read back; clean %ld swapped, %ld read back\n",
		     pages, n[0], n[2], n[1], n[3]);
	close(fd);
	pt_free_thp(dirty, SIZE);
	pt_free_thp(clean, SIZE);
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
	if (!data_ok("GUP read", pt_verify(buf, SIZE, SEED)))
		FAIL("GUP read wrong data\n");
	/* GUP promotes what a fault would map in place */
	if (!hkb("after GUP", mem, "AnonHugePages", SIZE >> 10))
		FAIL("GUP did not bring the THPs back whole\n");
	close(fd);
	free(buf);
	pt_free_thp(mem, SIZE);
	return 0;
}

/* Nodes with memory: how many, and the highest; -1 when unknown. */
static int mem_nodes(int *last)
{
	char buf[256], *p = buf, *end;
	long a, b;
	int n = 0;

	if (pt_read_str("/sys/devices/system/node/has_memory", buf, sizeof(buf)))
		return -1;
	while (*p) {
		a = strtol(p, &end, 10);
		if (end == p)
			return -1;
		b = a;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		n += b - a + 1;
		*last = b;
		p = *end == ',' ? end + 1 : end;
	}
	return n;
}

#define PT_MPOL_BIND		2
#define PT_MPOL_MF_MOVE		(1 << 1)
#define PT_MPOL_F_NODE		(1 << 0)
#define PT_MPOL_F_ADDR		(1 << 1)

CASE(case_mbind)
{
	char *mem = swapped_region(SIZE, SEED);
	unsigned long nodemask;
	int nodes, node = 0, at = -1;
	long r;

	if (!mem)
		return -1;
	nodes = mem_nodes(&node);
	if (nodes < 1 || node >= 8 * (int)sizeof(nodemask))
		FAIL("cannot tell the NUMA nodes with memory\n");
	if (nodes == 1)
		ksft_print_msg("mbind: the guest has one NUMA node with memory: binding to node %d, where the memory is already\n",
			       node);
	/*
	 * Swapped memory has nothing to migrate: mbind skips a huge swap
	 * entry as it skips PTE swap entries, and succeeds.
	 */
	nodemask = 1UL << node;
	r = syscall(SYS_mbind, mem, SIZE, PT_MPOL_BIND, &nodemask,
		    8 * sizeof(nodemask), PT_MPOL_MF_MOVE);
	if (r)
		FAIL("mbind to node %d: %s\n", node, strerror(errno));
	if (!kb_is("after mbind", mem, "Swap", SIZE >> 10))
		FAIL("mbind swapped memory in\n");
	if (!hkb("after mbind", mem, "SwapPmdMapped", SIZE >> 10))
		FAIL("mbind split the entries\n");
	if (!data_ok("read back", pt_verify(mem, SIZE, SEED)))
		FAIL("data changed\n");
	hkb("after read", mem, whole_key(), -1);
	/* copied back into DRAM: on the bound node */
	if (!inplace && syscall(SYS_get_mempolicy, &at, NULL, 0, mem,
				PT_MPOL_F_NODE | PT_MPOL_F_ADDR))
		FAIL("get_mempolicy: %s\n", strerror(errno));
	if (!inplace && at != node)
		FAIL("swapped in on node %d, bound to node %d\n", at, node);
	pt_free_thp(mem, SIZE);
	return 0;
}

CASE(case_collapse)
{
	char *mem = swapped_region(SIZE, SEED);
	int r, err;

	if (!mem)
		return -1;
	/*
	 * Nothing to collapse: a huge swap entry is not a page table
	 * (Documentation/mm/pmswap.rst: MADV_COLLAPSE fails with
	 * EINVAL on it), and a page table of PTE swap entries alone has no
	 * writable page (stock khugepaged: SCAN_PAGE_RO, also EINVAL). The
	 * entries stay as they are and still fault back whole.
	 */
	r = madvise(mem, SIZE, MADV_COLLAPSE);
	err = errno;
	if (r != -1 || err != EINVAL)
		FAIL("MADV_COLLAPSE on swapped memory: %d (%s), want EINVAL\n",
		     r, r ? strerror(err) : "success");
	if (!kb_is("after MADV_COLLAPSE", mem, "Swap", SIZE >> 10))
		FAIL("MADV_COLLAPSE swapped memory in\n");
	if (!hkb("after MADV_COLLAPSE", mem, "SwapPmdMapped", SIZE >> 10))
		FAIL("MADV_COLLAPSE split the entries\n");
	mark();
	if (!data_ok("read back", pt_verify(mem, SIZE, SEED)))
		FAIL("data changed\n");
	if (!whole_ok("after read", mem, SIZE >> 10, 2))
		FAIL("not whole after the read\n");
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
	hkb("registered", mem, "SwapPmdMapped", SIZE >> 10);
	/* Armed: the entries are split and swapped in 4 KiB at a time. */
	if (!data_ok("read back", pt_verify(mem, SIZE, SEED)))
		FAIL("data changed\n");
	if (huge)
		HUGE("read split them: thp_swpin_pmd_fallback +%ld",
		     pt_vmstat("thp_swpin_pmd_fallback") - fb0);
	if (huge && pt_vmstat("thp_swpin_pmd_fallback") - fb0 != 2)
		FAIL("expected 2 fallbacks, got %ld\n",
		     pt_vmstat("thp_swpin_pmd_fallback") - fb0);
	close(uffd);
	pt_free_thp(mem, SIZE);
	return 0;
}

/*
 * UFFDIO_MOVE of the swapped region to a 2 MiB-aligned destination that
 * is registered MISSING and empty: the move succeeds, the source is left
 * empty (reads zero), the destination holds the entries (huge, moved
 * whole, issue 14 item 10), and reads back the data, as THPs when there
 * is memory. The destination is unregistered before the read: with a
 * userfaultfd armed on the VMA a fault on a huge swap entry splits it by
 * design (Documentation/mm/pmswap.rst, as stock's mTHP swap-in
 * falls back to 4 KiB), so the read would never be whole.
 */
CASE(case_uffd_move)
{
	struct uffdio_api api = { .api = UFFD_API, .features = PT_UFFD_FEATURE_MOVE };
	struct uffdio_register reg;
	struct pt_uffdio_move mv;
	char *src, *dst;
	int uffd, r, err;
	bool ok = true;

	uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0)
		FAIL("userfaultfd: %s\n", strerror(errno));
	if (ioctl(uffd, UFFDIO_API, &api) || !(api.features & PT_UFFD_FEATURE_MOVE)) {
		close(uffd);
		SKIP("the kernel has no UFFDIO_MOVE (UFFD_FEATURE_MOVE, 6.8)");
	}
	src = swapped_region(SIZE, SEED);
	/* a hole after the destination: no VMA merge with the source */
	dst = track(pt_alloc_thp(SIZE + PT_PMD_SIZE), SIZE + PT_PMD_SIZE);
	if (!src || !dst)
		FAIL("no source or destination\n");
	munmap(dst + SIZE, PT_PMD_SIZE);
	reg.range.start = (uintptr_t)dst;
	reg.range.len = SIZE;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		FAIL("UFFDIO_REGISTER: %s\n", strerror(errno));
	memset(&mv, 0, sizeof(mv));
	mv.dst = (uintptr_t)dst;
	mv.src = (uintptr_t)src;
	mv.len = SIZE;
	r = ioctl(uffd, PT_UFFDIO_MOVE, &mv);
	err = errno;
	HUGE("UFFDIO_MOVE %s, moved %lld kB", r ? strerror(err) : "ok",
	     (long long)mv.move >> 10);
	if (r)
		FAIL("UFFDIO_MOVE of the swapped region: %s (moved %lld bytes)\n",
		     strerror(err), (long long)mv.move);
	if (!kb_is("after: source", src, "Swap", 0) ||
	    !kb_is("destination", dst, "Swap", SIZE >> 10))
		FAIL("the swap entries did not move\n");
	/* not whole: go on to the data and the read all the same */
	if (!hkb("destination", dst, "SwapPmdMapped", SIZE >> 10)) {
		ksft_print_msg("the huge entries were not moved whole\n");
		ok = false;
	}
	if (ioctl(uffd, UFFDIO_UNREGISTER, &reg.range))
		FAIL("UFFDIO_UNREGISTER: %s\n", strerror(errno));
	mark();
	if (!data_ok("destination", pt_verify(dst, SIZE, SEED)) ||
	    !data_ok("source reads zero:", PAGES - zero_pages(src, SIZE)))
		FAIL("data wrong after UFFDIO_MOVE\n");
	if (!whole_ok("after read: destination", dst, SIZE >> 10, 2)) {
		ksft_print_msg("moved data not whole at the destination after the read\n");
		ok = false;
	}
	close(uffd);
	pt_free_thp(src, SIZE);
	pt_free_thp(dst, SIZE);
	return ok ? 0 : -1;
}

static char *fork_mem;

struct fork_report {
	long bad_read, whole, maps, bad_write, pmd;
};

/* The child reads the shared region, then rewrites all of it. */
static int child_reads_writes(void *arg, int fd)
{
	struct fork_report rep;

	rep.pmd = pt_smaps_kb(fork_mem, "SwapPmdMapped");
	rep.maps = inplace_pmd_maps();
	rep.bad_read = pt_verify(fork_mem, SIZE, SEED);
	rep.maps = inplace_pmd_maps() - rep.maps;
	rep.whole = pt_smaps_kb(fork_mem, whole_key());
	pt_fill(fork_mem, SIZE, SEED + 9);
	rep.bad_write = pt_verify(fork_mem, SIZE, SEED + 9);
	return write(fd, &rep, sizeof(rep)) == sizeof(rep) ? 0 : 1;
}

/*
 * fork: the child gets the huge entries (with (i): the parent's extent in
 * place is turned back into its entry), reads them whole, then rewrites
 * everything; the parent keeps its entries and its data.
 */
CASE(case_fork)
{
	struct fork_report rep;
	int st;

	fork_mem = swapped_region(SIZE, SEED);
	if (!fork_mem)
		return -1;
	if (inplace_first(fork_mem, SEED))
		FAIL("first THP not mapped in place\n");
	st = pt_fork_report(child_reads_writes, NULL, &rep, sizeof(rep));
	if (st < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		FAIL("child failed (status 0x%x)\n", st);
	if (huge)
		HUGE("child: at fork SwapPmdMapped %ld kB, after read %s %ld kB%s",
		     rep.pmd, whole_key(), rep.whole,
		     inplace ? (rep.maps == 2 ? ", pmswap_inplace_map +2" :
				", pmswap_inplace_map WANT +2") : "");
	if (!data_ok("child read", rep.bad_read) ||
	    !data_ok("child rewrite", rep.bad_write))
		FAIL("child data wrong\n");
	if (huge && (rep.pmd != (long)(SIZE >> 10) || rep.whole != (long)(SIZE >> 10) ||
		     (inplace && rep.maps != 2)))
		FAIL("child's entries not huge, or not whole after its read\n");
	if (!hkb("parent after fork", fork_mem, "SwapPmdMapped", SIZE >> 10))
		FAIL("fork split the parent's entries\n");
	mark();
	if (!data_ok("parent read", pt_verify(fork_mem, SIZE, SEED)))
		FAIL("parent sees the child's writes\n");
	if (!whole_ok("parent after read", fork_mem, SIZE >> 10, 2))
		FAIL("parent's THPs not whole after the read\n");
	pt_free_thp(fork_mem, SIZE);
	return 0;
}

/* Pages the COW child writes: one in each THP. */
static const size_t cow_pages[] = { PT_MIB + PT_PAGE_SIZE, 3 * PT_MIB };
#define NCOW	((int)ARRAY_SIZE(cow_pages))

struct cow_report {
	long bad_own, bad_shared, pmd, thp, inpl;
};

static void cow_check(struct cow_report *rep)
{
	int i;

	rep->bad_own = 0;
	for (i = 0; i < NCOW; i++)
		rep->bad_own += pt_verify(fork_mem + cow_pages[i], PT_PAGE_SIZE,
					  SEED + 5);
	rep->bad_shared = verify_except(fork_mem, SIZE, SEED, cow_pages, NCOW);
	rep->pmd = pt_smaps_kb(fork_mem, "SwapPmdMapped");
	rep->thp = pt_smaps_kb(fork_mem, "AnonHugePages");
	rep->inpl = pt_smaps_kb(fork_mem, "PmswapInPlace");
}

static int rw_full(int fd, void *buf, size_t len, bool wr)
{
	ssize_t n;

	do
		n = wr ? write(fd, buf, len) : read(fd, buf, len);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)len ? 0 : -1;
}

/*
 * fork, then COW: the child writes one page of each swapped THP and
 * checks its view; the parent, with the child still alive, keeps its
 * huge entries, reads its data back unchanged and whole; the child then
 * checks its view again (the parent's swap-in must not touch it).
 */
CASE(case_fork_cow)
{
	struct cow_report c1, c2;
	int up[2], down[2], i, status = -1;
	bool parent_ok;
	char go = 1;
	pid_t pid;

	fork_mem = swapped_region(SIZE, SEED);
	if (!fork_mem)
		return -1;
	if (inplace_first(fork_mem, SEED))
		FAIL("first THP not mapped in place\n");
	if (pipe(up) || pipe(down))
		FAIL("pipe: %s\n", strerror(errno));
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		FAIL("fork: %s\n", strerror(errno));
	if (!pid) {
		close(up[0]);
		close(down[1]);
		for (i = 0; i < NCOW; i++)
			pt_fill(fork_mem + cow_pages[i], PT_PAGE_SIZE, SEED + 5);
		cow_check(&c1);
		if (rw_full(up[1], &c1, sizeof(c1), true) ||
		    rw_full(down[0], &go, 1, false))
			_exit(1);
		cow_check(&c1);
		_exit(rw_full(up[1], &c1, sizeof(c1), true) ? 1 : 0);
	}
	close(up[1]);
	close(down[0]);
	memset(&c1, 0xff, sizeof(c1));
	memset(&c2, 0xff, sizeof(c2));
	if (rw_full(up[0], &c1, sizeof(c1), false))
		ksft_print_msg("no report from the child\n");
	if (huge)
		HUGE("child after its writes: SwapPmdMapped %ld kB, AnonHugePages %ld kB, PmswapInPlace %ld kB",
		     c1.pmd, c1.thp, c1.inpl);
	/* the parent, with the child alive */
	parent_ok = hkb("parent after the child's writes", fork_mem,
			"SwapPmdMapped", SIZE >> 10);
	if (!parent_ok)
		ksft_print_msg("the child's writes changed the parent's entries\n");
	mark();
	if (!data_ok("parent read", pt_verify(fork_mem, SIZE, SEED))) {
		ksft_print_msg("parent sees the child's writes\n");
		parent_ok = false;
	}
	if (!whole_ok("parent after read", fork_mem, SIZE >> 10, 2)) {
		ksft_print_msg("parent's THPs not whole after its read\n");
		parent_ok = false;
	}
	rw_full(down[1], &go, 1, true);
	rw_full(up[0], &c2, sizeof(c2), false);
	close(up[0]);
	close(down[1]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		FAIL("child failed (status 0x%x)\n", status);
	if (!data_ok("child's pages", c1.bad_own) ||
	    !data_ok("child's shared view", c1.bad_shared) ||
	    !data_ok("child's view after the parent's read",
		     c2.bad_own + c2.bad_shared))
		FAIL("child data wrong\n");
	if (!parent_ok)
		FAIL("parent check failed\n");
	pt_free_thp(fork_mem, SIZE);
	return 0;
}

CASE(case_fork_exit_swapped)
{
	pid_t pid;
	int status;

	fork_mem = swapped_region(SIZE, SEED);
	if (!fork_mem)
		return -1;
	fflush(stdout);
	pid = fork();
	if (!pid)
		_exit(0);	/* exit with the entries still swapped */
	waitpid(pid, &status, 0);
	if (!hkb("parent after the child's exit", fork_mem, "SwapPmdMapped",
		 SIZE >> 10))
		FAIL("the child's exit changed the parent's entries\n");
	/* Parent swaps in after the child dropped its copy of the counts. */
	mark();
	if (!data_ok("parent read", pt_verify(fork_mem, SIZE, SEED)))
		FAIL("data changed\n");
	if (!whole_ok("after read", fork_mem, SIZE >> 10, 2))
		FAIL("not whole after the read\n");
	pt_free_thp(fork_mem, SIZE);
	return 0;
}

struct exit_report {
	long pmd, bad, first, maps, second;
};

/*
 * The child swaps out a region of its own, reads its first THP back (under
 * read and always: mapped in place), and exits with a THP or an extent in
 * place and a huge swap entry mapped.
 */
static int child_exits_swapped(void *arg, int fd)
{
	struct exit_report rep = { -1, -1, -1, -1, -1 };
	char *mem = pt_alloc_thp(SIZE);

	if (mem) {
		pt_fill(mem, SIZE, SEED);
		pt_pageout(mem, SIZE);
		rep.pmd = pt_smaps_kb(mem, huge ? "SwapPmdMapped" : "Swap");
		rep.maps = inplace_pmd_maps();
		rep.bad = pt_verify_range(mem, 0, PT_PMD_SIZE, SEED);
		rep.maps = inplace_pmd_maps() - rep.maps;
		rep.first = pt_smaps_kb(mem, whole_key());
		rep.second = pt_smaps_kb(mem, "SwapPmdMapped");
	}
	return write(fd, &rep, sizeof(rep)) == sizeof(rep) ? 0 : 1;
}

CASE(case_exit)
{
	struct exit_report rep;
	int st;

	st = pt_fork_report(child_exits_swapped, NULL, &rep, sizeof(rep));
	if (st < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		FAIL("child failed (status 0x%x)\n", st);
	HUGE("child: before %s %ld kB", huge ? "SwapPmdMapped" : "Swap (PTE entries)",
	     rep.pmd);
	if (huge)
		HUGE("after reading the first THP %s %ld kB (pmswap_inplace_map +%ld), SwapPmdMapped %ld kB; exit: entries gone with the mm",
		     whole_key(), rep.first, rep.maps, rep.second);
	if (rep.pmd != (long)(SIZE >> 10))
		FAIL("child's region not swapped out as expected\n");
	if (!data_ok("child's first THP", rep.bad))
		FAIL("child data wrong\n");
	if (huge && (rep.first != (long)(PT_PMD_SIZE >> 10) ||
		     rep.second != (long)(PT_PMD_SIZE >> 10) ||
		     (inplace && rep.maps != 1)))
		FAIL("child's first THP not whole, or the second not a huge entry\n");
	DATA("after exit: n/a, the mm is gone");
	return 0;
}

static int first_swap(char *dev, size_t len)
{
	char line[512], fmt[16];
	FILE *f = fopen("/proc/swaps", "r");
	int ret = -1;

	if (!f)
		return -1;
	snprintf(fmt, sizeof(fmt), "%%%zus", len - 1);
	if (fgets(line, sizeof(line), f) && fgets(line, sizeof(line), f) &&
	    sscanf(line, fmt, dev) == 1)
		ret = 0;
	fclose(f);
	return ret;
}

/*
 * swapoff of the device that holds the region (with (i): one extent
 * mapped in place, reverted first): everything comes back into DRAM,
 * as THPs with huge entries, the data intact; swapon restores the device
 * with the same policy.
 */
CASE(case_swapoff)
{
	int policy0 = pt_inplace_policy(), policy1, r, err;
	char dev[256], *mem;
	bool ok;

	if (geteuid())
		SKIP("swapoff needs root");
	if (first_swap(dev, sizeof(dev)))
		FAIL("no swap device in /proc/swaps\n");
	mem = swapped_region(SIZE, SEED);
	if (!mem)
		return -1;
	if (inplace_first(mem, SEED))
		FAIL("first THP not mapped in place\n");
	r = swapoff(dev);
	err = errno;
	if (r) {
		swapon(dev, 0);
		FAIL("swapoff %s: %s\n", dev, strerror(err));
	}
	ok = kb_is("after swapoff", mem, "Swap", 0);
	ok &= hkb("after swapoff", mem, "SwapPmdMapped", 0);
	if (inplace)
		ok &= kb_is("", mem, "PmswapInPlace", 0);
	/* THPs in DRAM (with PTE entries: 4 KiB pages, noted) */
	if (huge)
		ok &= kb_is("", mem, "AnonHugePages", SIZE >> 10);
	else
		kb_is("", mem, "AnonHugePages", -1);
	ok &= data_ok("read back", pt_verify(mem, SIZE, SEED));
	r = swapon(dev, 0);
	err = errno;
	policy1 = pt_inplace_policy();
	LEAK("swapon %s %s, policy %d -> %d", dev, r ? strerror(err) : "ok",
	     policy0, policy1);
	if (r || !pt_swap_active() || policy1 != policy0)
		FAIL("swap not restored: swapon %s: %s, policy %d (was %d)\n", dev,
		     r ? strerror(err) : "ok", policy1, policy0);
	pt_free_thp(mem, SIZE);
	return ok ? 0 : -1;
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
	if (!hkb("before", fork_mem, "SwapPmdMapped", SIZE >> 10))
		FAIL("not swapped out as huge entries\n");
	/*
	 * The child splits its copy of the first entry and swaps one page in;
	 * that slot is then cached on its own, so the parent's entry for the
	 * first THP no longer has 512 slots in one state: its fault must
	 * split it. The second THP comes back whole.
	 */
	rc = pt_fork_run(child_touches_one_page, &want);
	if (!data_ok("child's page", rc != 0))
		FAIL("child read wrong data (%d)\n", rc);
	if (!data_ok("parent read", pt_verify(fork_mem, SIZE, SEED)))
		FAIL("parent data changed\n");
	if (huge)
		HUGE("parent's read: thp_swpin_pmd_fallback +%ld, %s +%ld",
		     pt_vmstat("thp_swpin_pmd_fallback") - fb0, whole,
		     pt_vmstat(whole) - in0);
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
	{ "MADV_WILLNEED, then read back as THPs", case_willneed },
	{ "MADV_WILLNEED twice reads once", case_willneed_twice },
	{ "MADV_WILLNEED without 2 MiB of memcg headroom", case_willneed_tight },
	{ "MADV_WILLNEED over a partly unmapped range", case_willneed_partial },
	{ "mincore: not resident, then resident", case_mincore },
	{ "pagemap: swap entries on slot runs, then present", case_pagemap },
	{ "soft-dirty cleared and set again", case_soft_dirty },
	{ "soft-dirty kept by the swapped entry, clean stays clean", case_soft_dirty_kept },
	{ "GUP through /proc/self/mem", case_gup_proc_mem },
	{ "mbind with MPOL_MF_MOVE", case_mbind },
	{ "MADV_COLLAPSE", case_collapse },
	{ "userfaultfd armed: swap-in falls back", case_userfaultfd },
	{ "fork: child reads and rewrites, parent keeps its data", case_fork },
	{ "fork then COW: child writes a page of each THP, both verify", case_fork_cow },
	{ "fork: child exits with entries swapped", case_fork_exit_swapped },
	{ "exit with a swapped region: no slot leaks", case_exit },
	{ "slots in diverged states: the fault splits the entry", case_diverged },
	{ "UFFDIO_MOVE to a MISSING-registered aligned destination", case_uffd_move },
	{ "swapoff and swapon with a swapped region", case_swapoff },
};

/* The column of the matrix this run is. */
static const char *matrix_column(int mode)
{
	static const char * const names[] = { "never", "read", "always" };
	char buf[4096];
	int policy = pt_inplace_policy();

	if (mode < 0)
		return "stock kernel, PTE entries";
	if (!mode)
		return "huge_swap=0, PTE entries";
	if (pt_swap_on_pmem())
		return policy >= 0 ? names[policy] : "pmem without map in place";
	if (!pt_read_str("/proc/swaps", buf, sizeof(buf)) && strstr(buf, "/dev/zram"))
		return "zram";
	return "other swap device";
}

static const char *checked(const char *what)
{
	if (what[0])
		return what;
	return R.early ? "not reached" : "NOT CHECKED";
}

/* Leaks, around every case: swap held and meminfo PmswapInPlace. */
static int run_case(int (*fn)(void))
{
	long held0 = pt_swap_held_kb(), ip0 = pt_meminfo_kb("PmswapInPlace");
	long slack = pt_swap_slot_cache_kb(), held1, ip1;
	int ret;
	bool ok;

	memset(&R, 0, sizeof(R));
	nmaps = 0;
	ret = fn();
	while (R.early && nmaps) {
		nmaps--;
		munmap(maps[nmaps].p, maps[nmaps].len);
	}
	if (ret > 0)
		return ret;
	held1 = pt_swap_held_kb();
	ip1 = pt_meminfo_kb("PmswapInPlace");
	ok = held0 >= 0 && held1 >= 0 && held1 <= held0 + slack;
	LEAK("swap held %ld -> %ld kB (slack %ld)", held0, held1, slack);
	if (ip0 >= 0) {
		ok &= ip1 <= ip0;
		LEAK("meminfo PmswapInPlace %ld -> %ld kB", ip0, ip1);
	} else {
		LEAK("PmswapInPlace n/a: not in this kernel");
	}
	if (R.early) {
		LEAK("not judged: the case stopped early (its regions unmapped first)");
	} else if (!ok) {
		ksft_print_msg("leak: swap held %+ld kB (slack %ld), PmswapInPlace %+ld kB\n",
			       held1 - held0, slack, ip1 - ip0);
		ret = -1;
	}
	return ret;
}

int main(void)
{
	int mode;
	size_t i;
	double t0 = pt_now(), t;

	ksft_print_header();
	if (!pt_swap_active())
		ksft_exit_fail_msg("no swap device is active\n");
	mode = pt_huge_swap_mode();
	huge = mode > 0;
	inplace = huge ? pt_inplace_policy() : 0;
	if (inplace < 0)
		inplace = 0;
	column = matrix_column(mode);
	ksft_print_msg("huge swap entries: %s, map in place: %s, matrix column: %s\n",
		       mode < 0 ? "not in this kernel" : huge ? "on" : "off",
		       inplace ? "on" : "off", column);
	ksft_set_plan(ARRAY_SIZE(cases));
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		int ret;

		t = pt_now();
		ret = run_case(cases[i].fn);
		if (ret > 0) {
			ksft_test_result_skip("%s [%s]: %s\n", cases[i].name,
					      column, R.skip);
			continue;
		}
		ksft_test_result(ret == 0,
				 "%s [%s, %.2f s]: data: %s; huge entries: %s; leaks: %s\n",
				 cases[i].name, column, pt_now() - t,
				 checked(R.data), checked(R.huge), checked(R.leak));
	}
	ksft_print_msg("all cases: %.1f s\n", pt_now() - t0);
	ksft_finished();
}
