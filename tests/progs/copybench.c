// SPDX-License-Identifier: GPL-2.0
/*
 * copybench: the cost per byte of "rep movsb" (what the kernel's
 * copy_mc_to_kernel() and memcpy use on CPUs with ERMS) in user space,
 * copying the way the two swap-in paths do. Not a test: it explains a
 * benchmark figure (issue 16).
 *
 * Stock swap-in copies 4 KiB per fault, from a slot to a fresh page
 * anywhere in memory. pmswap's whole-THP swap-in copies 2 MiB from a
 * 2 MiB-aligned extent to a 2 MiB-aligned THP: source and destination
 * are a multiple of 2 MiB apart. A CPU does not care; an emulator with a
 * direct-mapped software TLB that spans 2 MiB or less does, because then
 * every source page and its destination page share a TLB slot. The
 * cases, each into THP-backed memory:
 *
 *   4K-scattered  4 KiB pieces, each to a page in a random order
 *   2M-aligned    2 MiB pieces, source and destination 2 MiB aligned
 *   2M-offset     the same, the destination 68 KiB past alignment
 *
 *   copybench [-s MIB] [-r ROUNDS]
 *
 * Prints, per case, "COPY <case> <MIB> ns_per_kib <median> <min> <max>"
 * over ROUNDS rounds of copying MIB MiB.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

#define SZ_4K	4096UL
#define SZ_2M	(2UL << 20)
#define SHIFT	(17 * SZ_4K)

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void copy_rep(void *dst, const void *src, size_t n)
{
	asm volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
}

/* @len bytes (and 2 MiB more), 2 MiB aligned, THP-backed, all touched */
static char *region(size_t len)
{
	char *p = mmap(NULL, len + 2 * SZ_2M, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	p = (char *)(((unsigned long)p + SZ_2M - 1) & ~(SZ_2M - 1));
	if (madvise(p, len + SZ_2M, MADV_HUGEPAGE)) {
		perror("madvise");
		exit(1);
	}
	memset(p, 0x5a, len + SZ_2M);
	return p;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	static const char *const cases[] = { "4K-scattered", "2M-aligned", "2M-offset" };
	size_t mib = 64, len, off, i, npages, *perm;
	int rounds = 5, c, r, k;
	char *src, *dst;
	double t[64];

	while ((c = getopt(argc, argv, "s:r:")) != -1) {
		switch (c) {
		case 's': mib = strtoul(optarg, NULL, 0); break;
		case 'r': rounds = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: copybench [-s MIB] [-r ROUNDS]\n");
			return 2;
		}
	}
	if (!mib || rounds < 1 || rounds > 64) {
		fprintf(stderr, "copybench: bad -s or -r\n");
		return 2;
	}
	len = mib << 20;
	src = region(len);
	dst = region(len);
	npages = len / SZ_4K;
	perm = malloc(npages * sizeof(*perm));
	if (!perm) {
		perror("malloc");
		return 1;
	}
	/* a fixed shuffle: the same for every round and every run */
	srand(1);
	for (i = 0; i < npages; i++)
		perm[i] = i;
	for (i = npages - 1; i > 0; i--) {
		size_t j = (size_t)rand() % (i + 1), x = perm[i];

		perm[i] = perm[j];
		perm[j] = x;
	}
	printf("# copybench: %zu MiB per round, %d rounds, rep movsb, into THPs\n",
	       mib, rounds);
	for (k = 0; k < 3; k++) {
		for (r = 0; r < rounds; r++) {
			double t0 = now_ns();

			if (k == 0)
				for (i = 0; i < npages; i++)
					copy_rep(dst + perm[i] * SZ_4K, src + i * SZ_4K, SZ_4K);
			else
				for (off = 0; off < len; off += SZ_2M)
					copy_rep(dst + off + (k == 2 ? SHIFT : 0),
						 src + off, SZ_2M);
			t[r] = (now_ns() - t0) / (len >> 10);
		}
		qsort(t, rounds, sizeof(t[0]), cmp);
		printf("COPY %s %zu ns_per_kib %.1f %.1f %.1f\n", cases[k], mib,
		       t[rounds / 2], t[0], t[rounds - 1]);
	}
	free(perm);
	return 0;
}
