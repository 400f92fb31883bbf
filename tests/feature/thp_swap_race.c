// SPDX-License-Identifier: GPL-2.0
/*
 * Races on swapped-out THPs: several threads faulting the same swapped
 * THP at once, MADV_PAGEOUT racing faults that verify the data, and a
 * fault racing munmap of the same range. Run under the debug kernel too:
 * lockdep and DEBUG_VM report what the data checks cannot see.
 *
 * With huge swap entries copied back to DRAM (policy never, or swap not
 * on pmem), each THP of the same-entry race comes back whole exactly
 * once, whichever thread wins: thp_swpin_pmd grows by the number of THPs
 * and no fault splits an entry (thp_swpin_pmd_fallback).
 */
#define _GNU_SOURCE
#include <setjmp.h>
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
#define THPS		(SIZE / PT_PMD_SIZE)
#define SEED		7
#define ROUNDS		20
#define SAME_ROUNDS	5

static char *mem;
static int huge;	/* huge swap entries expected */
static int policy;	/* map in place: -1 no pmem, 0 never, 1 read, 2 always */

static int reader(int idx, void *arg)
{
	/* Each thread starts at a different THP and wraps around. */
	size_t start = (idx * PT_PMD_SIZE) % SIZE, off, o;
	int bad = 0;

	for (off = 0; off < SIZE; off += PT_PAGE_SIZE) {
		o = (start + off) % SIZE;
		/* the first word of the page: the fault order, not the check */
		if (pt_verify_range(mem, o, sizeof(uint64_t), SEED))
			bad++;
	}
	return bad || pt_verify(mem, SIZE, SEED) ? 1 : 0;
}

static int same_fault(long *pmd, long *fb)
{
	long in0 = pt_vmstat("thp_swpin_pmd");
	long fb0 = pt_vmstat("thp_swpin_pmd_fallback");
	int i, ret = 0;

	for (i = 0; i < SAME_ROUNDS && !ret; i++) {
		if (pt_pageout(mem, SIZE) || pt_smaps_kb(mem, "Swap") != (long)(SIZE >> 10))
			return -1;
		if (huge && pt_smaps_kb(mem, "SwapPmdMapped") != (long)(SIZE >> 10))
			return -2;
		ret = pt_threads_run(4, reader, NULL);
	}
	*pmd = pt_vmstat("thp_swpin_pmd") - in0;
	*fb = pt_vmstat("thp_swpin_pmd_fallback") - fb0;
	ksft_print_msg("same-entry faults: %d rounds, thp_swpin_pmd +%ld, fallback +%ld\n",
		       i, *pmd, *fb);
	return ret;
}

static int pageout_vs_fault(int idx, void *arg)
{
	int r, ret = 0;

	for (r = 0; r < ROUNDS && !ret; r++) {
		if (idx == 0) {
			if (pt_pageout(mem, SIZE))
				ret = 2;
		} else {
			if (pt_verify(mem, SIZE, SEED))
				ret = 1;
		}
	}
	return ret;
}

/*
 * Fault racing munmap. The reader checks every page it reads; once the
 * range is gone its next access faults with SIGSEGV inside the range, and
 * the handler takes it out of the loop. A SIGSEGV anywhere else, or in
 * the munmap thread, keeps the default action and kills the child.
 */
static __thread sigjmp_buf segv_jmp;
static __thread int segv_armed;
static char *race_mem;

static void segv(int sig, siginfo_t *si, void *uc)
{
	char *a = si->si_addr;

	if (segv_armed && a >= race_mem && a < race_mem + SIZE) {
		segv_armed = 0;
		siglongjmp(segv_jmp, 1);
	}
	signal(SIGSEGV, SIG_DFL);	/* re-faults and dies */
}

static int fault_vs_munmap_thread(int idx, void *arg)
{
	/* changed between sigsetjmp() and siglongjmp(): volatile */
	volatile int bad = 0;
	size_t off;

	if (idx == 0)
		return munmap(race_mem, SIZE) ? 2 : 0;
	if (sigsetjmp(segv_jmp, 1) == 0) {
		segv_armed = 1;
		for (off = 0; off < SIZE; off += PT_PAGE_SIZE)
			if (pt_verify_range(race_mem, off, PT_PAGE_SIZE, SEED))
				bad++;
		segv_armed = 0;
	}
	/* what was read before the range went away must be right */
	return bad ? 1 : 0;
}

static int fault_vs_munmap_child(void)
{
	struct sigaction sa = { .sa_sigaction = segv, .sa_flags = SA_SIGINFO };

	race_mem = pt_alloc_thp(SIZE);
	if (!race_mem)
		return 3;
	if (sigaction(SIGSEGV, &sa, NULL))
		return 3;
	pt_fill(race_mem, SIZE, SEED);
	if (pt_pageout(race_mem, SIZE) ||
	    pt_smaps_kb(race_mem, "Swap") != (long)(SIZE >> 10))
		return 4;
	if (huge && pt_smaps_kb(race_mem, "SwapPmdMapped") != (long)(SIZE >> 10))
		return 5;
	return pt_threads_run(2, fault_vs_munmap_thread, NULL);
}

int main(void)
{
	long used0, pmd = 0, fb = 0;
	int i, mode, status = 0, ret;
	pid_t pid;

	ksft_print_header();
	if (!pt_swap_active())
		ksft_exit_fail_msg("no swap device is active\n");
	mode = pt_huge_swap_mode();
	huge = mode > 0;
	policy = pt_inplace_policy();
	ksft_set_plan(4);
	used0 = pt_swap_held_kb();

	mem = pt_alloc_thp(SIZE);
	if (!mem)
		ksft_exit_fail_perror("mmap");
	pt_fill(mem, SIZE, SEED);
	ret = same_fault(&pmd, &fb);
	ksft_test_result(ret == 0,
			 "4 threads fault the same swapped THPs, data intact (%d)\n", ret);
	if (!huge)
		ksft_test_result_skip("same-entry faults, whole swap-ins: %s\n",
				      mode < 0 ? "no huge swap entries in this kernel" :
				      "huge swap entries are off");
	else if (policy > 0)
		/* mapped in place, not copied: only no split is certain */
		ksft_test_result(ret == 0 && fb == 0,
				 "same-entry faults in place: no entry split (fallback +%ld)\n",
				 fb);
	else
		ksft_test_result(ret == 0 && pmd == (long)(SAME_ROUNDS * THPS) && fb == 0,
				 "same-entry faults: each THP swapped in whole once per round (thp_swpin_pmd +%ld, want %lu; fallback +%ld)\n",
				 pmd, SAME_ROUNDS * THPS, fb);

	ret = pt_threads_run(3, pageout_vs_fault, NULL);
	ksft_test_result(ret == 0, "MADV_PAGEOUT racing verifying readers, %d rounds (%d)\n",
			 ROUNDS, ret);
	pt_free_thp(mem, SIZE);

	/* Fault racing munmap, in children so an expected SIGSEGV is contained. */
	for (i = 0; i < ROUNDS; i++) {
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			ksft_exit_fail_perror("fork");
		if (pid == 0)
			_exit(fault_vs_munmap_child());
		waitpid(pid, &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			break;
	}
	ksft_test_result(i == ROUNDS && pt_swap_held_kb() <= used0,
			 "fault racing munmap, %d of %d rounds clean (last %s %d), no slots leaked (%ld kB used, %ld before)\n",
			 i, ROUNDS, WIFSIGNALED(status) ? "signal" : "exit",
			 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status),
			 pt_swap_held_kb(), used0);
	ksft_finished();
}
