// SPDX-License-Identifier: GPL-2.0
/*
 * Shared helpers for the pmswap guest tests.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "pmswap_test.h"

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

void *pt_alloc_thp(size_t size)
{
	size_t len = size + PT_PMD_SIZE;
	char *raw, *p;

	raw = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return NULL;
	p = (char *)(((uintptr_t)raw + PT_PMD_SIZE - 1) & ~(PT_PMD_SIZE - 1));
	if (p > raw)
		munmap(raw, p - raw);
	if (raw + len > p + size)
		munmap(p + size, raw + len - (p + size));
	if (madvise(p, size, MADV_HUGEPAGE)) {
		munmap(p, size);
		return NULL;
	}
	return p;
}

void pt_free_thp(void *p, size_t size)
{
	munmap(p, size);
}

void pt_touch_write(void *p, size_t size)
{
	volatile char *c = p;
	size_t off;

	for (off = 0; off < size; off += PT_PAGE_SIZE)
		c[off] = c[off];
}

uint64_t pt_touch_read(const void *p, size_t size)
{
	const volatile uint64_t *w;
	uint64_t sum = 0;
	size_t off;

	for (off = 0; off < size; off += PT_PAGE_SIZE) {
		w = (const volatile uint64_t *)((const char *)p + off);
		sum += *w;
	}
	return sum;
}

int pt_pageout(void *p, size_t size)
{
	return madvise(p, size, MADV_PAGEOUT);
}

void *pt_alloc_small(size_t size)
{
	char *p = mmap(NULL, size + PT_PAGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (mprotect(p + size, PT_PAGE_SIZE, PROT_NONE) ||
	    madvise(p, size, MADV_NOHUGEPAGE)) {
		munmap(p, size + PT_PAGE_SIZE);
		return NULL;
	}
	return p;
}

void pt_free_small(void *p, size_t size)
{
	munmap(p, size + PT_PAGE_SIZE);
}

long pt_swap_out_filled(void *p, size_t size, uint64_t seed)
{
	int i;

	pt_fill(p, size, seed);
	for (i = 0; i < 5 && pt_smaps_kb(p, "Swap") != (long)(size >> 10); i++)
		if (pt_pageout(p, size))
			return -1;
	return pt_smaps_kb(p, "Swap");
}

const struct pt_level pt_level_pmd = {
	.name = "PMD", .unit = PT_PMD_SIZE,
	.map = "pmswap_inplace_map",
	.promote = "pmswap_inplace_promote",
	.revert = "pmswap_inplace_revert",
	.now = "inplace_mapped_now",
	.swapped = "SwapPmdMapped", .dram = "AnonHugePages",
	.exact = true,
};

const struct pt_level pt_level_pte = {
	.name = "PTE", .unit = PT_PAGE_SIZE,
	.map = "pmswap_inplace_pte_map",
	.promote = "pmswap_inplace_pte_promote",
	.revert = "pmswap_inplace_pte_revert",
	.now = "inplace_pte_mapped_now",
	.swapped = "Swap", .dram = "Anonymous",
	.exact = false,
};

void *pt_level_alloc(const struct pt_level *l, size_t size)
{
	return l == &pt_level_pmd ? pt_alloc_thp(size) : pt_alloc_small(size);
}

void pt_level_free(const struct pt_level *l, void *p, size_t size)
{
	if (l == &pt_level_pmd)
		pt_free_thp(p, size);
	else
		pt_free_small(p, size);
}

void *pt_level_swapped(const struct pt_level *l, size_t size, uint64_t seed)
{
	void *p = pt_level_alloc(l, size);

	if (!p)
		return NULL;
	if (pt_swap_out_filled(p, size, seed) < 0) {
		pt_level_free(l, p, size);
		return NULL;
	}
	if (pt_smaps_kb(p, l->swapped) != (long)(size >> 10))
		printf("# only %ld of %zu kB in %s\n",
		       pt_smaps_kb(p, l->swapped), size >> 10, l->swapped);
	return p;
}

long pt_inplace_kb(const void *p)
{
	return pt_smaps_kb(p, "PmswapInPlace");
}

/*
 * A 4 KiB page faulted in waits in a per-CPU batch before it reaches the
 * LRU, and MADV_PAGEOUT drains only the batch of the CPU it runs on: it
 * skips, without an error, a page still in another CPU's batch. A test
 * that must swap out every 4 KiB page runs on one CPU.
 */
