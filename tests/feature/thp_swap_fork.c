// SPDX-License-Identifier: GPL-2.0
/*
 * fork() with a swapped-out THP region: both processes must see the data,
 * and writes after the fork must stay private to the writer, whether the
 * child or the parent faults the memory back first. With huge swap
 * entries the region is held by them before the fork, and each process
 * keeps its huge entries until it touches them itself.
 *
 * Footprint: the swapped slots are shared after the fork, so reading the
 * region from both processes must cost one copy (as stock 6.12 does by
 * reading shared slots through the swap cache), not one per process. The
 * processes run in a memcg that measures it.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "kselftest.h"
#include "pmswap_test.h"

#define CG	"pt_fork"
#define SIZE	(16 * PT_MIB)
/* The fork itself costs page tables, a kernel stack, a task: far below this. */
#define FORK_SLACK	((long)SIZE / 4)

static char *mem;
static int huge;	/* huge swap entries expected */

/* Is the region still all in huge swap entries (when those are on)? */
static bool still_huge(void)
{
	return !huge || pt_smaps_kb(mem, "SwapPmdMapped") == (long)(SIZE >> 10);
}

static int child_reads_then_writes(void *arg)
{
	if (!still_huge())
		return 3;
	if (pt_verify(mem, SIZE, 5))
		return 1;
	pt_fill(mem, SIZE, 6);
	return pt_verify(mem, SIZE, 6) ? 2 : 0;
}

static int swap_out(uint64_t seed)
{
	pt_fill(mem, SIZE, seed);
	if (pt_pageout(mem, SIZE))
		return -1;
	return pt_smaps_kb(mem, "Swap") == (long)(SIZE >> 10) ? 0 : -1;
}

/*
 * Both processes read the shared swapped region; the child keeps its copy
 * until the parent has read too. Returns the growth of memory.current.
 */
static long read_from_both(uint64_t seed, int *child_rc, size_t *parent_bad,
			   bool *parent_huge)
{
	int c2p[2], p2c[2], status;
	long cur0, cur1;
	char rc = 9;
	pid_t pid;

	if (pipe(c2p) || pipe(p2c))
		ksft_exit_fail_perror("pipe");
	cur0 = pt_memcg_read_long(CG, "memory.current");
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		ksft_exit_fail_perror("fork");
	if (!pid) {
		rc = !still_huge() ? 3 : pt_verify(mem, SIZE, seed) ? 1 : 0;
		if (write(c2p[1], &rc, 1) != 1 || read(p2c[0], &rc, 1) != 1)
			_exit(4);
		_exit(0);
	}
	if (read(c2p[0], &rc, 1) != 1)
		rc = 5;
	/* the child's read does not touch the parent's entries */
	*parent_huge = still_huge();
	*parent_bad = pt_verify(mem, SIZE, seed);
	cur1 = pt_memcg_read_long(CG, "memory.current");
	if (write(p2c[1], "x", 1) != 1)
		ksft_exit_fail_perror("write");
	waitpid(pid, &status, 0);
	*child_rc = WIFEXITED(status) && !WEXITSTATUS(status) ? rc : 6;
	close(c2p[0]);
	close(c2p[1]);
	close(p2c[0]);
	close(p2c[1]);
	return cur1 - cur0;
}

int main(void)
{
	bool parent_huge;
	size_t bad;
	long used0, kb, grown;
	int mode, rc, status;

	ksft_print_header();
	if (!pt_swap_active())
		ksft_exit_fail_msg("no swap device is active\n");
	if (pt_memcg_create(CG) || pt_memcg_enter(CG))
		ksft_exit_fail_msg("cannot create and enter memcg %s\n", CG);
	mode = pt_huge_swap_mode();
	huge = mode > 0;
	ksft_set_plan(9);
	used0 = pt_swap_held_kb();
	mem = pt_alloc_thp(SIZE);
	if (!mem)
		ksft_exit_fail_perror("mmap");

	ksft_test_result(swap_out(5) == 0, "region swapped out before fork\n");
	kb = pt_smaps_kb(mem, "SwapPmdMapped");
	if (huge)
		ksft_test_result(kb == (long)(SIZE >> 10),
				 "region held by huge swap entries before fork (SwapPmdMapped %ld kB)\n",
				 kb);
	else
		ksft_test_result_skip("huge swap entries before fork: %s\n",
				      mode < 0 ? "no huge swap entries in this kernel" :
				      "huge swap entries are off");

	rc = pt_fork_run(child_reads_then_writes, NULL);
	ksft_test_result(rc == 0,
			 "child sees huge entries, faults the swapped THPs in and writes privately (rc %d)\n",
			 rc);
	kb = pt_smaps_kb(mem, "SwapPmdMapped");
	ksft_test_result(still_huge() && pt_verify(mem, SIZE, 5) == 0,
			 "parent kept its entries (SwapPmdMapped %ld kB) and sees its own data after the child wrote\n",
			 kb);

	/* Parent writes first this time; the child must keep the old data. */
	if (swap_out(5))
		ksft_exit_fail_msg("second swap-out failed\n");
	fflush(stdout);
	rc = fork();
	if (rc == 0) {
		sleep(1);
		/* the parent's writes do not touch the child's entries */
		_exit(!still_huge() ? 3 : pt_verify(mem, SIZE, 5) ? 1 : 0);
	}
	pt_fill(mem, SIZE, 9);
	waitpid(rc, &status, 0);
	ksft_test_result(WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
			 pt_verify(mem, SIZE, 9) == 0,
			 "parent writes after fork, child still has huge entries and reads the swapped data (status %#x)\n",
			 status);

	/* Both read the shared region: one copy, not two. */
	if (swap_out(12))
		ksft_exit_fail_msg("third swap-out failed\n");
	grown = read_from_both(12, &rc, &bad, &parent_huge);
	ksft_test_result(rc == 0 && bad == 0,
			 "both processes read the shared region correctly (child rc %d, parent %zu bad pages)\n",
			 rc, bad);
	if (huge)
		ksft_test_result(parent_huge,
				 "parent's entries still huge after the child read its copy\n");
	else
		ksft_test_result_skip("parent's entries after the child's read: %s\n",
				      mode < 0 ? "no huge swap entries in this kernel" :
				      "huge swap entries are off");
	ksft_test_result(grown <= (long)SIZE + FORK_SLACK,
			 "reading the shared region from both processes costs one copy: memory.current +%ld kB (at most %lu kB)\n",
			 grown >> 10, ((long)SIZE + FORK_SLACK) >> 10);

	pt_free_thp(mem, SIZE);
	ksft_test_result(pt_swap_held_kb() <= used0, "no swap slots left after both exit (%ld kB)\n",
			 pt_swap_held_kb());
	pt_memcg_destroy(CG);
	ksft_finished();
}
