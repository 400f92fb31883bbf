// SPDX-License-Identifier: GPL-2.0
/*
 * cgsample CGROUP PID [INTERVAL_MS]: sample a memcg while PID runs, for
 * the benchmark (tests/guest/bin/bench.sh). Every INTERVAL_MS (default
 * 100) it reads CGROUP/memory.stat (anon, anon_thp) and memory.current,
 * without forking, so that sampling ten times a second costs the guest
 * next to nothing.
 *
 * Prints, as bench.sh's memcg wrapper always did, "share S PCT" (anon_thp
 * in % of anon, when anon > 0) and "dram S KB" at each whole second S of
 * the run, for the curves. At the end, over every sample with anon > 0:
 * "share_fine_mean PCT", "share_fine_samples N" and "share_fine_ms MS".
 * A run shorter than a second thus still has a THP share, from the
 * samples taken while it ran, not one taken as it exits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int pid_running(pid_t pid)
{
	char path[64], buf[256], *p;
	ssize_t n;
	int fd;

	if (kill(pid, 0) && errno == ESRCH)
		return 0;
	/* a child its shell has not reaped yet has exited all the same */
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return !(p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X'));
}

/* Read all of @fd from its start into @buf; -1 on error. */
static ssize_t read_all(int fd, char *buf, size_t len)
{
	ssize_t n, t = 0;

	while ((size_t)t < len - 1) {
		n = pread(fd, buf + t, len - 1 - t, t);
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		t += n;
	}
	buf[t] = '\0';
	return t;
}

/* The value of line "@key N" in @stat, -1 if there is none. */
static long long stat_key(const char *stat, const char *key)
{
	size_t len = strlen(key);
	const char *p = stat;

	while (p && *p) {
		if (!strncmp(p, key, len) && p[len] == ' ')
			return strtoll(p + len + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

int main(int argc, char **argv)
{
	static char stat[16384];
	char path[4096], cur[64];
	long interval, per_sec, k;
	double sum = 0;
	long n = 0;
	struct timespec next;
	int sfd, cfd;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: cgsample CGROUP PID [INTERVAL_MS]\n");
		return 2;
	}
	pid = atoi(argv[2]);
	interval = argc > 3 ? atol(argv[3]) : 100;
	if (pid <= 0 || interval <= 0 || interval > 1000 || 1000 % interval) {
		fprintf(stderr, "cgsample: bad PID or interval (a divisor of 1000 ms)\n");
		return 2;
	}
	per_sec = 1000 / interval;
	snprintf(path, sizeof(path), "%s/memory.stat", argv[1]);
	sfd = open(path, O_RDONLY);
	snprintf(path, sizeof(path), "%s/memory.current", argv[1]);
	cfd = open(path, O_RDONLY);
	if (sfd < 0 || cfd < 0) {
		perror(argv[1]);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (k = 1; pid_running(pid); k++) {
		long long anon, thp;

		next.tv_nsec += interval * 1000000L;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
		if (read_all(sfd, stat, sizeof(stat)) < 0)
			break;
		anon = stat_key(stat, "anon");
		thp = stat_key(stat, "anon_thp");
		if (anon > 0 && thp >= 0) {
			sum += 100.0 * thp / anon;
			n++;
		}
		if (k % per_sec)
			continue;
		if (anon > 0 && thp >= 0)
			printf("share %ld %.1f\n", k / per_sec, 100.0 * thp / anon);
		if (read_all(cfd, cur, sizeof(cur)) > 0)
			printf("dram %ld %lld\n", k / per_sec, strtoll(cur, NULL, 10) / 1024);
	}
	if (n)
		printf("share_fine_mean %.2f\n", sum / n);
	printf("share_fine_samples %ld\n", n);
	printf("share_fine_ms %ld\n", interval);
	return 0;
}