int pt_pin_cpu(void)
{
	cpu_set_t set;
	int cpu;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (cpu = 0; cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &set); cpu++)
		;
	if (cpu == CPU_SETSIZE)
		return -1;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -1 : cpu;
}

/* One 64-bit word per 512 bytes plus a page header: cheap under TCG. */
static inline uint64_t pt_word(uint64_t seed, uint64_t off)
{
	uint64_t x = seed ^ (off * 0x9e3779b97f4a7c15ULL);

	x ^= x >> 31;
	return x * 0xbf58476d1ce4e5b9ULL;
}

void pt_fill(void *p, size_t size, uint64_t seed)
{
	char *c = p;
	size_t off;

	for (off = 0; off < size; off += 512)
		*(uint64_t *)(c + off) = pt_word(seed, off);
}

size_t pt_verify_range(const void *base, size_t start, size_t len, uint64_t seed)
{
	const char *c = base;
	size_t off, bad = 0, page_bad, end = start + len;

	for (off = start; off < end; off += PT_PAGE_SIZE) {
		size_t o;

		page_bad = 0;
		for (o = off; o < off + PT_PAGE_SIZE && o < end; o += 512)
			if (*(const uint64_t *)(c + o) != pt_word(seed, o))
				page_bad = 1;
		bad += page_bad;
	}
	return bad;
}

size_t pt_verify(const void *p, size_t size, uint64_t seed)
{
	return pt_verify_range(p, 0, size, seed);
}

void pt_fill_compressible(void *p, size_t size, uint64_t seed)
{
	uint64_t *w = p;
	size_t i;

	for (i = 0; i < size / 8; i++) {
		size_t in_page = (i * 8) % PT_PAGE_SIZE;

		w[i] = in_page < PT_PAGE_SIZE / 2 || in_page % 512 == 0 ?
		       pt_word(seed, i * 8) : 0;
	}
}

void pt_fill_full(void *p, size_t size, uint64_t seed)
{
	uint64_t *w = p;
	size_t i;

	for (i = 0; i < size / 8; i++)
		w[i] = pt_word(seed, i * 8);
}

size_t pt_verify_full(const void *p, size_t size, uint64_t seed)
{
	const uint64_t *w = p;
	size_t i, bad = 0;

	for (i = 0; i < size / 8; i += PT_PAGE_SIZE / 8) {
		size_t j;

		for (j = i; j < i + PT_PAGE_SIZE / 8 && j < size / 8; j++)
			if (w[j] != pt_word(seed, j * 8))
				break;
		bad += j < i + PT_PAGE_SIZE / 8 && j < size / 8;
	}
	return bad;
}

int pt_read_str(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	return 0;
}

long pt_read_long(const char *path)
{
	char buf[64];

	if (pt_read_str(path, buf, sizeof(buf)))
		return -1;
	return strtol(buf, NULL, 0);
}

int pt_write_str(const char *path, const char *val)
{
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	n = write(fd, val, strlen(val));
	close(fd);
	return n == (ssize_t)strlen(val) ? 0 : -1;
}

bool pt_path_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* Find "key value" (vmstat) or "key: value kB" (meminfo) in a file. */
static long pt_keyed(const char *path, const char *key, int colon)
{
	char line[256];
	size_t klen = strlen(key);
	long val = -1;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, klen))
			continue;
		if (colon ? line[klen] != ':' : line[klen] != ' ')
			continue;
		val = strtol(line + klen + 1, NULL, 10);
		break;
	}
	fclose(f);
	return val;
}

long pt_vmstat(const char *name)
{
	return pt_keyed("/proc/vmstat", name, 0);
}

long pt_meminfo_kb(const char *name)
{
	return pt_keyed("/proc/meminfo", name, 1);
}

long pt_smaps_kb(const void *p, const char *name)
{
	char line[512];
	size_t nlen = strlen(name);
	uintptr_t a = (uintptr_t)p, start, end;
	bool in = false;
	long sum = -1;
	FILE *f;

	f = fopen("/proc/self/smaps", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			in = a >= start && a < end;
			continue;
		}
		if (!in || strncmp(line, name, nlen) || line[nlen] != ':')
			continue;
		sum = strtol(line + nlen + 1, NULL, 10);
	}
	fclose(f);
	return sum;
}

