// SPDX-License-Identifier: GPL-2.0
/*
 * Map in place: THPs swapped out to pmem come back by mapping their pmem
 * extent into the process, not by copying them into DRAM.
 *
 * Acceptance (policy "read", 256 MiB by default, one access per 4 KiB):
 * at most one fault per THP, MemFree drops by less than 8 MiB, nothing
 * copied (the device's pages_read counter), data intact; the same read
 * with policy "never" in the same boot is timed for the ratio (printed,
 * not asserted: times are for the benchmark). Then every operation that
 * meets an in-place mapping, each checked on the data: writes under each
 * policy, fork, munmap and exit (slots freed; a range flush per extent,
 * not a flush of the mm), mprotect, mremap, MADV_DONTNEED / FREE /
 * PAGEOUT, GUP with and without pages (MADV_POPULATE_*), a FOLL_LONGTERM
 * pin and O_DIRECT I/O from and into in-place pages, memcg accounting
 * (memory.stat pmswap_inplace, not memory.current), and the promotion of
 * a hot extent while a cold one stays. Memory failure and swapoff, which
 * change the device for later tests, are in inplace_destructive: this
 * program leaves the device as it found it.
 *
 * Skips as a whole when swap is not on a DAX pmem device (zram).
 * usage: thp_inplace [MiB]   (default 256)
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
#include <sys/uio.h>
#include <sys/wait.h>

#include "kselftest.h"
#include "pmswap_test.h"
#include "../../../mm/gup_test.h"

#define KNOBS		"/sys/kernel/mm/pmswap/inplace/"
#define MIB(x)		((size_t)(x) << 20)

static struct pt_inplace_dev dev;

static void set_policy(const char *p)
{
	if (pt_write_str(dev.policy, p))
		ksft_exit_fail_msg("cannot set policy %s\n", p);
}

/* A THP region filled with @seed's pattern and swapped out whole. */
static char *swapped_region(size_t size, uint64_t seed)
{
	char *mem = pt_alloc_thp(size);

	if (!mem)
		ksft_exit_fail_perror("mmap");
	pt_fill(mem, size, seed);
	if (pt_pageout(mem, size))
		ksft_exit_fail_perror("MADV_PAGEOUT");
	if (pt_smaps_kb(mem, "SwapPmdMapped") != (long)(size >> 10))
		ksft_print_msg("only %ld of %zu kB in huge swap entries\n",
			       pt_smaps_kb(mem, "SwapPmdMapped"), size >> 10);
	return mem;
}

static long inplace_kb(const void *p)
{
	return pt_smaps_kb(p, "PmswapInPlace");
}

