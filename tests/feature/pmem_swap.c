// SPDX-License-Identifier: GPL-2.0
/*
 * The pmem swap backend: with swap on an fsdax namespace, swap data moves
 * by CPU copies through the DAX mapping, not through the block layer, and
 * every swapped THP owns a physically 2 MiB-aligned extent.
 *
 * The block layer's own I/O statistics of the pmem disk (iostats switched
 * on for the test) prove the DAX path issues no bio, and the same round
 * trip with the per-device "io" knob at "bio" proves those statistics do
 * move when bios are used. Ends with a poisoned slot: hwpoison-inject on
 * the pmem page behind a swapped THP must give its owner SIGBUS while the
 * kernel and other data survive. That case poisons the device for good
 * (QEMU cannot clear poison), so this test runs last in its boot.
 *
 * usage: pmem_swap [MiB]   (default 256)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/swap.h>
#include <sys/wait.h>

#include "kselftest.h"
#include "pmswap_test.h"

/* the pmem swap device (pmem0, or daxswapN.M on a device-dax instance) */
static char DEV[64] = "pmem0", DEVPATH[80], DIR[128], STAT[128];

/* The first device pmswap lists, else pmem0 (for the skip message). */
static void find_dev(void)
{
	glob_t g;

	if (!glob("/sys/kernel/mm/pmswap/pmem/*/io", 0, NULL, &g) && g.gl_pathc) {
		char *end = strrchr(g.gl_pathv[0], '/');

		*end = 0;
		snprintf(DEV, sizeof(DEV), "%s", strrchr(g.gl_pathv[0], '/') + 1);
	}
	globfree(&g);
	snprintf(DEVPATH, sizeof(DEVPATH), "/dev/%s", DEV);
	snprintf(DIR, sizeof(DIR), "/sys/kernel/mm/pmswap/pmem/%s", DEV);
	snprintf(STAT, sizeof(STAT), "/sys/block/%s/stat", DEV);
}

/* DIR/@file */
static const char *at(const char *file)
{
	static char path[4][192];
	static int i;

	i = (i + 1) % 4;
	snprintf(path[i], sizeof(path[i]), "%s/%s", DIR, file);
	return path[i];
}
#define POISON		"/sys/kernel/debug/hwpoison/corrupt-pfn"

static long pmem_stat(const char *key)
{
	return pt_stat_key(at("stats"), key);
}

/*
 * The device's stats/ directory: one counter per file, each a number and
 * nothing else (sysfs convention), every counter the docs name present;
 * with map in place on the device (its inplace file exists), the
 * inplace_* counters too.
 */
static int stats_layout(char *why, size_t len)
{
	static const char *const keys[] = {
		"pages_written", "pages_read", "read_errors", "write_fallbacks",
		"poison_notices", "bad_pages", "extents_total", "extents_free",
		"extents_huge",
		/* the inplace_* ones: only with map in place */
		"inplace_mapped_now", "inplace_maps", "inplace_promotions",
		"inplace_copy_avoided_bytes", "inplace_pte_mapped_now",
		"inplace_pte_maps", "inplace_pte_promotions",
		"inplace_pte_maps_around", "inplace_slot_records",
		"inplace_metadata_bytes",
	};
	bool inplace = !access(at("inplace"), F_OK);
	char path[192], buf[64], *end;
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (!inplace && !strncmp(keys[i], "inplace_", 8))
			break;
		snprintf(path, sizeof(path), "%s/stats/%s", DIR, keys[i]);
		if (pt_read_str(path, buf, sizeof(buf))) {
			snprintf(why, len, "%s: %s", path, strerror(errno));
			return -1;
		}
		strtol(buf, &end, 10);
		if (end == buf || *end) {
			snprintf(why, len, "%.180s holds '%.40s', not one number", path, buf);
			return -1;
		}
	}
	snprintf(why, len, "%zu counters, one number per file", i);
	return 0;
}

/* Sectors read and written according to the block layer's disk stats. */
static int disk_sectors(long *rd, long *wr)
{
	long v[11];
	char buf[512];

	if (pt_read_str(STAT, buf, sizeof(buf)) ||
	    sscanf(buf, "%ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld",
		   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7],
		   &v[8], &v[9], &v[10]) != 11)
		return -1;
	*rd = v[2];
	*wr = v[6];
	return 0;
}

struct trip {
	long written, read;		/* pmswap DAX counters, pages */
	long sect_rd, sect_wr;		/* block layer disk stats, sectors */
	long huge_extents;		/* extents holding a THP after swap-out */
	size_t bad;			/* pages with wrong data */
	long swapped_kb;
	double t_out, t_in;
	bool aligned;			/* every THP's slots start 512-aligned */
};

