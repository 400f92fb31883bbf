// SPDX-License-Identifier: GPL-2.0
/*
 * soak_thp: keep a checksummed THP-backed working set alive for a while
 * and verify it continuously while other threads push it out with
 * MADV_PAGEOUT and fork children that check (and privately overwrite)
 * what they inherited. Prints TAP (3 points) and its figures. Every round
 * writes every word of the set; every 4th round checks every word of every
 * page, the others one word per 512 bytes.
 *
 *   soak_thp [-d seconds] [-s MiB] [-w workers]
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "kselftest.h"
#include "pmswap_test.h"

struct worker {
	pthread_t tid;
	char *mem;
	size_t size;
	uint64_t seed;
	unsigned long rounds, full_checks, bad_pages, forks, fork_fail;
};

static volatile int stop;
static struct worker *workers;
static int nr_workers;
static unsigned long pageouts;

static void *work(void *arg)
{
	struct worker *w = arg;
	size_t bad;

	while (!stop) {
		if (w->rounds % 4 == 0) {
			bad = pt_verify_full(w->mem, w->size, w->seed);
			w->full_checks++;
		} else {
			bad = pt_verify(w->mem, w->size, w->seed);
		}
		w->bad_pages += bad;
		if ((w->rounds % 8) == 3) {
			pid_t pid;
			int status;

			fflush(stdout);
			pid = fork();
			if (pid == 0) {
				size_t off;

				if (pt_verify(w->mem, w->size, w->seed))
					_exit(1);
				/* One private write per THP (a 4 KiB COW each). */
				for (off = 0; off < w->size; off += PT_PMD_SIZE)
					*(uint64_t *)(w->mem + off) = ~0ULL;
				for (off = 0; off < w->size; off += PT_PMD_SIZE)
					if (*(uint64_t *)(w->mem + off) != ~0ULL)
						_exit(2);
				/* Exactly the first page of each THP differs. */
				_exit(pt_verify(w->mem, w->size, w->seed) !=
				      w->size / PT_PMD_SIZE ? 3 : 0);
			}
			if (pid > 0 && waitpid(pid, &status, 0) == pid) {
				w->forks++;
				if (!WIFEXITED(status) || WEXITSTATUS(status))
					w->fork_fail++;
			}
			/* The child's writes must not show here. */
			w->bad_pages += pt_verify(w->mem, w->size, w->seed);
		}
		w->seed++;
		pt_fill_full(w->mem, w->size, w->seed);
		w->rounds++;
	}
	return NULL;
}

static void *pager(void *arg)
{
	int i;

	while (!stop) {
		for (i = 0; i < nr_workers && !stop; i++) {
			pt_pageout(workers[i].mem, workers[i].size);
			pageouts++;
		}
		usleep(20000);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long rounds = 0, full = 0, bad = 0, forks = 0, fork_fail = 0;
	int opt, i, secs = 60, mib = 64;
	pthread_t pager_tid;

	nr_workers = 2;
	while ((opt = getopt(argc, argv, "d:s:w:")) != -1) {
		switch (opt) {
		case 'd':
			secs = atoi(optarg);
			break;
		case 's':
			mib = atoi(optarg);
			break;
		case 'w':
			nr_workers = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: soak_thp [-d seconds] [-s MiB] [-w workers]\n");
			return 2;
		}
	}
	ksft_print_header();
	ksft_set_plan(3);
	workers = calloc(nr_workers, sizeof(*workers));
	for (i = 0; i < nr_workers; i++) {
		workers[i].size = (size_t)mib * PT_MIB / nr_workers;
		workers[i].size &= ~(PT_PMD_SIZE - 1);
		workers[i].mem = pt_alloc_thp(workers[i].size);
		workers[i].seed = 1000 * (i + 1);
		if (!workers[i].mem)
			ksft_exit_fail_perror("mmap");
		pt_fill_full(workers[i].mem, workers[i].size, workers[i].seed);
	}
	for (i = 0; i < nr_workers; i++)
		pthread_create(&workers[i].tid, NULL, work, &workers[i]);
	pthread_create(&pager_tid, NULL, pager, NULL);
	sleep(secs);
	stop = 1;
	for (i = 0; i < nr_workers; i++) {
		pthread_join(workers[i].tid, NULL);
		rounds += workers[i].rounds;
		full += workers[i].full_checks;
		bad += workers[i].bad_pages;
		forks += workers[i].forks;
		fork_fail += workers[i].fork_fail;
	}
	pthread_join(pager_tid, NULL);
	for (i = 0; i < nr_workers; i++)
		bad += pt_verify_full(workers[i].mem, workers[i].size, workers[i].seed);

	ksft_print_msg("soak_thp: %d s, %d MiB, %lu verify rounds (%lu of every word, plus the last), %lu MADV_PAGEOUT calls, %lu forks\n",
		       secs, mib, rounds, full, pageouts, forks);
	ksft_test_result(bad == 0 && full > 0,
			 "no data errors in %lu verify rounds, %lu of them full-page (%lu bad pages)\n",
			 rounds, full, bad);
	ksft_test_result(forks > 0 && fork_fail == 0,
			 "%lu forked children saw the data and wrote privately (%lu failed)\n",
			 forks, fork_fail);
	ksft_test_result(rounds > 0 && pageouts > 0,
			 "work was done under pressure (%lu rounds, %lu pageouts)\n",
			 rounds, pageouts);
	for (i = 0; i < nr_workers; i++)
		pt_free_thp(workers[i].mem, workers[i].size);
	ksft_finished();
}