/* 1. The acceptance round trip, policy read against never. */
static void case_acceptance(size_t size)
{
	long nr = size / PT_PMD_SIZE, faults, free0, free1, rd0, rd1, kb;
	long map0, map1, av0, av1;
	struct pt_faults f0;
	double t_read, t_never;
	char *mem;

	/*
	 * No promotion scanner here: reading and checking 256 MiB takes
	 * longer than promote_threshold scans on the debug kernel, and one
	 * hot extent promoted to DRAM is then written out with I/O at the
	 * MADV_PAGEOUT below (seen once: pswpout +512, unmap +127).
	 */
	pt_write_str(KNOBS "promote_interval_ms", "0");
	set_policy("read");
	mem = swapped_region(size, 11);
	ksft_test_result(pt_smaps_kb(mem, "SwapPmdMapped") == (long)(size >> 10),
			 "read: %zu MiB swapped out as huge swap entries\n", size >> 20);

	free0 = pt_meminfo_kb("MemFree");
	rd0 = pt_stat_key(dev.stats, "pages_read");
	map0 = pt_vmstat("pmswap_inplace_map");
	av0 = pt_stat_key(dev.stats, "inplace_copy_avoided_bytes");
	pt_faults_now(&f0);
	t_read = pt_now();
	pt_touch_read(mem, size);
	t_read = pt_now() - t_read;
	faults = pt_faults_since(&f0, NULL);
	free1 = pt_meminfo_kb("MemFree");
	rd1 = pt_stat_key(dev.stats, "pages_read");
	map1 = pt_vmstat("pmswap_inplace_map");
	av1 = pt_stat_key(dev.stats, "inplace_copy_avoided_bytes");

	ksft_test_result(faults <= nr && map1 - map0 == nr,
			 "read: %ld faults for %ld THPs, %ld mapped in place\n",
			 faults, nr, map1 - map0);
	ksft_test_result(free0 - free1 < 8192,
			 "read: MemFree dropped by %ld kB (< 8192)\n", free0 - free1);
	ksft_test_result(rd1 == rd0 && av1 - av0 == (long)size,
			 "read: 0 pages copied from pmem (pages_read +%ld), copy_avoided_bytes +%ld\n",
			 rd1 - rd0, av1 - av0);
	kb = inplace_kb(mem);
	ksft_test_result(kb == (long)(size >> 10) &&
			 pt_meminfo_kb("PmswapInPlace") >= (long)(size >> 10) &&
			 pt_smaps_kb(mem, "AnonHugePages") == 0 &&
			 pt_smaps_kb(mem, "Swap") == (long)(size >> 10),
			 "read: smaps PmswapInPlace %ld kB, Swap %ld kB, AnonHugePages %ld kB; meminfo PmswapInPlace %ld kB\n",
			 kb, pt_smaps_kb(mem, "Swap"), pt_smaps_kb(mem, "AnonHugePages"),
			 pt_meminfo_kb("PmswapInPlace"));
	ksft_test_result(pt_verify(mem, size, 11) == 0, "read: data intact in place\n");

	/* MADV_PAGEOUT of an in-place range: back to swap entries, no I/O. */
	{
		long out0 = pt_vmstat("pswpout"), un0 = pt_vmstat("pmswap_inplace_revert");

		pt_pageout(mem, size);
		ksft_test_result(pt_vmstat("pswpout") == out0 &&
				 pt_vmstat("pmswap_inplace_revert") - un0 == nr &&
				 inplace_kb(mem) == 0 &&
				 pt_smaps_kb(mem, "SwapPmdMapped") == (long)(size >> 10),
				 "pageout: in-place THPs are swap entries again without I/O (pswpout +%ld, unmap +%ld)\n",
				 pt_vmstat("pswpout") - out0,
				 pt_vmstat("pmswap_inplace_revert") - un0);
	}

	pt_write_str(KNOBS "promote_interval_ms", "1000");
	set_policy("never");
	rd0 = pt_stat_key(dev.stats, "pages_read");
	pt_faults_now(&f0);
	t_never = pt_now();
	pt_touch_read(mem, size);
	t_never = pt_now() - t_never;
	faults = pt_faults_since(&f0, NULL);
	rd1 = pt_stat_key(dev.stats, "pages_read");
	ksft_test_result(rd1 - rd0 == (long)(size / PT_PAGE_SIZE) && inplace_kb(mem) == 0 &&
			 pt_smaps_kb(mem, "AnonHugePages") == (long)(size >> 10) &&
			 pt_verify(mem, size, 11) == 0,
			 "never: %ld faults, %ld pages copied, THPs in DRAM, data intact\n",
			 faults, rd1 - rd0);
	ksft_print_msg("read-back %zu MiB: in place %.3f s, copy %.3f s, ratio never/read %.1f\n",
		       size >> 20, t_read, t_never, t_read > 0 ? t_never / t_read : 0);
	pt_free_thp(mem, size);
	set_policy("read");
}

