// SPDX-License-Identifier: GPL-2.0
/*
 * pmswap run: run a command in a fresh cgroup-v2 memory cgroup with a
 * memory limit, show its memory while it runs, and report at its exit
 * what swap did for it.
 *
 *   pmswap run --memory-max SIZE [--swap-max SIZE] [--policy P]
 *              [--interval SECS] [--json] -- CMD [ARG...]
 *
 * The memcg's own figures (peak, swap, OOM kills, THP swap-outs, major
 * faults, the THP share of its anonymous memory) come from its cgroup
 * files. Whole-THP swap-ins, fallbacks and in-place maps are counted per
 * host only (/proc/vmstat, no per-memcg counter in the kernel): they are
 * reported as the host's change during the run, and say so.
 *
 * Exit status: CMD's, or 128 + N when a signal N killed it; before CMD
 * runs, the tool's own codes (pmswap(8)).
 *
 * Copyright (C) 2026 pmswap developers
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>

#include <json-c/json.h>

#include "pmswap.h"

#define CGROUP_ROOT	"/sys/fs/cgroup"
#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC	0x63677270
#endif
#define SAMPLE_MS	250
#define MAX_DEVS	32

static volatile sig_atomic_t child_pid;

static void forward(int sig)
{
	if (child_pid > 0)
		kill(child_pid, sig);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* a cgroup file holding one number or "max"; -1 if absent, -2 for max */
static long long cg_num(const char *cg, const char *file)
{
	char path[512], buf[64];

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	if (read_file(path, buf, sizeof(buf)))
		return -1;
	if (!strcmp(buf, "max"))
		return -2;
	return atoll(buf);
}

static long cg_key(const char *cg, const char *file, const char *key)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	return kv_get(path, key);
}

/* "max" or a size; 0 allowed for the swap limit */
static int parse_limit(const char *s, bool zero_ok, unsigned long long *out)
{
	if (!strcmp(s, "max")) {
		*out = ~0ULL;
		return 0;
	}
	if (zero_ok && !strcmp(s, "0")) {
		*out = 0;
		return 0;
	}
	return parse_size(s, out);
}

static void limit_str(unsigned long long v, char *buf, size_t len)
{
	if (v == ~0ULL)
		snprintf(buf, len, "max");
	else
		snprintf(buf, len, "%llu", v);
}

/* The map-in-place policy of every pmem swap device, saved to restore. */
struct policies {
	int n;
	char path[MAX_DEVS][300];
	char old[MAX_DEVS][16];
};

static int set_policy(struct policies *p, const char *policy)
{
	DIR *d = opendir(SYS_PMEM);
	struct dirent *e;
	char buf[64], *a, *b;

	p->n = 0;
	if (!d)
		return -1;
	while ((e = readdir(d)) && p->n < MAX_DEVS) {
		char *path = p->path[p->n];

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(p->path[0]), SYS_PMEM "/%.64s/inplace", e->d_name);
		if (read_file(path, buf, sizeof(buf)))
			continue;
		a = strchr(buf, '[');
		b = a ? strchr(a, ']') : NULL;
		if (!a || !b || b - a - 1 >= (long)sizeof(p->old[0]))
			continue;
		memcpy(p->old[p->n], a + 1, b - a - 1);
		p->old[p->n][b - a - 1] = 0;
		if (write_str(path, policy)) {
			err("cannot set %s to %s: %s\n", path, policy, strerror(errno));
			closedir(d);
			return -2;
		}
		p->n++;
	}
	closedir(d);
	return p->n ? 0 : -1;
}

static void restore_policy(struct policies *p)
{
	int i;

	for (i = 0; i < p->n; i++)
		if (write_str(p->path[i], p->old[i]))
			err("cannot restore %s to %s\n", p->path[i], p->old[i]);
}