long pt_thp_size_stat(unsigned long size_kb, const char *name)
{
	char path[256];

	snprintf(path, sizeof(path),
		 "/sys/kernel/mm/transparent_hugepage/hugepages-%lukB/stats/%s",
		 size_kb, name);
	return pt_read_long(path);
}

int pt_pagemap_open(void)
{
	return open("/proc/self/pagemap", O_RDONLY);
}

uint64_t pt_pagemap_entry(int fd, const void *addr)
{
	uint64_t e = 0;
	off_t off = (uintptr_t)addr / PT_PAGE_SIZE * sizeof(e);

	if (pread(fd, &e, sizeof(e), off) != sizeof(e))
		return 0;
	return e;
}

int pt_pagemap_range(int fd, const void *addr, size_t n, uint64_t *out)
{
	off_t off = (uintptr_t)addr / PT_PAGE_SIZE * sizeof(*out);
	size_t want = n * sizeof(*out);

	return pread(fd, out, want, off) == (ssize_t)want ? 0 : -1;
}

void pt_faults_now(struct pt_faults *f)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	f->minor = ru.ru_minflt;
	f->major = ru.ru_majflt;
}

long pt_faults_since(const struct pt_faults *before, long *major)
{
	struct pt_faults now;

	pt_faults_now(&now);
	if (major)
		*major = now.major - before->major;
	return now.minor - before->minor + now.major - before->major;
}

static void pt_memcg_path(char *buf, size_t len, const char *name,
			  const char *file)
{
	if (file)
		snprintf(buf, len, "/sys/fs/cgroup/%s/%s", name, file);
	else
		snprintf(buf, len, "/sys/fs/cgroup/%s", name);
}

int pt_memcg_create(const char *name)
{
	char path[256];

	pt_write_str("/sys/fs/cgroup/cgroup.subtree_control", "+memory");
	pt_memcg_path(path, sizeof(path), name, NULL);
	if (mkdir(path, 0755) && errno != EEXIST)
		return -1;
	pt_memcg_path(path, sizeof(path), name, "memory.max");
	return pt_path_exists(path) ? 0 : -1;
}

int pt_memcg_set(const char *name, const char *file, const char *val)
{
	char path[256];

	pt_memcg_path(path, sizeof(path), name, file);
	return pt_write_str(path, val);
}

long pt_memcg_read_long(const char *name, const char *file)
{
	char path[256];

	pt_memcg_path(path, sizeof(path), name, file);
	return pt_read_long(path);
}

long pt_memcg_stat(const char *name, const char *file, const char *key)
{
	char path[256];

	pt_memcg_path(path, sizeof(path), name, file);
	return pt_keyed(path, key, 0);
}

int pt_memcg_enter(const char *name)
{
	char val[32];

	snprintf(val, sizeof(val), "%d", getpid());
	return pt_memcg_set(name, "cgroup.procs", val);
}

int pt_memcg_destroy(const char *name)
{
	char path[256];

	pt_write_str("/sys/fs/cgroup/cgroup.procs", "0");
	snprintf(path, sizeof(path), "%d", getpid());
	pt_write_str("/sys/fs/cgroup/cgroup.procs", path);
	pt_memcg_path(path, sizeof(path), name, NULL);
	return rmdir(path);
}