/* 2. Writes under each policy land where the policy says, data correct. */
static void case_writes(void)
{
	size_t size = MIB(16);
	long nr = size / PT_PMD_SIZE, m0, p0;
	char *mem;

	/* read: first write to an in-place THP promotes it */
	set_policy("read");
	mem = swapped_region(size, 21);
	pt_touch_read(mem, size);
	p0 = pt_vmstat("pmswap_inplace_promote");
	pt_fill(mem, size, 22);
	ksft_test_result(pt_vmstat("pmswap_inplace_promote") - p0 == nr &&
			 inplace_kb(mem) == 0 &&
			 pt_smaps_kb(mem, "AnonHugePages") == (long)(size >> 10) &&
			 pt_verify(mem, size, 22) == 0,
			 "read: writes promote every THP to DRAM (promote +%ld), new data intact\n",
			 pt_vmstat("pmswap_inplace_promote") - p0);
	pt_free_thp(mem, size);

	/* always: writes land on the pmem; read back through a copy */
	set_policy("always");
	mem = swapped_region(size, 23);
	m0 = pt_vmstat("pmswap_inplace_map");
	p0 = pt_vmstat("pmswap_inplace_promote");
	pt_fill(mem, size, 24);
	ksft_test_result(pt_vmstat("pmswap_inplace_map") - m0 == nr &&
			 pt_vmstat("pmswap_inplace_promote") == p0 &&
			 inplace_kb(mem) == (long)(size >> 10),
			 "always: write faults map writable in place (map +%ld, promote +%ld)\n",
			 pt_vmstat("pmswap_inplace_map") - m0,
			 pt_vmstat("pmswap_inplace_promote") - p0);
	pt_pageout(mem, size);
	set_policy("never");
	ksft_test_result(pt_verify(mem, size, 24) == 0 &&
			 pt_smaps_kb(mem, "AnonHugePages") == (long)(size >> 10),
			 "always: data written in place reads back correctly through DRAM\n");
	pt_free_thp(mem, size);

	/* never: no in-place mapping at all */
	mem = swapped_region(size, 25);
	m0 = pt_vmstat("pmswap_inplace_map");
	pt_touch_read(mem, size);
	ksft_test_result(pt_vmstat("pmswap_inplace_map") == m0 && inplace_kb(mem) == 0 &&
			 pt_verify(mem, size, 25) == 0,
			 "never: read-back copies, nothing mapped in place\n");
	pt_free_thp(mem, size);
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
static void case_fork(void)
{
	size_t size = MIB(8);
	struct fork_arg a = { .size = size };
	long held0 = pt_swap_held_kb();
	int rc;

	a.mem = swapped_region(size, 31);
	pt_touch_read(a.mem, size);
	if (inplace_kb(a.mem) != (long)(size >> 10))
		ksft_print_msg("fork: only %ld kB in place before fork\n", inplace_kb(a.mem));
	rc = pt_fork_run(fork_child, &a);
	ksft_test_result(rc == 0 && pt_verify(a.mem, size, 31) == 0,
			 "fork: child read the data and wrote its own (rc %d), parent's unchanged\n",
			 rc);
	pt_fill(a.mem, size, 33);
	ksft_test_result(pt_verify(a.mem, size, 33) == 0, "fork: parent writes after fork\n");
	pt_free_thp(a.mem, size);
	ksft_test_result(pt_swap_held_kb() <= held0 + pt_swap_slot_cache_kb(),
			 "fork: swap held back to %ld kB (was %ld kB) after both are gone\n",
			 pt_swap_held_kb(), held0);
}

/* 4. munmap and exit free the slots of in-place extents. */
static int exit_child(void *p)
{
	char *mem = swapped_region(MIB(8), 41);

	pt_touch_read(mem, MIB(8));
	return inplace_kb(mem) == 8192 ? 0 : 1;
}

/*
 * Issue 14 item 9: a munmap of 32 extents mapped in place reverts each
 * one, and each revert flushed the whole mm (flush_tlb_mm(), addr 0 from
 * the zap path). Now each flushes its own 2 MiB: the full flushes of the
 * munmap stay far below one per extent. Counts from /proc/vmstat
 * (nr_tlb_local_flush_all, nr_tlb_remote_flush; CONFIG_DEBUG_TLBFLUSH in
 * configs/pmswap.config): the process is single-threaded, so its flushes
 * are local; other CPUs' flushes in the same window only add to the count.
 */
static void case_unmap_flush(void)
{
	size_t size = MIB(64);
	long all0, all1, one0, one1, in;
	char *mem;

	all0 = pt_vmstat("nr_tlb_local_flush_all");
	if (all0 < 0) {
		ksft_test_result_fail("munmap flush: no nr_tlb_local_flush_all in /proc/vmstat (CONFIG_DEBUG_TLBFLUSH)\n");
		return;
	}
	mem = swapped_region(size, 43);
	pt_touch_read(mem, size);
	in = inplace_kb(mem);
	all0 = pt_vmstat("nr_tlb_local_flush_all");
	one0 = pt_vmstat("nr_tlb_local_flush_one");
	pt_free_thp(mem, size);
	all1 = pt_vmstat("nr_tlb_local_flush_all");
	one1 = pt_vmstat("nr_tlb_local_flush_one");
	ksft_test_result(in == (long)(size >> 10) && all1 - all0 < 8,
			 "munmap flush: %ld kB in place, munmap made %ld full and %ld single TLB flushes (full < 8, 32 extents)\n",
			 in, all1 - all0, one1 - one0);
}

static void case_unmap_exit(void)
{
	long held0 = pt_swap_held_kb(), now0 = pt_stat_key(dev.stats, "inplace_mapped_now");
	size_t size = MIB(8);
	char *mem;
	int rc;

	mem = swapped_region(size, 42);
	pt_touch_read(mem, size);
	ksft_test_result(pt_stat_key(dev.stats, "inplace_mapped_now") - now0 == (long)(size / PT_PMD_SIZE),
			 "munmap: %ld extents mapped in place\n",
			 pt_stat_key(dev.stats, "inplace_mapped_now") - now0);
	pt_free_thp(mem, size);
	ksft_test_result(pt_swap_held_kb() <= held0 + pt_swap_slot_cache_kb() &&
			 pt_stat_key(dev.stats, "inplace_mapped_now") == now0,
			 "munmap: slots freed (held %ld kB, was %ld), nothing mapped in place\n",
			 pt_swap_held_kb(), held0);
	rc = pt_fork_run(exit_child, NULL);
	ksft_test_result(rc == 0 && pt_swap_held_kb() <= held0 + pt_swap_slot_cache_kb() &&
			 pt_stat_key(dev.stats, "inplace_mapped_now") == now0,
			 "exit: child had 8 MiB in place (rc %d); slots freed at exit\n", rc);
}

/* 5. mprotect, mremap, partial operations, DONTNEED and FREE. */
static void case_walkers(void)
{
	size_t size = MIB(8);
	long held0 = pt_swap_held_kb();
	char *mem, *dst, *moved;
	size_t i;

	/* mprotect read-only, whole range: data stays readable */
	mem = swapped_region(size, 51);
	pt_touch_read(mem, size);
	ksft_test_result(mprotect(mem, size, PROT_READ) == 0 && pt_verify(mem, size, 51) == 0,
			 "mprotect: PROT_READ over in-place THPs, data intact\n");
	mprotect(mem, size, PROT_READ | PROT_WRITE);
	pt_touch_read(mem, size);
	/* partial mprotect inside an in-place THP: split, then 4 KiB pages */
	ksft_test_result(mprotect(mem + PT_PAGE_SIZE, PT_PAGE_SIZE, PROT_READ) == 0 &&
			 pt_verify(mem, size, 51) == 0,
			 "mprotect: 4 KiB inside an in-place THP splits it, data intact\n");
	pt_free_thp(mem, size);

	/* mremap: aligned move as one entry */
	mem = swapped_region(size, 52);
	pt_touch_read(mem, size);
	dst = pt_alloc_thp(size);
	moved = mremap(mem, size, size, MREMAP_MAYMOVE | MREMAP_FIXED, dst);
	ksft_test_result(moved == dst && pt_verify(moved, size, 52) == 0 &&
			 pt_smaps_kb(moved, "Swap") == (long)(size >> 10),
			 "mremap: in-place THPs move (as swap entries), data intact\n");
	pt_free_thp(moved, size);

	/* MADV_DONTNEED and MADV_FREE: slots freed, pages read as zero */
	mem = swapped_region(size, 53);
	pt_touch_read(mem, size);
	madvise(mem, size / 2, MADV_DONTNEED);
	madvise(mem + size / 2, size / 2, MADV_FREE);
	for (i = 0; i < size; i += PT_PAGE_SIZE)
		if (mem[i])
			break;
	ksft_test_result(i == size && pt_swap_held_kb() <= held0 + pt_swap_slot_cache_kb(),
			 "MADV_DONTNEED/MADV_FREE: in-place THPs dropped, slots freed\n");
	pt_free_thp(mem, size);

	/* GUP: /proc/self/mem reads pin the pages, which promotes them */
	{
		char *buf = malloc(size);
		int fd = open("/proc/self/mem", O_RDONLY);
		long p0;

		mem = swapped_region(size, 54);
		pt_touch_read(mem, size);
		p0 = pt_vmstat("pmswap_inplace_promote");
		ksft_test_result(fd >= 0 && buf &&
				 pread(fd, buf, size, (off_t)(uintptr_t)mem) == (ssize_t)size &&
				 pt_verify(buf, size, 54) == 0 &&
				 pt_vmstat("pmswap_inplace_promote") - p0 == (long)(size / PT_PMD_SIZE) &&
				 pt_smaps_kb(mem, "AnonHugePages") == (long)(size >> 10),
				 "GUP: /proc/self/mem read of in-place THPs promotes them, data intact\n");
		if (fd >= 0)
			close(fd);
		free(buf);
		pt_free_thp(mem, size);
	}
}

/*
 * GUP that takes no page: MADV_POPULATE_READ maps the extents in place,
 * with no copy and no DRAM, and promotes nothing; MADV_POPULATE_WRITE
 * under "read" promotes them. mlock (mm_populate(), GUP without pages
 * too) brings them into DRAM.
 */
static void case_populate(void)
{
	size_t size = MIB(8);
	long n = size / PT_PMD_SIZE, rd0, m0, p0, in0, ret;
	char *mem;

	set_policy("read");
	mem = swapped_region(size, 57);
	rd0 = pt_stat_key(dev.stats, "pages_read");
	m0 = pt_vmstat("pmswap_inplace_map");
	p0 = pt_vmstat("pmswap_inplace_promote");
	ret = madvise(mem, size, MADV_POPULATE_READ);
	ksft_test_result(ret == 0 && inplace_kb(mem) == (long)(size >> 10) &&
			 pt_smaps_kb(mem, "AnonHugePages") == 0 &&
			 pt_stat_key(dev.stats, "pages_read") == rd0 &&
			 pt_vmstat("pmswap_inplace_map") - m0 >= n &&
			 pt_vmstat("pmswap_inplace_promote") == p0 &&
			 pt_verify(mem, size, 57) == 0,
			 "MADV_POPULATE_READ: %ld kB in place, %ld kB of THPs, pages_read +%ld, maps +%ld, promotions +%ld, data intact (ret %ld)\n",
			 inplace_kb(mem), pt_smaps_kb(mem, "AnonHugePages"),
			 pt_stat_key(dev.stats, "pages_read") - rd0,
			 pt_vmstat("pmswap_inplace_map") - m0,
			 pt_vmstat("pmswap_inplace_promote") - p0, ret);
	ret = madvise(mem, size, MADV_POPULATE_WRITE);
	ksft_test_result(ret == 0 && inplace_kb(mem) == 0 &&
			 pt_vmstat("pmswap_inplace_promote") - p0 == n &&
			 pt_smaps_kb(mem, "AnonHugePages") == (long)(size >> 10) &&
			 pt_verify(mem, size, 57) == 0,
			 "MADV_POPULATE_WRITE under read: %ld extents promoted to THPs, data intact (ret %ld)\n",
			 pt_vmstat("pmswap_inplace_promote") - p0, ret);
	pt_free_thp(mem, size);

	/* mlock: locked memory lives in DRAM, not mapped in place */
	mem = swapped_region(size, 58);
	pt_touch_read(mem, size);
	in0 = inplace_kb(mem);
	ret = mlock(mem, size);
	ksft_test_result(in0 == (long)(size >> 10) && ret == 0 && inplace_kb(mem) == 0 &&
			 pt_verify(mem, size, 58) == 0,
			 "mlock: in-place THPs brought into DRAM (%ld kB in place before, %ld after), data intact\n",
			 in0, inplace_kb(mem));
	munlock(mem, size);
	pt_free_thp(mem, size);
}

/* 6. A FOLL_LONGTERM pin moves the data to DRAM first. */
static void case_longterm(void)
{
	size_t size = MIB(4);
	struct gup_test g = { 0 };
	char *mem;
	int fd, ret;

	fd = open("/sys/kernel/debug/gup_test", O_RDWR);
	if (fd < 0) {
		ksft_test_result_skip("FOLL_LONGTERM: no gup_test (%s)\n", strerror(errno));
		return;
	}
	mem = swapped_region(size, 61);
	pt_touch_read(mem, size);
	g.addr = (uintptr_t)mem;
	g.size = size;
	g.nr_pages_per_call = size / PT_PAGE_SIZE;
	ret = ioctl(fd, PIN_LONGTERM_BENCHMARK, &g);
	ksft_test_result(ret == 0 && inplace_kb(mem) == 0 &&
			 pt_smaps_kb(mem, "AnonHugePages") == (long)(size >> 10) &&
			 pt_verify(mem, size, 61) == 0,
			 "FOLL_LONGTERM: pin moved in-place THPs to DRAM (ret %d, in place %ld kB)\n",
			 ret, inplace_kb(mem));
	close(fd);
	pt_free_thp(mem, size);
}

/* 6a. O_DIRECT from and into in-place pages (a zram disk as the target) */
static void case_odirect(void)
{
	size_t size = MIB(4);
	char *src, *dst;
	long p0, p1;
	ssize_t wr = -1, rd = -1;
	int fd;

	if (!pt_path_exists("/sys/block/zram0") ||
	    (pt_read_long("/sys/block/zram0/disksize") == 0 &&
	     pt_write_str("/sys/block/zram0/disksize", "16M"))) {
		ksft_test_result_skip("O_DIRECT: no zram0 disk to write to\n");
		return;
	}
	fd = open("/dev/zram0", O_RDWR | O_DIRECT);
	if (fd < 0) {
		ksft_test_result_fail("O_DIRECT: open /dev/zram0: %s\n", strerror(errno));
		return;
	}
	src = swapped_region(size, 63);
	dst = swapped_region(size, 64);
	pt_touch_read(src, size);
	pt_touch_read(dst, size);
	p0 = pt_vmstat("pmswap_inplace_promote");
	if (inplace_kb(src) == (long)(size >> 10) && inplace_kb(dst) == (long)(size >> 10)) {
		wr = pwrite(fd, src, size, 0);	/* GUP reads the in-place pages */
		rd = pread(fd, dst, size, 0);	/* GUP writes into them */
	}
	p1 = pt_vmstat("pmswap_inplace_promote");
	ksft_test_result(wr == (ssize_t)size && rd == (ssize_t)size &&
			 pt_verify(src, size, 63) == 0 && pt_verify(dst, size, 63) == 0 &&
			 p1 - p0 == (long)(2 * size / PT_PMD_SIZE),
			 "O_DIRECT: write from and read into in-place THPs (%zd, %zd bytes), promoted first (+%ld), data correct\n",
			 wr, rd, p1 - p0);
	close(fd);
	pt_write_str("/sys/block/zram0/reset", "1");
	pt_free_thp(src, size);
	pt_free_thp(dst, size);
}

/* 6b. memcg: in-place memory is swap, not DRAM, and memory.stat shows it */
#define CG "pmswap-inplace"

static int memcg_child(void *arg, int fd)
{
	long out[4];
	size_t size = MIB(16);
	char *mem;

	if (pt_memcg_enter(CG))
		return 1;
	mem = swapped_region(size, 66);
	pt_touch_read(mem, size);
	out[0] = pt_memcg_stat(CG, "memory.stat", "pmswap_inplace");
	out[1] = pt_memcg_read_long(CG, "memory.current");
	out[2] = pt_memcg_read_long(CG, "memory.swap.current");
	out[3] = pt_verify(mem, size, 66);
	if (write(fd, out, sizeof(out)) != sizeof(out))
		return 2;
	pt_free_thp(mem, size);
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
	ksft_test_result(rc == 0 && v[0] == (long)MIB(16) && v[1] < (long)MIB(8) &&
			 v[2] >= (long)MIB(16) && v[3] == 0,
			 "memcg: memory.stat pmswap_inplace %ld MiB, memory.current %ld MiB, memory.swap.current %ld MiB; 0 after munmap (rc %d)\n",
			 v[0] >> 20, v[1] >> 20, v[2] >> 20, rc);
	pt_memcg_destroy(CG);
}

/* 7. A hot extent is promoted within a bounded time; a cold one stays. */
static void case_promotion(void)
{
	size_t size = MIB(2);
	char *hot, *cold;
	long p0;
	double t0, t = -1;
	int i;

	hot = swapped_region(size, 71);
	cold = swapped_region(size, 72);
	pt_touch_read(hot, size);
	pt_touch_read(cold, size);
	/*
	 * Fast scans only from here: the touch that maps the cold extent
	 * must not span two of them (on the debug kernel under TCG it took
	 * longer than 100 ms once, the extent looked accessed twice in a row
	 * and was promoted: promote +2).
	 */
	pt_write_str(KNOBS "promote_threshold", "2");
	pt_write_str(KNOBS "promote_interval_ms", "100");
	p0 = pt_vmstat("pmswap_inplace_promote");
	t0 = pt_now();
	for (i = 0; i < 1000; i++) {
		pt_touch_read(hot, size);
		if (inplace_kb(hot) == 0 && pt_smaps_kb(hot, "AnonHugePages") == 2048) {
			t = pt_now() - t0;
			break;
		}
		usleep(10000);
	}
	ksft_test_result(t >= 0 && pt_verify(hot, size, 71) == 0,
			 "promotion: hot THP moved to DRAM after %.2f s (bound 10 s), data intact\n", t);
	ksft_test_result(inplace_kb(cold) == 2048 &&
			 pt_vmstat("pmswap_inplace_promote") - p0 == 1 &&
			 pt_verify(cold, size, 72) == 0,
			 "promotion: cold THP stays in place (promote +%ld)\n",
			 pt_vmstat("pmswap_inplace_promote") - p0);
	pt_write_str(KNOBS "promote_interval_ms", "1000");
	pt_write_str(KNOBS "promote_threshold", "3");
	pt_free_thp(hot, size);
	pt_free_thp(cold, size);
}

/* 8. Bad sysfs values are refused. */
static void case_knobs(void)
{
	ksft_test_result(pt_write_str(dev.policy, "sometimes") != 0 &&
			 pt_write_str(KNOBS "promote_threshold", "0") != 0 &&
			 pt_write_str(KNOBS "promote_interval_ms", "-1") != 0 &&
			 pt_write_str(KNOBS "promote_rate_mb", "x") != 0,
			 "knobs: bad values refused\n");
}

int main(int argc, char **argv)
{
	size_t size = MIB(argc > 1 ? atol(argv[1]) : 256);
	ksft_print_header();
	/* the first clock_gettime() faults the vDSO data page in: not later */
	pt_now();
	/* on pmem, a kernel without map in place fails; on zram, skip */
	if (pt_inplace_dev_find(&dev)) {
		if (pt_swap_on_pmem())
			ksft_exit_fail_msg("swap is on pmem, but this kernel does not map it in place\n");
		ksft_exit_skip("swap is not on a pmem device\n");
	}
	ksft_print_msg("device %s\n", dev.dev);

	ksft_set_plan(33);
	case_acceptance(size);
	case_writes();
	case_fork();
	case_unmap_exit();
	case_unmap_flush();
	case_walkers();
	case_populate();
	case_longterm();
	case_odirect();
	case_memcg();
	case_promotion();
	case_knobs();
	set_policy("read");
	ksft_finished();
}
