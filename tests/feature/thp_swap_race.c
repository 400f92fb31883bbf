// SPDX-License-Identifier: GPL-2.0
/*
 * Races on swapped-out THPs: several threads faulting the same swapped
 * THP at once, MADV_PAGEOUT racing faults that verify the data, and a
 * fault racing munmap of the same range. Run under the debug kernel too:
 * lockdep and DEBUG_VM report what the data checks cannot see.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest.h"
#include "pmswap_test.h"

#define SIZE		(8 * PT_MIB)
#define SEED		7
#define ROUNDS		20

static char *mem;
static volatile int stop;

static int reader(int idx, void *arg)
{
	/* Each thread starts at a different THP and wraps around. */
	size_t start = (idx * PT_PMD_SIZE) % SIZE, off, o;
	int bad = 0;

	for (off = 0; off < SIZE; off += PT_PAGE_SIZE) {
		o = (start + off) % SIZE;
		if (*(volatile uint64_t *)(mem + o) == 0)
			bad++;
	}
	return bad || pt_verify(mem, SIZE, SEED) ? 1 : 0;
}

static int same_fault(void)
{
	long in0 = pt_vmstat("thp_swpin_pmd");
	int i, ret = 0;

	for (i = 0; i < 5 && !ret; i++) {
		if (pt_pageout(mem, SIZE) || pt_smaps_kb(mem, "Swap") != (long)(SIZE >> 10))
			return -1;
		ret = pt_threads_run(4, reader, NULL);
	}
	ksft_print_msg("same-entry faults: thp_swpin_pmd +%ld\n",
		       pt_vmstat("thp_swpin_pmd") - in0);
	return ret;
}

static int pageout_vs_fault(int idx, void *arg)
{
	int r, ret = 0;

	for (r = 0; r < ROUNDS && !ret; r++) {
		if (idx == 0) {
			pt_pageout(mem, SIZE);
		} else {
			if (pt_verify(mem, SIZE, SEED))
				ret = 1;
		}
	}
	return ret;
}

static int fault_vs_munmap_thread(int idx, void *arg)
{
	char *p = arg;

	if (idx == 0)
		munmap(p, SIZE);
	else
		pt_touch_read(p, SIZE);
	return 0;
}

static void segv(int sig)
{
	_exit(0);	/* touching the unmapped range is expected */
}

int main(void)
{
	long used0;
	int i, status, ret;
	pid_t pid;

	ksft_print_header();
	if (!pt_swap_active())
		ksft_exit_fail_msg("no swap device is active\n");
	ksft_set_plan(3);
	used0 = pt_swap_held_kb();

	mem = pt_alloc_thp(SIZE);
	if (!mem)
		ksft_exit_fail_perror("mmap");
	pt_fill(mem, SIZE, SEED);
	ksft_test_result(same_fault() == 0,
			 "4 threads fault the same swapped THPs, data intact\n");

	ret = pt_threads_run(3, pageout_vs_fault, NULL);
	ksft_test_result(ret == 0, "MADV_PAGEOUT racing verifying readers, %d rounds\n",
			 ROUNDS);
	pt_free_thp(mem, SIZE);

	/* Fault racing munmap, in children so a SIGSEGV is contained. */
	for (i = 0; i < ROUNDS; i++) {
		pid = fork();
		if (pid == 0) {
			char *p = pt_alloc_thp(SIZE);

			signal(SIGSEGV, segv);
			if (!p)
				_exit(2);
			pt_fill(p, SIZE, SEED);
			pt_pageout(p, SIZE);
			_exit(pt_threads_run(2, fault_vs_munmap_thread, p));
		}
		waitpid(pid, &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			break;
	}
	ksft_test_result(i == ROUNDS && pt_swap_held_kb() <= used0,
			 "fault racing munmap, %d rounds, no slots leaked (%ld kB used, %ld before)\n",
			 i, pt_swap_held_kb(), used0);
	ksft_finished();
}