int pt_fork_run(int (*fn)(void *arg), void *arg)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid)
		_exit(fn(arg));
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	if (!WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

int pt_fork_report(int (*fn)(void *arg, int fd), void *arg, void *report,
		   size_t len)
{
	int fd[2], status;
	pid_t pid;

	memset(report, 0xff, len);
	if (pipe(fd))
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (!pid) {
		close(fd[0]);
		_exit(fn(arg, fd[1]));
	}
	close(fd[1]);
	if (read(fd[0], report, len) != (ssize_t)len)
		memset(report, 0xff, len);
	close(fd[0]);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

struct pt_thread {
	pthread_t tid;
	int idx, ret;
	int (*fn)(int idx, void *arg);
	void *arg;
	pthread_barrier_t *barrier;
};

static void *pt_thread_main(void *p)
{
	struct pt_thread *t = p;

	pthread_barrier_wait(t->barrier);
	t->ret = t->fn(t->idx, t->arg);
	return NULL;
}

int pt_threads_run(int n, int (*fn)(int idx, void *arg), void *arg)
{
	pthread_barrier_t barrier;
	struct pt_thread *t;
	int i, ret = 0;

	t = calloc(n, sizeof(*t));
	if (!t)
		return -1;
	pthread_barrier_init(&barrier, NULL, n);
	for (i = 0; i < n; i++) {
		t[i] = (struct pt_thread){ .idx = i, .fn = fn, .arg = arg,
					   .barrier = &barrier };
		if (pthread_create(&t[i].tid, NULL, pt_thread_main, &t[i]))
			abort();
	}
	for (i = 0; i < n; i++) {
		pthread_join(t[i].tid, NULL);
		if (t[i].ret)
			ret = t[i].ret;
	}
	pthread_barrier_destroy(&barrier);
	free(t);
	return ret;
}

long pt_swap_used_kb(void)
{
	char line[512], name[256], type[32];
	long size, used, sum = 0;
	FILE *f;

	f = fopen("/proc/swaps", "r");
	if (!f)
		return -1;
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return -1;
	}
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%255s %31s %ld %ld", name, type, &size, &used) == 4)
			sum += used;
	fclose(f);
	return sum;
}

long pt_swap_held_kb(void)
{
	long cached = pt_meminfo_kb("SwapCached"), used = pt_swap_used_kb();

	if (used < 0 || cached < 0)
		return -1;
	/* The two are not read atomically: a folio leaving the cache in
	 * between can make the difference negative for a moment.
	 */
	return used > cached ? used - cached : 0;
}

bool pt_swap_active(void)
{
	return pt_meminfo_kb("SwapTotal") > 0;
}

bool pt_swap_on_pmem(void)
{
	char buf[4096];

	return !pt_read_str("/proc/swaps", buf, sizeof(buf)) &&
	       (strstr(buf, "\n/dev/pmem") || strstr(buf, "\n/dev/daxswap"));
}

void pt_swapstat_now(struct pt_swapstat *s)
{
	s->pswpin = pt_vmstat("pswpin");
	s->pswpout = pt_vmstat("pswpout");
	s->thp_swpout = pt_vmstat("thp_swpout");
	s->thp_swpout_fallback = pt_vmstat("thp_swpout_fallback");
	s->thp_split_pmd = pt_vmstat("thp_split_pmd");
	s->thp_split_page = pt_vmstat("thp_split_page");
	s->thp_fault_alloc = pt_vmstat("thp_fault_alloc");
	s->pgmajfault = pt_vmstat("pgmajfault");
}

void pt_swapstat_delta(const struct pt_swapstat *a, const struct pt_swapstat *b,
		       struct pt_swapstat *d)
{
	d->pswpin = b->pswpin - a->pswpin;
	d->pswpout = b->pswpout - a->pswpout;
	d->thp_swpout = b->thp_swpout - a->thp_swpout;
	d->thp_swpout_fallback = b->thp_swpout_fallback - a->thp_swpout_fallback;
	d->thp_split_pmd = b->thp_split_pmd - a->thp_split_pmd;
	d->thp_split_page = b->thp_split_page - a->thp_split_page;
	d->thp_fault_alloc = b->thp_fault_alloc - a->thp_fault_alloc;
	d->pgmajfault = b->pgmajfault - a->pgmajfault;
}

void pt_swapstat_print(const char *what, const struct pt_swapstat *d)
{
	printf("# %s: pswpin %ld pswpout %ld thp_swpout %ld thp_swpout_fallback %ld thp_split_pmd %ld thp_split_page %ld pgmajfault %ld\n",
	       what, d->pswpin, d->pswpout, d->thp_swpout,
	       d->thp_swpout_fallback, d->thp_split_pmd, d->thp_split_page,
	       d->pgmajfault);
}

int pt_huge_swap_mode(void)
{
	long v = pt_read_long(PT_HUGE_SWAP_KNOB);

	return v < 0 ? -1 : !!v;
}

int pt_huge_swap_set(int on)
{
	int old = pt_huge_swap_mode();

	if (old < 0 || pt_write_str(PT_HUGE_SWAP_KNOB, on ? "1" : "0"))
		return -1;
	return old;
}

int pt_inplace_policy(void)
{
	static const char * const names[] = { "[never]", "[read]", "[always]" };
	char buf[128];
	glob_t g;
	int i, ret = -1;

	if (glob("/sys/kernel/mm/pmswap/pmem/*/inplace", 0, NULL, &g))
		return -1;
	if (g.gl_pathc && !pt_read_str(g.gl_pathv[0], buf, sizeof(buf)))
		for (i = 0; i < 3; i++)
			if (strstr(buf, names[i]))
				ret = i;
	globfree(&g);
	return ret;
}

long pt_swap_slot_cache_kb(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	return (cpus > 0 ? cpus : 1) * 64 * (PT_PAGE_SIZE >> 10);
}

int pt_inplace_dev_find(struct pt_inplace_dev *d)
{
	glob_t g;
	char *slash;

	if (glob("/sys/kernel/mm/pmswap/pmem/*/inplace", 0, NULL, &g))
		return -1;
	if (!g.gl_pathc) {
		globfree(&g);
		return -1;
	}
	slash = strrchr(g.gl_pathv[0], '/');
	snprintf(d->dir, sizeof(d->dir), "%.*s", (int)(slash - g.gl_pathv[0]),
		 g.gl_pathv[0]);
	globfree(&g);
	snprintf(d->dev, sizeof(d->dev), "/dev/%.50s", strrchr(d->dir, '/') + 1);
	snprintf(d->policy, sizeof(d->policy), "%s/inplace", d->dir);
	snprintf(d->stats, sizeof(d->stats), "%s/stats", d->dir);
	return 0;
}

long pt_stat_key(const char *dir, const char *key)
{
	char path[512], buf[64], *end;
	long v;

	snprintf(path, sizeof(path), "%s/%s", dir, key);
	if (pt_read_str(path, buf, sizeof(buf)))
		return -1;
	v = strtol(buf, &end, 10);
	return end == buf ? -1 : v;
}

double pt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void pt_race_path(char *buf, size_t len, const char *name,
			 const char *what)
{
	snprintf(buf, len, PT_RACE_DIR "/%s_%s", name, what);
}

bool pt_race_available(void)
{
	if (!pt_path_exists("/sys/kernel/debug/pmswap"))
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	return pt_path_exists(PT_RACE_DIR);
}

long pt_race_hits(const char *name)
{
	char path[256];

	pt_race_path(path, sizeof(path), name, "hits");
	return pt_read_long(path);
}

int pt_race_arm(const char *name, unsigned int delay_ms, int tgid)
{
	char path[256], val[32];

	pt_race_path(path, sizeof(path), name, "tgid");
	snprintf(val, sizeof(val), "%d", tgid);
	if (pt_write_str(path, val))
		return -1;
	pt_race_path(path, sizeof(path), name, "delay_ms");
	snprintf(val, sizeof(val), "%u", delay_ms);
	if (pt_write_str(path, val))
		return -1;
	pt_race_path(path, sizeof(path), name, "left");
	return pt_write_str(path, "1");
}

bool pt_race_wait(const char *name, long hits0, double secs)
{
	double end = pt_now() + secs;

	while (pt_now() < end) {
		if (pt_race_hits(name) > hits0)
			return true;
		usleep(10000);
	}
	return false;
}

void pt_race_release(const char *name)
{
	char path[256];

	pt_race_path(path, sizeof(path), name, "left");
	pt_write_str(path, "0");
	pt_race_path(path, sizeof(path), name, "delay_ms");
	pt_write_str(path, "0");
	pt_race_path(path, sizeof(path), name, "tgid");
	pt_write_str(path, "0");
}

int pt_kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	pt_kmsg_skip(fd);
	return fd;
}

void pt_kmsg_skip(int fd)
{
	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
}

int pt_kmsg_grep(int fd, const char *const *pat, int show)
{
	char rec[8192], *msg, *nl;
	const char *const *p;
	ssize_t len;
	int n = 0;

	if (fd < 0)
		return 0;
	for (;;) {
		len = read(fd, rec, sizeof(rec) - 1);
		if (len < 0 && errno == EPIPE)	/* records overwritten */
			continue;
		if (len <= 0)
			break;
		rec[len] = 0;
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		nl = strchr(msg, '\n');
		if (nl)
			*nl = 0;
		for (p = pat; *p; p++) {
			if (!strstr(msg, *p))
				continue;
			if (n++ < show)
				printf("# kernel: %.200s\n", msg);
			break;
		}
	}
	return n;
}