/* Wait until no process is left in the cgroup; kill what CMD left behind. */
static void empty_cgroup(const char *cg)
{
	char path[512];
	int i;

	snprintf(path, sizeof(path), "%s/cgroup.events", cg);
	for (i = 0; i < 200; i++) {
		if (kv_get(path, "populated") == 0)
			return;
		if (i == 20) {
			char kill_path[512];

			snprintf(kill_path, sizeof(kill_path), "%s/cgroup.kill", cg);
			write_str(kill_path, "1");
		}
		usleep(50 * 1000);
	}
}

/* a count, or null where the kernel has no such counter (-1) */
static void json_add_count(struct json_object *o, const char *key, long long v)
{
	json_object_object_add(o, key, v < 0 ? NULL : json_object_new_int64(v));
}

/* @v with @digits decimals, as written */
static struct json_object *json_fixed(double v, int digits)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%.*f", digits, v);
	return json_object_new_double_s(v, buf);
}

/* a limit: bytes, "max", or null where none was given */
static struct json_object *json_limit(unsigned long long v, bool given)
{
	if (!given)
		return NULL;
	if (v == ~0ULL)
		return json_object_new_string("max");
	return json_object_new_int64(v);
}

int cmd_run(const struct command *cmd, int argc, char **argv)
{
	unsigned long long mem_max = 0, swap_max = 0;
	bool have_swap_max = false, json = false;
	const char *policy = NULL;
	long long peak, swap_peak, v0[64], v1[64];
	long anon, thp, oom_kill, oom, high_ev, max_ev;
	double interval = 5, t0, next_print, share_sum = 0, last_share = -1;
	int c, st = 0, rc, samples = 0;
	char cg[256], path[512], buf[64];
	struct policies pol = { 0 };
	struct statfs sfs;
	struct sigaction sa;
	pid_t pid;
	size_t k;
	char *end;

	while ((c = cmd_getopt(cmd, argc, argv)) != -1) {
		switch (c) {
		case 'm':
			if (parse_limit(optarg, false, &mem_max)) {
				err("bad --memory-max '%s' (examples: 256M, 1G, max)\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 's':
			if (parse_limit(optarg, true, &swap_max)) {
				err("bad --swap-max '%s' (examples: 0, 512M, max)\n", optarg);
				return EXIT_USAGE;
			}
			have_swap_max = true;
			break;
		case 'p':
			if (!policy_ok(optarg))
				return EXIT_USAGE;
			policy = optarg;
			break;
		case 'i':
			errno = 0;
			interval = strtod(optarg, &end);
			if (errno || *end || end == optarg || interval < 0 || interval > 3600) {
				err("bad --interval '%s' (seconds, 0 for no progress)\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			return EXIT_OK;
		default:
			return EXIT_USAGE;
		}
	}
	if (!mem_max) {
		err("run needs --memory-max SIZE\n");
		cmd_usage(cmd, stderr);
		return EXIT_USAGE;
	}
	if (optind >= argc) {
		err("run needs a command after --\n");
		cmd_usage(cmd, stderr);
		return EXIT_USAGE;
	}
	if (geteuid() != 0) {
		err("run needs root (it makes a cgroup)\n");
		return EXIT_PERM;
	}
	if (statfs(CGROUP_ROOT, &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC) {
		err("cgroup v2 is not mounted at " CGROUP_ROOT
		    " (mount -t cgroup2 none " CGROUP_ROOT ")\n");
		return EXIT_FAIL;
	}
	if (read_file(CGROUP_ROOT "/cgroup.subtree_control", buf, sizeof(buf)) ||
	    !strstr(buf, "memory")) {
		if (write_str(CGROUP_ROOT "/cgroup.subtree_control", "+memory")) {
			err("cannot enable the memory controller in " CGROUP_ROOT ": %s\n",
			    strerror(errno));
			return EXIT_FAIL;
		}
	}
	snprintf(cg, sizeof(cg), CGROUP_ROOT "/pmswap-run.%d", (int)getpid());
	if (mkdir(cg, 0755)) {
		err("cannot make cgroup %s: %s\n", cg, strerror(errno));
		return EXIT_FAIL;
	}
	rc = EXIT_FAIL;
	limit_str(mem_max, buf, sizeof(buf));
	snprintf(path, sizeof(path), "%s/memory.max", cg);
	if (write_str(path, buf)) {
		err("cannot set %s to %s: %s\n", path, buf, strerror(errno));
		goto out_rmdir;
	}
	if (have_swap_max) {
		limit_str(swap_max, buf, sizeof(buf));
		snprintf(path, sizeof(path), "%s/memory.swap.max", cg);
		if (write_str(path, buf)) {
			err("cannot set %s to %s: %s (no swap accounting in this kernel?)\n",
			    path, buf, strerror(errno));
			goto out_rmdir;
		}
	}
	if (policy) {
		int r = set_policy(&pol, policy);

		if (r == -1) {
			err("--policy: no pmem swap device that maps in place is active\n");
			rc = EXIT_NOTFOUND;
		}
		if (r) {
			restore_policy(&pol);
			goto out_rmdir;
		}
	}

	for (k = 0; k < pmswap_nr_vm_keys; k++)
		v0[k] = kv_get("/proc/vmstat", pmswap_vm_keys[k]);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	fflush(NULL);
	t0 = now();
	pid = fork();
	if (pid < 0) {
		err("fork: %s\n", strerror(errno));
		goto out_policy;
	}
	if (!pid) {
		snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
		if (write_str(path, "0")) {
			fprintf(stderr, "pmswap: cannot enter %s: %s\n", cg, strerror(errno));
			_exit(126);
		}
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "pmswap: cannot run %s: %s\n", argv[optind], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	child_pid = pid;

	next_print = t0 + interval;
	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);
		double t;

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			err("waitpid: %s\n", strerror(errno));
			break;
		}
		anon = cg_key(cg, "memory.stat", "anon");
		thp = cg_key(cg, "memory.stat", "anon_thp");
		/* the share only means something once there is a THP's worth */
		if (anon >= 2L << 20 && thp >= 0) {
			last_share = 100.0 * thp / anon;
			share_sum += last_share;
			samples++;
		}
		t = now();
		if (interval > 0 && t >= next_print) {
			fprintf(stderr, "pmswap run: %5.0fs  memory %lld MiB  swap %lld MiB  anon %ld MiB, THP %s%.0f%%  OOM kills %ld\n",
				t - t0, cg_num(cg, "memory.current") >> 20,
				cg_num(cg, "memory.swap.current") >> 20, anon >> 20,
				anon >= 2L << 20 ? "" : "~", anon > 0 ? 100.0 * thp / anon : 0.0,
				cg_key(cg, "memory.events", "oom_kill"));
			next_print += interval;
		}
		usleep(SAMPLE_MS * 1000);
	}
	child_pid = 0;
	t0 = now() - t0;
	empty_cgroup(cg);
	for (k = 0; k < pmswap_nr_vm_keys; k++)
		v1[k] = kv_get("/proc/vmstat", pmswap_vm_keys[k]);
	rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);

	peak = cg_num(cg, "memory.peak");
	swap_peak = cg_num(cg, "memory.swap.peak");
	oom = cg_key(cg, "memory.events", "oom");
	oom_kill = cg_key(cg, "memory.events", "oom_kill");
	high_ev = cg_key(cg, "memory.events", "high");
	max_ev = cg_key(cg, "memory.events", "max");
	if (json) {
		struct json_object *o = json_object_new_object(), *a, *m, *h;
		int i;

		a = json_object_new_array();
		for (i = optind; i < argc; i++)
			json_object_array_add(a, json_object_new_string(argv[i]));
		json_object_object_add(o, "command", a);
		json_object_object_add(o, "exit_status", WIFEXITED(st) ?
				       json_object_new_int(WEXITSTATUS(st)) : NULL);
		json_object_object_add(o, "signal", WIFSIGNALED(st) ?
				       json_object_new_int(WTERMSIG(st)) : NULL);
		json_object_object_add(o, "seconds", json_fixed(t0, 2));
		json_object_object_add(o, "memory_max", json_limit(mem_max, true));
		json_object_object_add(o, "swap_max", json_limit(swap_max, have_swap_max));
		json_object_object_add(o, "policy", policy ? json_object_new_string(policy) : NULL);
		m = json_object_new_object();
		json_add_count(m, "peak_bytes", peak);
		json_add_count(m, "swap_peak_bytes", swap_peak);
		json_add_count(m, "oom", oom);
		json_add_count(m, "oom_kill", oom_kill);
		json_add_count(m, "high", high_ev);
		json_add_count(m, "max", max_ev);
		json_add_count(m, "thp_fault_alloc", cg_key(cg, "memory.stat", "thp_fault_alloc"));
		json_add_count(m, "thp_swpout", cg_key(cg, "memory.stat", "thp_swpout"));
		json_add_count(m, "thp_swpout_fallback", cg_key(cg, "memory.stat", "thp_swpout_fallback"));
		json_add_count(m, "pgmajfault", cg_key(cg, "memory.stat", "pgmajfault"));
		json_object_object_add(o, "memcg", m);
		m = json_object_new_object();
		json_object_object_add(m, "samples", json_object_new_int(samples));
		json_object_object_add(m, "mean_pct", samples ? json_fixed(share_sum / samples, 1) : NULL);
		json_object_object_add(m, "last_pct", samples ? json_fixed(last_share, 1) : NULL);
		json_object_object_add(o, "thp_share", m);
		h = json_object_new_object();
		for (k = 0; k < pmswap_nr_vm_keys; k++)
			json_add_count(h, pmswap_vm_keys[k],
				       v0[k] < 0 || v1[k] < 0 ? -1 : v1[k] - v0[k]);
		json_object_object_add(o, "host_during_run", h);
		json_print(o);
		json_object_put(o);
	} else {
		printf("pmswap run: ");
		if (WIFSIGNALED(st))
			printf("%s killed by signal %d (%s)", argv[optind], WTERMSIG(st),
			       strsignal(WTERMSIG(st)));
		else
			printf("%s exited with status %d", argv[optind], WEXITSTATUS(st));
		printf(" after %.1f s\n", t0);
		if (mem_max == ~0ULL)
			printf("  memcg: memory.max max");
		else
			printf("  memcg: memory.max %llu MiB", mem_max >> 20);
		if (have_swap_max && swap_max == ~0ULL)
			printf(", memory.swap.max max");
		else if (have_swap_max)
			printf(", memory.swap.max %llu MiB", swap_max >> 20);
		printf("; peak %lld MiB", peak < 0 ? -1 : peak >> 20);
		if (swap_peak >= 0)
			printf(", swap peak %lld MiB", swap_peak >> 20);
		if (policy)
			printf("; map-in-place policy %s", policy);
		printf("\n  OOM: %ld kills, %ld OOM events; memory.max hit %ld times, memory.high %ld\n",
		       oom_kill, oom, max_ev, high_ev);
		printf("  THPs: %ld faulted in, %ld swapped out whole, %ld split to swap out; %ld major faults\n",
		       cg_key(cg, "memory.stat", "thp_fault_alloc"),
		       cg_key(cg, "memory.stat", "thp_swpout"),
		       cg_key(cg, "memory.stat", "thp_swpout_fallback"),
		       cg_key(cg, "memory.stat", "pgmajfault"));
		if (samples)
			printf("  THP share of anonymous memory: mean %.1f%% over %d samples, last %.1f%%\n",
			       share_sum / samples, samples, last_share);
		else
			printf("  THP share of anonymous memory: not sampled (under 2 MiB anonymous)\n");
		printf("  host, during the run (not per memcg):");
		for (k = 0; k < pmswap_nr_vm_keys; k++) {
			printf("%s%s ", k % 4 ? ", " : "\n    ", pmswap_vm_keys[k]);
			if (v0[k] < 0 || v1[k] < 0)
				printf("n/a");
			else
				printf("%lld", v1[k] - v0[k]);
		}
		printf("\n");
	}
	fflush(stdout);

out_policy:
	restore_policy(&pol);
out_rmdir:
	if (rmdir(cg))
		err("cannot remove cgroup %s: %s\n", cg, strerror(errno));
	return rc;
}