static int round_trip(size_t size, uint64_t seed, struct trip *t)
{
	long w0, r0, rd0, wr0, rd1, wr1, h0;
	int fd = pt_pagemap_open();
	char *mem = pt_alloc_thp(size);
	double t0;
	size_t i;

	if (!mem || fd < 0)
		return -1;
	pt_fill(mem, size, seed);
	w0 = pmem_stat("pages_written");
	r0 = pmem_stat("pages_read");
	h0 = pmem_stat("extents_huge");
	if (disk_sectors(&rd0, &wr0))
		return -1;
	t0 = pt_now();
	pt_pageout(mem, size);
	t->t_out = pt_now() - t0;
	t->swapped_kb = pt_smaps_kb(mem, "Swap");
	t->huge_extents = pmem_stat("extents_huge") - h0;
	t->aligned = true;
	for (i = 0; i < size; i += PT_PMD_SIZE) {
		uint64_t e = pt_pagemap_entry(fd, mem + i);

		if (!(e & PT_PM_SWAP) || PT_PM_SWP_OFFSET(e) % PT_PMD_PAGES)
			t->aligned = false;
	}
	if (disk_sectors(&rd1, &wr1))
		return -1;
	t->sect_wr = wr1 - wr0;
	t0 = pt_now();
	t->bad = pt_verify(mem, size, seed);
	t->t_in = pt_now() - t0;
	if (disk_sectors(&rd0, &wr0))
		return -1;
	t->sect_rd = rd0 - rd1;
	t->written = pmem_stat("pages_written") - w0;
	t->read = pmem_stat("pages_read") - r0;
	pt_free_thp(mem, size);
	close(fd);
	return 0;
}

static int child_poisoned_read(void *arg)
{
	unsigned long phys0 = *(unsigned long *)arg;
	char *mem = pt_alloc_thp(PT_PMD_SIZE);
	int fd = pt_pagemap_open();
	char pfn[32];
	uint64_t e;

	if (!mem || fd < 0)
		return 10;
	pt_fill(mem, PT_PMD_SIZE, 77);
	pt_pageout(mem, PT_PMD_SIZE);
	e = pt_pagemap_entry(fd, mem + 7 * PT_PAGE_SIZE);
	if (!(e & PT_PM_SWAP))
		return 11;
	snprintf(pfn, sizeof(pfn), "%#lx",
		 (unsigned long)(phys0 / PT_PAGE_SIZE + PT_PM_SWP_OFFSET(e)));
	printf("# child: poisoning pfn %s (swap offset %llu)\n", pfn,
	       (unsigned long long)PT_PM_SWP_OFFSET(e));
	fflush(stdout);
	if (pt_write_str(POISON, pfn))
		return 12;
	/* The owner reads its swapped data: this must raise SIGBUS. */
	return pt_verify(mem, PT_PMD_SIZE, 77) ? 13 : 14;
}

