// SPDX-License-Identifier: GPL-2.0
/*
 * roundtrip: swap a THP-backed region out and touch it back, printing
 * "key value" lines (counts are exact, times are wall-clock ms).
 *
 *   roundtrip [-s MiB] [-w] [-r] [-p] [-c]
 *     -s MiB   region size (default 256)
 *     -p       4 KiB pages only (MADV_NOHUGEPAGE): 4 KiB swap entries
 *     -w       write-back: write one word per 4 KiB instead of reading
 *     -r       swap out through memory.reclaim of a memcg instead of
 *              MADV_PAGEOUT
 *     -c       data that compresses about 2:1 (pt_fill_compressible())
 *              instead of one word per 512 bytes
 * The read- or write-back times the first touch of every 4 KiB page:
 * touch_p50_us, touch_p99_us (all pages), and fault_n, fault_p50_us,
 * fault_p99_us, fault_max_us over the touches that took 20 us or more
 * (a fault: a mapped page costs well under that, even under TCG).
 * Used by `make run` and the benchmarks.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

#include "pmswap_test.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Allocated XArray nodes (radix_tree_node slab objects), -1 if unknown. */
static long xa_nodes(void)
{
	char buf[64];

	if (pt_read_str("/sys/kernel/slab/radix_tree_node/objects", buf, sizeof(buf)))
		return -1;
	return atol(buf);
}

int main(int argc, char **argv)
{
	struct pt_swapstat s0, s1, s2, d;
	struct pt_faults f0;
	size_t mib = 256, size, off;
	int opt, write = 0, reclaim = 0, small = 0, compressible = 0;
	double *lat, *slow;
	size_t npages, nslow = 0, i;
	long faults, major, memfree0, memfree_min, xa0;
	double t0, t_out, t_in;
	char *mem;

	while ((opt = getopt(argc, argv, "s:wrpc")) != -1) {
		switch (opt) {
		case 's':
			mib = strtoul(optarg, NULL, 0);
			break;
		case 'w':
			write = 1;
			break;
		case 'r':
			reclaim = 1;
			break;
		case 'p':
			small = 1;
			break;
		case 'c':
			compressible = 1;
			break;
		default:
			fprintf(stderr, "usage: roundtrip [-s MiB] [-w] [-r] [-p] [-c]\n");
			return 2;
		}
	}
	size = mib * PT_MIB;
	npages = size / PT_PAGE_SIZE;
	lat = calloc(npages, sizeof(*lat));
	slow = calloc(npages, sizeof(*slow));
	if (!lat || !slow) {
		perror("calloc");
		return 1;
	}
	if (reclaim) {
		if (pt_memcg_create("roundtrip") || pt_memcg_enter("roundtrip")) {
			perror("memcg");
			return 1;
		}
	}
	mem = pt_alloc_thp(size);
	if (!mem) {
		perror("mmap");
		return 1;
	}
	/* MADV_PAGEOUT finds 4 KiB pages faulted on its own CPU only */
	if (small && pt_pin_cpu() < 0) {
		perror("sched_setaffinity");
		return 1;
	}
	if (small && madvise(mem, size, MADV_NOHUGEPAGE)) {
		perror("madvise(MADV_NOHUGEPAGE)");
		return 1;
	}
	if (compressible)
		pt_fill_compressible(mem, size, 7);
	else
		pt_fill(mem, size, 7);
	printf("size_mib %zu\n", mib);
	printf("thp_before_kb %ld\n", pt_smaps_kb(mem, "AnonHugePages"));

	xa0 = xa_nodes();
	pt_swapstat_now(&s0);
	t0 = now_ms();
	if (reclaim) {
		char val[32];

		snprintf(val, sizeof(val), "%zu", size);
		pt_memcg_set("roundtrip", "memory.reclaim", val);
	} else if (pt_pageout(mem, size)) {
		perror("madvise(MADV_PAGEOUT)");
		return 1;
	}
	t_out = now_ms() - t0;
	pt_swapstat_now(&s1);
	pt_swapstat_delta(&s0, &s1, &d);
	printf("swapout_ms %.1f\n", t_out);
	printf("swapout_thp_swpout %ld\n", d.thp_swpout);
	printf("swapout_thp_swpout_fallback %ld\n", d.thp_swpout_fallback);
	printf("swapout_thp_split_pmd %ld\n", d.thp_split_pmd);
	printf("swapout_pswpout %ld\n", d.pswpout);
	printf("swapped_kb %ld\n", pt_smaps_kb(mem, "Swap"));
	/* swap cache / shadow XArray nodes the swap-out left (slab objects) */
	if (xa0 >= 0 && xa_nodes() >= 0)
		printf("xa_nodes_after_swapout %ld\n", xa_nodes() - xa0);

	memfree0 = pt_meminfo_kb("MemFree");
	memfree_min = memfree0;
	pt_faults_now(&f0);
	t0 = now_ms();
	for (off = 0, i = 0; off < size; off += PT_PAGE_SIZE, i++) {
		double t = now_ms();

		if (write)
			mem[off + 8] = 1;
		else
			(void)*(volatile char *)(mem + off);
		lat[i] = (now_ms() - t) * 1000;
	}
	t_in = now_ms() - t0;
	faults = pt_faults_since(&f0, &major);
	pt_swapstat_now(&s2);
	pt_swapstat_delta(&s1, &s2, &d);
	if (pt_meminfo_kb("MemFree") < memfree_min)
		memfree_min = pt_meminfo_kb("MemFree");
	printf("swapin_ms %.1f\n", t_in);
	for (i = 0; i < npages; i++)
		if (lat[i] >= 20)
			slow[nslow++] = lat[i];
	qsort(lat, npages, sizeof(*lat), cmp_double);
	qsort(slow, nslow, sizeof(*slow), cmp_double);
	printf("touch_p50_us %.2f\ntouch_p99_us %.2f\n",
	       lat[npages / 2], lat[npages * 99 / 100]);
	printf("fault_n %zu\n", nslow);
	if (nslow)
		printf("fault_p50_us %.1f\nfault_p99_us %.1f\nfault_max_us %.1f\n",
		       slow[nslow / 2], slow[nslow * 99 / 100], slow[nslow - 1]);
	printf("swapin_faults %ld\n", faults);
	printf("swapin_major_faults %ld\n", major);
	printf("swapin_pswpin %ld\n", d.pswpin);
	printf("swapin_memfree_drop_kb %ld\n", memfree0 - memfree_min);
	printf("thp_after_kb %ld\n", pt_smaps_kb(mem, "AnonHugePages"));
	/*
	 * The same access pattern again, now that everything is mapped: no
	 * faults, so this is the cost of the accesses themselves (under TCG
	 * it differs between PMD and PTE mappings).
	 */
	t0 = now_ms();
	pt_touch_read(mem, size);
	printf("reread_ms %.1f\n", now_ms() - t0);
	if (write)
		for (off = 0; off < size; off += PT_PAGE_SIZE)
			mem[off + 8] = 0;
	printf("verify_bad_pages %zu\n", pt_verify(mem, size, 7));
	pt_free_thp(mem, size);
	if (reclaim)
		pt_memcg_destroy("roundtrip");
	return 0;
}
