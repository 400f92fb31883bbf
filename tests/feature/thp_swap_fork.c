// SPDX-License-Identifier: GPL-2.0
/*
 * fork() with a swapped-out THP region: both processes must see the data,
 * and writes after the fork must stay private to the writer, whether the
 * child or the parent faults the memory back first.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "kselftest.h"
#include "pmswap_test.h"

#define SIZE	(16 * PT_MIB)

static char *mem;

static int child_reads_then_writes(void *arg)
{
	if (pt_verify(mem, SIZE, 5))
		return 1;
	pt_fill(mem, SIZE, 6);
	return pt_verify(mem, SIZE, 6) ? 2 : 0;
}

static int child_verifies(void *arg)
{
	return pt_verify(mem, SIZE, 5) ? 1 : 0;
}

static int swap_out(void)
{
	pt_fill(mem, SIZE, 5);
	if (pt_pageout(mem, SIZE))
		return -1;
	return pt_smaps_kb(mem, "Swap") == (long)(SIZE >> 10) ? 0 : -1;
}

int main(void)
{
	long used0;
	int rc;

	ksft_print_header();
	if (!pt_swap_active())
		ksft_exit_fail_msg("no swap device is active\n");
	ksft_set_plan(5);
	used0 = pt_swap_held_kb();
	mem = pt_alloc_thp(SIZE);
	if (!mem)
		ksft_exit_fail_perror("mmap");

	ksft_test_result(swap_out() == 0, "region swapped out before fork\n");
	rc = pt_fork_run(child_reads_then_writes, NULL);
	ksft_test_result(rc == 0, "child faults the swapped THPs in and writes privately (rc %d)\n", rc);
	ksft_test_result(pt_verify(mem, SIZE, 5) == 0,
			 "parent still sees its own data after the child wrote\n");

	/* Parent writes first this time; the child must keep the old data. */
	if (swap_out())
		ksft_exit_fail_msg("second swap-out failed\n");
	rc = fork();
	if (rc == 0) {
		sleep(1);
		_exit(child_verifies(NULL));
	}
	pt_fill(mem, SIZE, 9);
	{
		int status;

		waitpid(rc, &status, 0);
		ksft_test_result(WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
				 pt_verify(mem, SIZE, 9) == 0,
				 "parent writes after fork, child still reads the swapped data\n");
	}
	pt_free_thp(mem, SIZE);
	ksft_test_result(pt_swap_held_kb() <= used0, "no swap slots left after both exit (%ld kB)\n",
			 pt_swap_held_kb());
	ksft_finished();
}
