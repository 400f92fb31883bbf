// SPDX-License-Identifier: GPL-2.0
/*
 * copybench: the cost per byte of copying memory in 4 KiB and in 2 MiB
 * pieces, with "rep movsb" (what the kernel's copy_mc_to_kernel() and
 * memcpy use on CPUs with ERMS), into destinations backed by THPs or by
 * 4 KiB pages. Not a test: it explains a benchmark figure (issue 16).
 *
 * Whole-THP swap-in copies 2 MiB per fault; stock copies 4 KiB per
 * fault. If the per-byte cost of the same instruction differs between
 * the two piece sizes in user space too, with no kernel involved, the
 * difference belongs to the CPU (or to its emulation), not to pmswap.
 *
 *   copybench [-s MIB] [-r ROUNDS]
 *
 * Prints, per case, "COPY <dst> <piece> <MIB> ns_per_kib <median> <min>
 * <max>" over ROUNDS rounds of copying MIB MiB.
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

/* @len bytes, 2 MiB aligned, THP-backed or not, every page touched */
static char *region(size_t len, bool thp)
{
	char *p = mmap(NULL, len + SZ_2M, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	p = (char *)(((unsigned long)p + SZ_2M - 1) & ~(SZ_2M - 1));
	if (madvise(p, len, thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE)) {
		perror("madvise");
		exit(1);
	}
	memset(p, 0x5a, len);
	return p;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	size_t mib = 64, len, off, piece;
	int rounds = 5, c, r, d, k;
	static const size_t pieces[] = { SZ_4K, SZ_2M };
	char *src, *dst[2];
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
	src = region(len, true);
	dst[0] = region(len, true);
	dst[1] = region(len, false);
	printf("# copybench: %zu MiB per round, %d rounds, rep movsb\n", mib, rounds);
	for (d = 0; d < 2; d++)
		for (k = 0; k < 2; k++) {
			piece = pieces[k];
			for (r = 0; r < rounds; r++) {
				double t0 = now_ns();

				/* each piece to a fresh place, as faults do */
				for (off = 0; off < len; off += piece)
					copy_rep(dst[d] + off, src + off, piece);
				t[r] = (now_ns() - t0) / (len >> 10);
			}
			qsort(t, rounds, sizeof(t[0]), cmp);
			printf("COPY %s %s %zu ns_per_kib %.1f %.1f %.1f\n",
			       d ? "dst-4k-pages" : "dst-thp", k ? "2M" : "4K", mib,
			       t[rounds / 2], t[0], t[rounds - 1]);
		}
	return 0;
}