int main(int argc, char **argv)
{
	size_t size = (argc > 1 ? strtoul(argv[1], NULL, 0) : 256) * PT_MIB;
	long pages = size / PT_PAGE_SIZE, thps = size / PT_PMD_SIZE;
	struct trip dax, bio;
	unsigned long phys0;
	char buf[128], why[256];
	int ret;
	int huge, st;
	char *other;

	ksft_print_header();
	find_dev();
	if (!pt_path_exists(DIR))
		ksft_exit_skip("%s is not a pmem swap device (swap here: %s)\n",
			       DEVPATH, pt_path_exists(DEVPATH) ? "not DAX" : "no pmem");
	huge = pt_huge_swap_mode() > 0;
	ksft_set_plan(17);

	ksft_test_result(!pt_read_str(at("io"), buf, sizeof(buf)) && !strcmp(buf, "dax"),
			 "%s is a pmem swap device, io path dax\n", DEVPATH);
	phys0 = strtoul(pt_read_str(at("phys_start"), buf, sizeof(buf)) ? "1" : buf, NULL, 0);
	ksft_test_result(phys0 && phys0 % PT_PMD_SIZE == 0,
			 "swap area starts 2 MiB aligned at %#lx\n", phys0);
	ret = stats_layout(why, sizeof(why));
	ksft_test_result(!ret, "%s/stats/: %s\n", DIR, why);
	ksft_test_result(pmem_stat("extents_total") > 0 &&
			 pmem_stat("extents_free") <= pmem_stat("extents_total"),
			 "huge extents: %ld total, %ld free\n",
			 pmem_stat("extents_total"), pmem_stat("extents_free"));
	snprintf(buf, sizeof(buf), "/sys/block/%s/queue/iostats", DEV);
	ksft_test_result(!pt_write_str(buf, "1"),
			 "block layer statistics of %s on\n", DEV);

	/* DAX path */
	if (round_trip(size, 5, &dax))
		ksft_exit_fail_msg("round trip setup failed\n");
	ksft_test_result(dax.swapped_kb == (long)(size >> 10) && dax.written == pages,
			 "dax: %lu MiB swapped out, %ld pages copied to pmem\n",
			 size >> 20, dax.written);
	ksft_test_result(dax.sect_wr == 0 && dax.sect_rd == 0,
			 "dax: block layer not used (%ld sectors written, %ld read)\n",
			 dax.sect_wr, dax.sect_rd);
	if (huge)
		ksft_test_result(dax.aligned && dax.huge_extents == thps,
				 "dax: %ld THPs in %ld 2 MiB-aligned extents\n",
				 thps, dax.huge_extents);
	else
		ksft_test_result(dax.aligned,
				 "dax: THP slots start on 2 MiB boundaries (huge swap off)\n");
	ksft_test_result(dax.bad == 0 && dax.read == pages,
			 "dax: data intact after read-back, %ld pages copied from pmem\n",
			 dax.read);

	/* The same through bios, for comparison: the disk stats must move. */
	ksft_test_result(!pt_write_str(at("io"), "bio"), "io path set to bio\n");
	if (round_trip(size, 6, &bio))
		ksft_exit_fail_msg("round trip setup failed\n");
	ksft_test_result(bio.bad == 0 && bio.written == 0 && bio.read == 0 &&
			 bio.sect_wr >= (long)(size >> 9) &&
			 bio.sect_rd >= (long)(size >> 9),
			 "bio: data intact, %ld sectors written and %ld read by bios, 0 DAX copies\n",
			 bio.sect_wr, bio.sect_rd);
	pt_write_str(at("io"), "dax");
	ksft_print_msg("timing (TCG wall clock, same boot): swap-out dax %.3f s, bio %.3f s, ratio dax/bio %.2f\n",
		       dax.t_out, bio.t_out, dax.t_out / bio.t_out);
	ksft_print_msg("timing (TCG wall clock, same boot): read-back dax %.3f s, bio %.3f s, ratio dax/bio %.2f\n",
		       dax.t_in, bio.t_in, dax.t_in / bio.t_in);

	/* Bad knob values change nothing. */
	errno = 0;
	st = pt_write_str(at("io"), "fast");
	ksft_test_result(st && !pt_read_str(at("io"), buf, sizeof(buf)) &&
			 !strcmp(buf, "dax"),
			 "io: junk value refused, still dax\n");
	st = pt_write_str("/sys/kernel/mm/pmswap/pmem/enabled", "maybe");
	ksft_test_result(st && pt_read_long("/sys/kernel/mm/pmswap/pmem/enabled") == 1,
			 "enabled: junk value refused, still 1\n");

	/* swapoff with live data on the pmem device, then swapon again */
	other = pt_alloc_thp(32 * PT_MIB);
	if (!other)
		ksft_exit_fail_perror("mmap");
	pt_fill(other, 32 * PT_MIB, 8);
	pt_pageout(other, 32 * PT_MIB);
	st = swapoff(DEVPATH);
	ksft_test_result(st == 0 && !pt_path_exists(DIR) &&
			 pt_verify(other, 32 * PT_MIB, 8) == 0,
			 "swapoff with 32 MiB on pmem: data intact, device released\n");
	st = swapon(DEVPATH, 0);
	ksft_test_result(st == 0 && pt_path_exists(DIR),
			 "swapon again: pmem swap device back\n");

	/* Poison: only the owner of the poisoned slot dies. */
	pt_pageout(other, 32 * PT_MIB);
	if (!pt_path_exists(POISON)) {
		ksft_test_result_fail("hwpoison-inject not available (%s)\n", POISON);
		ksft_test_result_fail("poison test not run\n");
		ksft_finished();
	}
	{
		long notices = pmem_stat("poison_notices");
		long errs = pmem_stat("read_errors");

		pid_t pid;

		fflush(stdout);
		pid = fork();
		if (pid == 0)
			_exit(child_poisoned_read(&phys0));
		if (pid < 0 || waitpid(pid, &st, 0) != pid)
			ksft_exit_fail_perror("fork");
		ksft_test_result(WIFSIGNALED(st) && WTERMSIG(st) == SIGBUS,
				 "owner of the poisoned slot got SIGBUS (%s %d)\n",
				 WIFSIGNALED(st) ? "signal" : "exit code",
				 WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
		ksft_test_result(pmem_stat("poison_notices") == notices + 1 &&
				 pmem_stat("read_errors") > errs &&
				 pt_verify(other, 32 * PT_MIB, 8) == 0,
				 "poison recorded (%ld notices, %ld read errors); other data intact\n",
				 pmem_stat("poison_notices") - notices,
				 pmem_stat("read_errors") - errs);
	}
	pt_free_thp(other, 32 * PT_MIB);
	ksft_finished();
}
