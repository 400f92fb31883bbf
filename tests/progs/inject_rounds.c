// SPDX-License-Identifier: GPL-2.0
/*
 * inject_rounds: allocation failures and swap-out write errors must lose
 * no data. The soak arms fail_page_alloc, failslab and fail_make_request
 * with their task filter: only tasks marked make-it-fail see failures, and
 * this is the only such task. For SECONDS, each round:
 *  - fills a THP-backed region (every word);
 *  - marks itself make-it-fail and the swap disk make-it-fail (-b FILE),
 *    and pushes the region out with MADV_PAGEOUT: allocations in reclaim
 *    and the swap cache fail, and so do its swap-out bios (bio path);
 *  - clears the disk's mark (a failed swap-in read is data loss, not a
 *    test of rollback) and checks every word with its own mark still set:
 *    the swap-in allocations fail now and then, faults are retried;
 *  - every 4th round forks a child (unmarked: a marked fork almost never
 *    gets through) that marks itself, checks every word and writes its
 *    own copy under the same failures.
 * The caller counts the faults injected. Prints TAP (1 point).
 *
 *   inject_rounds [-d seconds] [-s MiB] [-b /sys/block/DISK/make-it-fail]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "kselftest.h"
#include "pmswap_test.h"

static int mark(int fd, int on)
{
	if (fd < 0)
		return 0;
	return pwrite(fd, on ? "1" : "0", 1, 0) == 1 ? 0 : -1;
}

/* Clearing a mark runs with this task marked: its write may fail (ENOMEM). */
static void unmark(int fd)
{
	int tries;

	for (tries = 0; mark(fd, 0); tries++)
		if (tries == 10000)
			ksft_exit_fail_msg("cannot clear make-it-fail: %s\n", strerror(errno));
}

int main(int argc, char **argv)
{
	unsigned long rounds = 0, bad = 0, forks = 0, fork_enomem = 0, child_bad = 0;
	int opt, secs = 60, mib = 16, self, disk = -1;
	const char *disk_path = NULL;
	uint64_t seed = 7000;
	size_t size;
	time_t end;
	char *mem;

	while ((opt = getopt(argc, argv, "d:s:b:")) != -1) {
		switch (opt) {
		case 'd':
			secs = atoi(optarg);
			break;
		case 's':
			mib = atoi(optarg);
			break;
		case 'b':
			disk_path = optarg;
			break;
		default:
			fprintf(stderr, "usage: inject_rounds [-d seconds] [-s MiB] [-b /sys/block/DISK/make-it-fail]\n");
			return 2;
		}
	}
	ksft_print_header();
	ksft_set_plan(1);
	self = open("/proc/self/make-it-fail", O_WRONLY);
	if (self < 0)
		ksft_exit_skip("no /proc/self/make-it-fail (CONFIG_FAULT_INJECTION)\n");
	if (disk_path) {
		disk = open(disk_path, O_WRONLY);
		if (disk < 0)
			ksft_print_msg("%s: %s: no bio errors\n", disk_path, strerror(errno));
	}
	size = (size_t)mib * PT_MIB;
	mem = pt_alloc_thp(size);
	if (!mem)
		ksft_exit_fail_perror("mmap");
	end = time(NULL) + secs;
	while (time(NULL) < end) {
		pt_fill_full(mem, size, seed);
		if (mark(disk, 1) || mark(self, 1))
			ksft_exit_fail_perror("make-it-fail");
		pt_pageout(mem, size);
		unmark(disk);
		bad += pt_verify_full(mem, size, seed);
		if (rounds % 4 == 3) {
			pid_t pid;
			int status;

			/*
			 * fork itself unmarked (with failslab at 10 %, a
			 * fork of a marked task almost never succeeds); the
			 * child marks itself for its swap-ins and writes
			 */
			unmark(self);
			pid = fork();
			if (pid == 0) {
				if (mark(self, 1))
					_exit(1);
				if (pt_verify_full(mem, size, seed))
					_exit(1);
				pt_fill_full(mem, size, seed + 1000000);
				_exit(pt_verify_full(mem, size, seed + 1000000) ? 1 : 0);
			}
			if (pid < 0 && errno == ENOMEM) {
				fork_enomem++;
			} else if (pid < 0) {
				ksft_exit_fail_perror("fork");
			} else if (waitpid(pid, &status, 0) == pid) {
				forks++;
				if (!WIFEXITED(status) || WEXITSTATUS(status))
					child_bad++;
			}
			bad += pt_verify_full(mem, size, seed);
		}
		unmark(self);
		seed++;
		rounds++;
	}
	ksft_print_msg("inject_rounds: %d s, %d MiB, %lu rounds, %lu forks (%lu refused with ENOMEM)\n",
		       secs, mib, rounds, forks, fork_enomem);
	ksft_test_result(rounds > 0 && bad == 0 && child_bad == 0,
			 "%lu rounds under injected failures, every word read back (%lu bad pages, %lu bad children)\n",
			 rounds, bad, child_bad);
	ksft_finished();
}
