// SPDX-License-Identifier: GPL-2.0
/*
 * usemem: a working set on THP-backed memory, accessed one 4 KiB page at a
 * time, for benchmarks under memory pressure. Every access reads the whole
 * page (and checks it); a write access (-w percent of them) rewrites its
 * first half: so MiB/s counts the bytes touched. Every page carries its
 * own index and a counter, and its first half a pattern made of both (the
 * second half stays zero: the data compresses about 2:1, as zram sees
 * real data, not the all-zero pages it would otherwise swap); the counters
 * are checked at the end, so lost or corrupted pages are counted, not just
 * timed.
 *
 *   usemem -s MiB [-m seq|rand|skew|shift] [-p PASSES] [-t SECONDS] [-H HOT%]
 *          [-w WRITE%]
 *
 *   seq   PASSES sequential passes over the region (default 3)
 *   rand  PASSES x (pages) random page accesses
 *   skew  for SECONDS: HOT% of the region (default 10) gets 90 % of the
 *         accesses; per-second throughput is printed as "tick N MiBps"
 *   shift PASSES phases of (pages) accesses each: in phase N a window of
 *         HOT% of the region, starting N windows in (wrapping), gets 90 %
 *         of the accesses, the rest of the region 10 %. The hot set
 *         moves at each phase: data that was hot goes cold and cold data
 *         hot, so both promotion and reclaim of what was promoted happen.
 *         Fixed work: the time to finish is the figure.
 *
 * Output: "key value" lines (size_mib, accesses, ms, mibps, major_faults,
 * minor_faults, bad_pages, and for skew the ticks).
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pmswap_test.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t rng = 88172645463325252ULL;

static inline uint64_t xorshift(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

struct page_hdr {
	uint64_t index;
	uint64_t count;
};

#define WORDS		(PT_PAGE_SIZE / 8)

static inline uint64_t pattern(uint64_t index, uint64_t count, size_t j)
{
	uint64_t x = (index * 0x9e3779b97f4a7c15ULL) ^ (count << 40) ^ (j * 0xbf58476d1ce4e5b9ULL);

	return x ^ (x >> 29);
}

/* the page's first half from its header; the second half stays zero */
static void write_page(uint64_t *w, uint64_t index, uint64_t count)
{
	size_t j;

	w[0] = index;
	w[1] = count;
	for (j = 2; j < WORDS / 2; j++)
		w[j] = pattern(index, count, j);
}

/* read all of it: false when any word is not what the header says */
static bool check_page(const uint64_t *w, uint64_t index)
{
	uint64_t bad = w[0] != index, count = w[1];
	size_t j;

	for (j = 2; j < WORDS / 2; j++)
		bad |= w[j] ^ pattern(index, count, j);
	for (; j < WORDS; j++)
		bad |= w[j];
	return !bad;
}

int main(int argc, char **argv)
{
	size_t mib = 256, passes = 3, seconds = 10, hot_pct = 10, write_pct = 50;
	const char *mode = "seq";
	struct pt_faults f0;
	size_t size, pages, i, bad = 0;
	uint64_t accesses = 0;
	uint64_t *counts;
	double t0, t;
	long major;
	char *mem;
	int c;

	while ((c = getopt(argc, argv, "s:m:p:t:H:w:")) != -1) {
		switch (c) {
		case 's': mib = strtoul(optarg, NULL, 0); break;
		case 'm': mode = optarg; break;
		case 'p': passes = strtoul(optarg, NULL, 0); break;
		case 't': seconds = strtoul(optarg, NULL, 0); break;
		case 'H': hot_pct = strtoul(optarg, NULL, 0); break;
		case 'w': write_pct = strtoul(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: usemem -s MiB [-m seq|rand|skew|shift] [-p PASSES] [-t SECONDS] [-H HOT%%] [-w WRITE%%]\n");
			return 2;
		}
	}
	if (!mib || hot_pct < 1 || hot_pct > 100 || write_pct > 100) {
		fprintf(stderr, "usemem: bad arguments\n");
		return 2;
	}
	size = mib * PT_MIB;
	pages = size / PT_PAGE_SIZE;
	mem = pt_alloc_thp(size);
	counts = calloc(pages, sizeof(*counts));
	if (!mem || !counts) {
		perror("usemem: allocation");
		return 1;
	}
	for (i = 0; i < pages; i++)
		write_page((uint64_t *)(mem + i * PT_PAGE_SIZE), i, 0);

#define ACCESS(idx) do {						\
		uint64_t *w_ = (void *)(mem + (idx) * PT_PAGE_SIZE);	\
		if (!check_page(w_, (idx)))				\
			bad++;						\
		if (xorshift() % 100 < write_pct) {			\
			counts[idx]++;					\
			write_page(w_, (idx), w_[1] + 1);		\
		}							\
		accesses++;						\
	} while (0)

	printf("size_mib %zu\nmode %s\n", mib, mode);
	pt_faults_now(&f0);
	t0 = now_s();
	if (!strcmp(mode, "seq")) {
		size_t p;

		for (p = 0; p < passes; p++)
			for (i = 0; i < pages; i++)
				ACCESS(i);
	} else if (!strcmp(mode, "rand")) {
		size_t n = passes * pages;

		while (n--) {
			size_t idx = xorshift() % pages;

			ACCESS(idx);
		}
	} else if (!strcmp(mode, "skew")) {
		size_t hot = pages * hot_pct / 100, tick = 0;
		double next = t0 + 1.0, end = t0 + seconds;
		uint64_t last = 0;

		if (!hot)
			hot = 1;
		for (;;) {
			size_t k;

			for (k = 0; k < 256; k++) {
				size_t idx = xorshift() % 10 ? xorshift() % hot :
					     hot + xorshift() % (pages - hot ? pages - hot : 1);

				if (idx >= pages)
					idx = pages - 1;
				ACCESS(idx);
			}
			t = now_s();
			if (t >= next) {
				printf("tick %zu %.1f\n", ++tick,
				       (accesses - last) * PT_PAGE_SIZE / (1 << 20) / (t - next + 1.0));
				last = accesses;
				next += 1.0;
			}
			if (t >= end)
				break;
		}
	} else if (!strcmp(mode, "shift")) {
		size_t hot = pages * hot_pct / 100, p, n;

		if (!hot)
			hot = 1;
		for (p = 0; p < passes; p++) {
			size_t start = (p * hot) % pages;

			for (n = 0; n < pages; n++) {
				size_t idx = xorshift() % 10 ?
					     (start + xorshift() % hot) % pages :
					     xorshift() % pages;

				ACCESS(idx);
			}
			printf("phase %zu %.1f\n", p + 1, (now_s() - t0) * 1000);
		}
	} else {
		fprintf(stderr, "usemem: unknown mode %s\n", mode);
		return 2;
	}
	t = now_s() - t0;
	pt_faults_since(&f0, &major);
	printf("accesses %llu\n", (unsigned long long)accesses);
	printf("ms %.1f\n", t * 1000);
	printf("mibps %.1f\n", accesses * (double)PT_PAGE_SIZE / (1 << 20) / t);
	printf("major_faults %ld\n", major);
	/* every page must hold its index and exactly the writes made to it */
	for (i = 0; i < pages; i++) {
		struct page_hdr *h = (void *)(mem + i * PT_PAGE_SIZE);

		if (!check_page((uint64_t *)h, i) || h->count != counts[i])
			bad++;
	}
	printf("bad_pages %zu\n", bad);
	pt_free_thp(mem, size);
	return bad ? 1 : 0;
}
