// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz: a seeded, reproducible mm-syscall fuzzer with a data model.
 *
 * A few processes (--procs), each with a few threads (--threads), run random
 * operation sequences over THP-backed (2 MiB-aligned, MADV_HUGEPAGE) and
 * small-page anonymous regions: mmap, munmap (whole, partial), mprotect,
 * mremap (move, grow, shrink), madvise (PAGEOUT, COLD, WILLNEED, DONTNEED,
 * FREE, HUGEPAGE, NOHUGEPAGE, COLLAPSE, POPULATE_READ/WRITE), mlock and
 * munlock, reads and writes of whole pages, reads and writes through
 * /proc/self/mem, process_vm_readv, fork with a child that reads, writes,
 * swaps out, splits and exits, userfaultfd registration (MISSING) and
 * UFFDIO_MOVE. A root helper flips pmswap's switches (huge_swap, inplace,
 * io) and pulses memory.reclaim and memory.high of the workers' memcg, when
 * those files exist.
 *
 * The model: each worker thread owns its regions (no other thread touches
 * them) and keeps, per 4 KiB page, a tag that defines every byte of the
 * page (tag 0: all zero; otherwise word 0 is the tag itself and word i a
 * hash of tag and i), the page's protection, and two flags: MAYBE (the page
 * was MADV_FREE'd, or a DONTNEED failed: it reads either its tag's content
 * or all zeros, until the next write) and UFFD (registered MISSING: not
 * touched from user space; a touching operation unregisters first). A fork
 * child's model is its copy of the parent's (fork copies it); the parent
 * does no MADV_FREE while the child lives (see applicable()). Every read
 * (load, /proc/self/mem, process_vm_readv) checks whole pages against the
 * model; a difference prints the seed, the process and thread, the address,
 * the offset within the page, expected and found words, the page's tag and
 * the last 64 operations of every thread of the process, then fails.
 *
 * Replay: all randomness of worker thread T of process P comes from a PRNG
 * seeded with (seed, P, T), so a seed repeats each thread's operation
 * sequence (as long as the kernel returns the same results); interleavings
 * between threads are not reproducible. "--only P.T --ops N" runs that one
 * thread alone up to its operation N.
 *
 * Runs as root only to set up: it creates a memcg, forks the helper (which
 * stays root), enters the memcg and drops to uid/gid 65534 (--uid) before
 * forking the workers. Not root: no helper, no memcg, the caller's uid.
 *
 * Output is TAP (kselftest.h): one test point per process and one for the
 * helper (skipped when it is not root or finds nothing to flip); the last
 * lines give the swap and THP counters of /proc/vmstat over the run and
 * count the operations of each kind. A process that outlives --duration by
 * 300 s plus half of it is reported as hung, with its last operations.
 *
 * Also: --flip chooses what the helper changes (e.g. keep the in-place
 * policy fixed), --weight OP=N changes the mix (0 also in fork children:
 * "--weight willneed=0" keeps clear of the MADV_WILLNEED crash of f287e58),
 * --inject N corrupts a page behind the model's back after operation N of
 * p0.t0 and checks it: the run must fail (a self-test of the checker).
 *
 * Known stock behaviour the model steers around: on 6.12 a page swapped in
 * by a read fault from pmem or zram (the swap cache is skipped) is clean
 * and outside the swap cache; after fork, the parent's MADV_FREE marks the
 * shared folio lazyfree and reclaim discards it under the child too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <glob.h>
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "kselftest.h"

#ifndef MADV_COLD
#define MADV_COLD		20
#endif
#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT		21
#endif
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ	22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE	23
#endif
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE		25
#endif
#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY	1
#endif
/* UFFDIO_MOVE (6.8): older UAPI headers do not have it. */
#define FZ_UFFD_FEATURE_MOVE		(1 << 16)
#define FZ_UFFDIO_MOVE_ALLOW_SRC_HOLES	((__u64)1 << 1)
struct fz_uffdio_move {
	__u64 dst;
	__u64 src;
	__u64 len;
	__u64 mode;
	__s64 move;
};
#define FZ_UFFDIO_MOVE		_IOWR(UFFDIO, 0x05, struct fz_uffdio_move)

#define PAGE		4096UL
#define PMD		(2UL << 20)
#define PMD_PAGES	(PMD / PAGE)
#define WORDS		(PAGE / 8)
#define MAXPROCS	16
#define MAXTHREADS	8
#define MAXREG		10	/* region slots of a thread (splits may use all) */
#define SOFTREG		5	/* mmap adds regions up to this many */
#define CAP_PAGES	((16UL << 20) / PAGE)	/* mapped by one thread */
#define RING		64
#define BUFPAGES	64
#define CHILD_WAIT_S	300

/* --- operations --- */
enum op {
	OP_READ, OP_WRITE, OP_PAGEOUT, OP_WILLNEED, OP_COLD, OP_WAIT,
	OP_MPROTECT, OP_MMAP, OP_MUNMAP, OP_MUNMAP_PART,
	OP_MREMAP_MOVE, OP_MREMAP_GROW, OP_MREMAP_SHRINK,
	OP_DONTNEED, OP_FREE, OP_HUGEPAGE, OP_NOHUGEPAGE, OP_COLLAPSE,
	OP_POP_READ, OP_POP_WRITE, OP_MLOCK, OP_MUNLOCK,
	OP_MEM_READ, OP_MEM_WRITE, OP_PVREAD, OP_FORK,
	OP_UFFD_REG, OP_UFFD_UNREG, OP_UFFD_MOVE,
	OP_NR,
	/* logged and counted, never drawn */
	OP_REAP = OP_NR, OP_CHILD, OP_LOG_NR
};

static const char * const op_name[OP_LOG_NR] = {
	[OP_READ] = "read", [OP_WRITE] = "write", [OP_PAGEOUT] = "pageout",
	[OP_WILLNEED] = "willneed", [OP_COLD] = "cold", [OP_WAIT] = "wait",
	[OP_MPROTECT] = "mprotect", [OP_MMAP] = "mmap", [OP_MUNMAP] = "munmap",
	[OP_MUNMAP_PART] = "munmap_part", [OP_MREMAP_MOVE] = "mremap_move",
	[OP_MREMAP_GROW] = "mremap_grow", [OP_MREMAP_SHRINK] = "mremap_shrink",
	[OP_DONTNEED] = "dontneed", [OP_FREE] = "free",
	[OP_HUGEPAGE] = "hugepage", [OP_NOHUGEPAGE] = "nohugepage",
	[OP_COLLAPSE] = "collapse", [OP_POP_READ] = "populate_read",
	[OP_POP_WRITE] = "populate_write", [OP_MLOCK] = "mlock",
	[OP_MUNLOCK] = "munlock", [OP_MEM_READ] = "procmem_read",
	[OP_MEM_WRITE] = "procmem_write", [OP_PVREAD] = "process_vm_readv",
	[OP_FORK] = "fork", [OP_UFFD_REG] = "uffd_register",
	[OP_UFFD_UNREG] = "uffd_unregister", [OP_UFFD_MOVE] = "uffd_move",
	[OP_REAP] = "reap", [OP_CHILD] = "child_start",
};

/*
 * Weights: biased to what meets huge swap entries (swap-out, readahead,
 * splitting operations and reads on THP regions).
 */
static int parent_weight[OP_NR] = {
	[OP_READ] = 150, [OP_WRITE] = 60, [OP_PAGEOUT] = 110,
	[OP_WILLNEED] = 90, [OP_COLD] = 15, [OP_WAIT] = 30,
	[OP_MPROTECT] = 80, [OP_MMAP] = 25, [OP_MUNMAP] = 6,
	[OP_MUNMAP_PART] = 30, [OP_MREMAP_MOVE] = 30, [OP_MREMAP_GROW] = 12,
	[OP_MREMAP_SHRINK] = 12, [OP_DONTNEED] = 20, [OP_FREE] = 20,
	[OP_HUGEPAGE] = 12, [OP_NOHUGEPAGE] = 15, [OP_COLLAPSE] = 15,
	[OP_POP_READ] = 10, [OP_POP_WRITE] = 10, [OP_MLOCK] = 4,
	[OP_MUNLOCK] = 10, [OP_MEM_READ] = 30, [OP_MEM_WRITE] = 12,
	[OP_PVREAD] = 30, [OP_FORK] = 12, [OP_UFFD_REG] = 15,
	[OP_UFFD_UNREG] = 8, [OP_UFFD_MOVE] = 20,
};

/* A fork child: reads, writes, swaps out, splits its copy, and exits. */
static int child_weight[OP_NR] = {
	[OP_READ] = 40, [OP_WRITE] = 15, [OP_PAGEOUT] = 15,
	[OP_WILLNEED] = 10, [OP_COLD] = 3, [OP_WAIT] = 3,
	[OP_MPROTECT] = 8, [OP_DONTNEED] = 3, [OP_PVREAD] = 5,
	[OP_MUNMAP_PART] = 3, [OP_NOHUGEPAGE] = 3,
};

/* --- options --- */
static struct {
	uint64_t seed;
	double duration;	/* seconds; 0: no limit */
	long ops;		/* per worker thread; 0: no limit */
	int procs, threads;
	int verbose;
	int only_p, only_t;	/* -1: all */
	int uid;
	bool no_helper;
	unsigned int flip;	/* FLIP_* the helper may do */
	long inject;		/* self-test: corrupt a page at this op of p0.t0 */
} opt = {
	.duration = 60, .procs = 3, .threads = 2, .only_p = -1, .only_t = -1,
	.uid = 65534,
};

enum {
	FLIP_HUGE = 1, FLIP_INPLACE = 2, FLIP_IO = 4, FLIP_RECLAIM = 8,
	FLIP_HIGH = 16, FLIP_ALL = 31,
};

/* --- state shared between the processes (MAP_SHARED) --- */
struct oplog {
	uint64_t seq;
	uint64_t t_ns;
	uint16_t kind;
	int16_t reg;		/* region id, -1 none */
	int32_t ret;		/* >= 0 result, < 0 -errno, INT32_MIN: pending */
	uint64_t addr, off, len;	/* off and len in pages */
	uint64_t arg, arg2;
};
#define PENDING INT32_MIN

struct tshared {
	volatile uint64_t seq;		/* operations drawn */
	volatile uint64_t logn;		/* log entries written */
	uint64_t counts[OP_LOG_NR];
	struct oplog ring[RING];
};

struct pshared {
	volatile int started, done, failed;
	char why[200];
	struct tshared t[MAXTHREADS];
};

struct hshared {
	volatile int done, ok, actions;
	char found[400];
	char flips[400];
};

static struct shared {
	volatile int stop;
	uint64_t start_ns;
	struct pshared p[MAXPROCS];
	struct hshared h;
} *sh;

/* --- per process --- */
static struct {
	int idx;
	int uffd;
	bool uffd_ok, move_ok;
	bool mem_force_read, mem_force_write;
	pthread_mutex_t out_lock;
	struct worker *w[MAXTHREADS];
} pr = { .uffd = -1, .out_lock = PTHREAD_MUTEX_INITIALIZER };

/* --- the model --- */
enum { P_NONE, P_RO, P_RW, P_UNK };
static const char * const prot_name[] = { "NONE", "RO", "RW", "UNKNOWN" };
#define F_MAYBE	1	/* either the tag's content or zeros */
#define F_UFFD	2	/* registered with userfaultfd (MISSING) */

struct pstate {
	uint64_t tag;
	uint8_t prot;
	uint8_t flags;
};

struct region {
	int id;			/* 0: free slot */
	bool thp;
	char *base;
	size_t npages;
	struct pstate *pg;
};

struct rng {
	uint64_t s[4];
};

struct worker {
	int p, t;
	bool in_child;
	struct rng rng;
	struct region reg[MAXREG];
	int next_id;
	uint64_t tag_ctr;
	uint64_t seq;
	uint64_t logn;
	int last_reg;
	size_t last_off, last_n;
	int memfd;
	pid_t child;
	uint64_t child_seq, child_reap_at;
	struct tshared *ts;
	struct oplog *ring;		/* ts->ring, or private in a child */
	struct oplog child_ring[RING];
	uint64_t *buf;			/* BUFPAGES pages */
	uint64_t *buf2;			/* one page */
};

static __thread struct worker *cur_w;

/* --- small helpers --- */
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static double uptime(void)
{
	double u = -1;
	FILE *f = fopen("/proc/uptime", "r");

	if (f) {
		if (fscanf(f, "%lf", &u) != 1)
			u = -1;
		fclose(f);
	}
	return u;
}

/* One "# "-prefixed line with one write(): safe in children and handlers. */
static void out(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	buf[0] = '#';
	buf[1] = ' ';
	va_start(ap, fmt);
	n = vsnprintf(buf + 2, sizeof(buf) - 3, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	n += 2;
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(1, buf, n) < 0)
		return;
}

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void rng_seed(struct rng *r, uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t x = a ^ splitmix(&b) ^ (splitmix(&c) << 1);
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix(&x);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rnd(struct rng *r)
{
	uint64_t *s = r->s, res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return res;
}

/* Uniform in [0, n); n > 0. */
static uint64_t below(struct worker *w, uint64_t n)
{
	return n ? rnd(&w->rng) % n : 0;
}

static bool chance(struct worker *w, int percent)
{
	return (int)below(w, 100) < percent;
}

/* --- page content --- */
static inline uint64_t word_of(uint64_t tag, size_t i)
{
	uint64_t x;

	if (!tag)
		return 0;
	if (!i)
		return tag;
	x = tag * 0x9e3779b97f4a7c15ULL ^ (i * 0xbf58476d1ce4e5b9ULL);
	x ^= x >> 29;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 32);
}

static uint64_t new_tag(struct worker *w)
{
	uint64_t tag = ((uint64_t)(w->p + 1) << 56) | ((uint64_t)(w->t + 1) << 49) |
		       ((uint64_t)w->in_child << 48);

	return tag | (++w->tag_ctr & ((1ULL << 48) - 1));
}

static void fill_words(uint64_t *p, uint64_t tag)
{
	size_t i;

	for (i = 0; i < WORDS; i++)
		p[i] = word_of(tag, i);
}

/* 0 when @p holds what @ps says; else the first differing word. */
static int page_differs(const volatile uint64_t *p, const struct pstate *ps,
			size_t *word, uint64_t *exp, uint64_t *got)
{
	uint64_t tag = ps->tag;
	size_t i;

	if ((ps->flags & F_MAYBE) && tag && p[0] == 0)
		tag = 0;
	for (i = 0; i < WORDS; i++) {
		uint64_t v = p[i], e = word_of(tag, i);

		if (v != e) {
			*word = i;
			*exp = e;
			*got = v;
			return 1;
		}
	}
	return 0;
}

static void tag_str(char *buf, size_t len, uint64_t tag)
{
	unsigned int p = tag >> 56, t = (tag >> 49) & 0x7f;

	if (!tag)
		snprintf(buf, len, "zero");
	else if (p >= 1 && p <= MAXPROCS && t >= 1 && t <= MAXTHREADS)
		snprintf(buf, len, "p%u.t%u%s write #%llu", p - 1, t - 1,
			 (tag >> 48) & 1 ? " (fork child)" : "",
			 (unsigned long long)(tag & ((1ULL << 48) - 1)));
	else
		snprintf(buf, len, "not a tag");
}

/* --- regions --- */
static struct region *reg_by_id(struct worker *w, int id)
{
	int i;

	for (i = 0; i < MAXREG; i++)
		if (w->reg[i].id && w->reg[i].id == id)
			return &w->reg[i];
	return NULL;
}

static int reg_count(struct worker *w)
{
	int i, n = 0;

	for (i = 0; i < MAXREG; i++)
		n += !!w->reg[i].id;
	return n;
}

static size_t mapped_pages(struct worker *w)
{
	size_t n = 0;
	int i;

	for (i = 0; i < MAXREG; i++)
		if (w->reg[i].id)
			n += w->reg[i].npages;
	return n;
}

static struct region *reg_new(struct worker *w, char *base, size_t npages,
			      bool thp)
{
	struct region *r = NULL;
	int i;

	for (i = 0; i < MAXREG && !r; i++)
		if (!w->reg[i].id)
			r = &w->reg[i];
	if (!r)
		return NULL;
	r->pg = calloc(npages, sizeof(*r->pg));
	if (!r->pg)
		return NULL;
	r->id = ++w->next_id;
	r->base = base;
	r->npages = npages;
	r->thp = thp;
	for (i = 0; i < (int)npages; i++)
		r->pg[i].prot = P_RW;
	return r;
}

static void reg_free(struct region *r)
{
	free(r->pg);
	memset(r, 0, sizeof(*r));
}

static int free_slots(struct worker *w)
{
	return MAXREG - reg_count(w);
}

/*
 * Drop pages [off, off + n) of @r from the model (unmapped or moved away):
 * the head shrinks, the tail shrinks, or the middle splits @r in two.
 * Callers check free_slots() first for the middle case.
 */
static void reg_cut(struct worker *w, struct region *r, size_t off, size_t n)
{
	size_t end = off + n, rest = r->npages - end;
	struct region *t;

	if (!off && !rest) {
		reg_free(r);
		return;
	}
	if (!off) {
		memmove(r->pg, r->pg + end, rest * sizeof(*r->pg));
		r->base += end * PAGE;
		r->npages = rest;
		return;
	}
	if (rest) {
		t = reg_new(w, r->base + end * PAGE, rest, r->thp);
		if (t)
			memcpy(t->pg, r->pg + end, rest * sizeof(*r->pg));
	}
	r->npages = off;
}

/* --- the operation log --- */
static struct oplog *log_begin(struct worker *w, int kind, struct region *r,
			       size_t off, size_t n)
{
	struct oplog *e = &w->ring[w->logn++ % RING];

	if (!w->in_child)
		w->ts->logn = w->logn;
	memset(e, 0, sizeof(*e));
	e->seq = w->seq;
	e->t_ns = now_ns() - sh->start_ns;
	e->kind = kind;
	e->reg = r ? r->id : -1;
	e->addr = r ? (uint64_t)(uintptr_t)(r->base + off * PAGE) : 0;
	e->off = off;
	e->len = n;
	e->ret = PENDING;
	__atomic_fetch_add(&w->ts->counts[kind], 1, __ATOMIC_RELAXED);
	return e;
}

static void fmt_op(char *buf, size_t len, int p, int t, bool child,
		   const struct oplog *e)
{
	char ret[32], extra[96] = "";

	if (e->ret == PENDING)
		snprintf(ret, sizeof(ret), "(in progress)");
	else if (e->ret < 0)
		snprintf(ret, sizeof(ret), "= -1 %s", strerrorname_np(-e->ret) ?: "?");
	else
		snprintf(ret, sizeof(ret), "= %d", e->ret);
	switch (e->kind) {
	case OP_MPROTECT:
		snprintf(extra, sizeof(extra), " prot=%s", prot_name[e->arg & 3]);
		break;
	case OP_MMAP:
		snprintf(extra, sizeof(extra), " %s", e->arg ? "thp" : "small");
		break;
	case OP_MREMAP_MOVE:
		snprintf(extra, sizeof(extra), " to=0x%llx new=r%llu",
			 (unsigned long long)e->arg, (unsigned long long)e->arg2);
		break;
	case OP_MREMAP_GROW:
	case OP_MREMAP_SHRINK:
		snprintf(extra, sizeof(extra), " new_len=%llu new_addr=0x%llx",
			 (unsigned long long)e->arg, (unsigned long long)e->arg2);
		break;
	case OP_UFFD_MOVE:
		snprintf(extra, sizeof(extra), " dst=r%llu+%llu moved=%lld",
			 (unsigned long long)(e->arg >> 32),
			 (unsigned long long)(e->arg & 0xffffffff),
			 (long long)e->arg2);
		break;
	case OP_UFFD_UNREG:
		snprintf(extra, sizeof(extra), "%s", e->arg ? " (before touching)" : "");
		break;
	case OP_FORK:
		snprintf(extra, sizeof(extra), " child_ops=%llu pid=%llu",
			 (unsigned long long)e->arg, (unsigned long long)e->arg2);
		break;
	case OP_REAP:
		snprintf(extra, sizeof(extra), " pid=%llu status=0x%llx",
			 (unsigned long long)e->arg, (unsigned long long)e->arg2);
		break;
	case OP_READ:
	case OP_WRITE:
	case OP_MEM_READ:
	case OP_MEM_WRITE:
	case OP_PVREAD:
	case OP_WAIT:
		snprintf(extra, sizeof(extra), " pages=%llu", (unsigned long long)e->arg);
		break;
	}
	snprintf(buf, len, "p%d.t%d%s #%llu +%.3fs %s r%d 0x%llx off=%llu len=%llu%s %s",
		 p, t, child ? "c" : "", (unsigned long long)e->seq, e->t_ns / 1e9,
		 op_name[e->kind], e->reg, (unsigned long long)e->addr,
		 (unsigned long long)e->off, (unsigned long long)e->len, extra, ret);
}

static void log_end(struct worker *w, struct oplog *e, long ret)
{
	char buf[512];

	e->ret = ret < 0 ? -errno : (ret > INT32_MAX ? INT32_MAX : ret);
	if (opt.verbose) {
		fmt_op(buf, sizeof(buf), w->p, w->t, w->in_child, e);
		out("%s", buf);
	}
}

static void dump_ring(const struct oplog *ring, uint64_t logn, int p, int t,
		      bool child)
{
	char buf[512];
	uint64_t s = logn > RING ? logn - RING : 0;

	for (; s < logn; s++) {
		const struct oplog *e = &ring[s % RING];

		if (!e->seq && !e->t_ns)
			continue;
		fmt_op(buf, sizeof(buf), p, t, child, e);
		out("  %s", buf);
	}
}

static void replay_hint(struct worker *w)
{
	out("replay: fuzz --seed %llu --procs %d --threads %d --only %d.%d --ops %llu",
	    (unsigned long long)opt.seed, opt.procs, opt.threads, w->p, w->t,
	    (unsigned long long)(w->in_child ? w->child_seq + 1 : w->seq + 1));
}

/* Print the last operations of every thread of this process and exit. */
static void __noreturn fail_exit(struct worker *w, int code)
{
	int t;

	out("last %d operations of p%d.t%d%s (newest last):", RING, w->p, w->t,
	    w->in_child ? " (fork child; its parent's before the fork)" : "");
	dump_ring(w->ring, w->logn, w->p, w->t, w->in_child);
	if (!w->in_child) {
		for (t = 0; t < opt.threads; t++) {
			if (t == w->t || !pr.w[t])
				continue;
			out("last operations of p%d.t%d:", w->p, t);
			dump_ring(sh->p[w->p].t[t].ring, sh->p[w->p].t[t].logn,
				  w->p, t, false);
		}
	}
	replay_hint(w);
	if (!w->in_child)
		sh->p[w->p].failed = 1;
	_exit(code);
}

static void report_lock(struct worker *w)
{
	if (!w->in_child)
		pthread_mutex_lock(&pr.out_lock);
}

static void pagemap_line(const void *addr)
{
	uint64_t e = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0)
		return;
	if (pread(fd, &e, 8, (uintptr_t)addr / PAGE * 8) == 8)
		out("pagemap 0x%016llx:%s%s%s%s", (unsigned long long)e,
		    e >> 63 ? " present" : "", (e >> 62) & 1 ? " swapped" : "",
		    (e >> 56) & 1 ? " exclusive" : "",
		    (e >> 62) & 1 ? "" : (e >> 63 ? "" : " none"));
	close(fd);
}

/* --- checking pages --- */
enum { VIA_LOAD, VIA_PROCMEM, VIA_PVR };
static const char * const via_name[] = { "load", "/proc/self/mem", "process_vm_readv" };

static long pvr(void *local, uintptr_t remote, size_t len)
{
	struct iovec l = { local, len }, rm = { (void *)remote, len };

	return process_vm_readv(getpid(), &l, 1, &rm, 1, 0);
}

/* Read page @addr again by the same means, into w->buf2 unless a load. */
static const volatile uint64_t *refetch(struct worker *w, int via, char *addr)
{
	long n = PAGE;

	if (via == VIA_LOAD)
		return (const volatile uint64_t *)addr;
	memset(w->buf2, 0xa5, PAGE);
	if (via == VIA_PROCMEM)
		n = pread(w->memfd, w->buf2, PAGE, (uintptr_t)addr);
	else
		n = pvr(w->buf2, (uintptr_t)addr, PAGE);
	return n == (long)PAGE ? w->buf2 : NULL;
}

/*
 * Check page @i of @r, read into @data by @via. A page that may be zero
 * (MADV_FREE) can be discarded while it is being read: read it once more
 * before calling a mixed page wrong.
 */
static void verify_page(struct worker *w, struct oplog *e, struct region *r,
			size_t i, const volatile uint64_t *data, int via)
{
	const struct pstate *ps = &r->pg[i];
	char *addr = r->base + i * PAGE, t1[64], t2[64];
	uint64_t exp, got, exp2 = 0, got2 = 0;
	const volatile uint64_t *again;
	size_t word, word2 = 0;
	int again_bad = -1;

	if (!page_differs(data, ps, &word, &exp, &got))
		return;
	again = refetch(w, via, addr);
	if (again) {
		again_bad = page_differs(again, ps, &word2, &exp2, &got2);
		if (!again_bad && (ps->flags & F_MAYBE))
			return;
	}
	report_lock(w);
	e->ret = -EILSEQ;
	tag_str(t1, sizeof(t1), ps->tag);
	tag_str(t2, sizeof(t2), data[0]);
	out("FUZZ MISMATCH seed=%llu proc=%d thread=%d%s op=#%llu %s via %s",
	    (unsigned long long)opt.seed, w->p, w->t,
	    w->in_child ? " (fork child)" : "", (unsigned long long)w->seq,
	    op_name[e->kind], via_name[via]);
	out("address %p: region r%d (base %p, %zu pages, %s), page %zu, offset 0x%zx within the page",
	    addr + word * 8, r->id, r->base, r->npages, r->thp ? "thp" : "small",
	    i, word * 8);
	out("expected 0x%016llx got 0x%016llx", (unsigned long long)exp,
	    (unsigned long long)got);
	out("model: tag 0x%016llx (%s)%s prot %s%s; the page's first word 0x%016llx (%s)",
	    (unsigned long long)ps->tag, t1,
	    ps->flags & F_MAYBE ? " or zero (MADV_FREE)" : "",
	    prot_name[ps->prot], ps->flags & F_UFFD ? " uffd" : "",
	    (unsigned long long)data[0], t2);
	if (again_bad < 0)
		out("read again: failed (%s)", strerror(errno));
	else if (!again_bad)
		out("read again: now as expected (the wrong data was transient)");
	else
		out("read again: still wrong at offset 0x%zx: expected 0x%016llx got 0x%016llx",
		    word2 * 8, (unsigned long long)exp2, (unsigned long long)got2);
	pagemap_line(addr);
	if (!w->in_child)
		snprintf(sh->p[w->p].why, sizeof(sh->p[w->p].why),
			 "data mismatch at op #%llu %s (t%d, %p +0x%zx)",
			 (unsigned long long)w->seq, op_name[e->kind], w->t, addr,
			 word * 8);
	fail_exit(w, 1);
}

/* An operation that must not fail did (short read/write of mapped pages). */
static void __noreturn fail_op(struct worker *w, struct oplog *e,
					      const char *what, long got, long want)
{
	int err = errno;

	report_lock(w);
	out("FUZZ FAILURE seed=%llu proc=%d thread=%d%s op=#%llu %s: %s returned %ld of %ld (%s)",
	    (unsigned long long)opt.seed, w->p, w->t, w->in_child ? " (fork child)" : "",
	    (unsigned long long)w->seq, op_name[e->kind], what, got, want,
	    got < 0 ? strerror(err) : "short");
	if (e->addr)
		pagemap_line((void *)(uintptr_t)e->addr);
	if (!w->in_child)
		snprintf(sh->p[w->p].why, sizeof(sh->p[w->p].why),
			 "op #%llu %s: %s returned %ld of %ld",
			 (unsigned long long)w->seq, op_name[e->kind], what, got, want);
	e->ret = -err;
	fail_exit(w, 1);
}

/* --- choosing regions and ranges --- */
static struct region *pick_region(struct worker *w)
{
	struct region *r = reg_by_id(w, w->last_reg);
	int i, total = 0, x;

	if (r && chance(w, 75))
		return r;
	for (i = 0; i < MAXREG; i++)
		if (w->reg[i].id)
			total += w->reg[i].thp ? 3 : 1;
	if (!total)
		return NULL;
	x = below(w, total);
	for (i = 0; i < MAXREG; i++) {
		if (!w->reg[i].id)
			continue;
		x -= w->reg[i].thp ? 3 : 1;
		if (x < 0)
			return &w->reg[i];
	}
	return NULL;
}

static bool last_valid(struct worker *w, struct region *r)
{
	return w->last_reg == r->id && w->last_n &&
	       w->last_off + w->last_n <= r->npages;
}

static void focus(struct worker *w, struct region *r, size_t off, size_t n)
{
	w->last_reg = r->id;
	w->last_off = off;
	w->last_n = n;
}

/* The part of the 2 MiB-aligned block holding page @i that lies in @r. */
static void chunk_of(struct region *r, size_t i, size_t *off, size_t *n)
{
	uintptr_t rs = (uintptr_t)r->base, re = rs + r->npages * PAGE;
	uintptr_t cs = (rs + i * PAGE) & ~(PMD - 1), ce = cs + PMD;

	if (cs < rs)
		cs = rs;
	if (ce > re)
		ce = re;
	*off = (cs - rs) / PAGE;
	*n = (ce - cs) / PAGE;
}

/* A random whole 2 MiB-aligned block inside @r. */
static bool full_chunk(struct worker *w, struct region *r, size_t *off)
{
	uintptr_t rs = (uintptr_t)r->base, re = rs + r->npages * PAGE;
	uintptr_t first = (rs + PMD - 1) & ~(PMD - 1);

	if (first + PMD > re)
		return false;
	*off = (first - rs) / PAGE + below(w, (re - first) / PMD) * PMD_PAGES;
	return true;
}

static bool has_chunk(struct region *r)
{
	uintptr_t rs = (uintptr_t)r->base, re = rs + r->npages * PAGE;

	return ((rs + PMD - 1) & ~(PMD - 1)) + PMD <= re;
}

static void rand_span(struct worker *w, struct region *r, size_t *off, size_t *n)
{
	size_t s = below(w, r->npages), len;
	int x = below(w, 100);

	if (x < 40)
		len = 1;
	else if (x < 70)
		len = 2 + below(w, 15);
	else
		len = 17 + below(w, 496);
	if (len > r->npages - s)
		len = r->npages - s;
	*off = s;
	*n = len;
}

enum { RS_ANY, RS_SWAP, RS_SPLIT, RS_PMD };

static void pick_range(struct worker *w, struct region *r, int style,
		       size_t *off, size_t *n)
{
	int x = below(w, 100);
	size_t c, cn, s, max;

	switch (style) {
	case RS_PMD:
		/* whole 2 MiB blocks: the block of the last range, or any */
		if (x < 50 && last_valid(w, r)) {
			chunk_of(r, w->last_off, off, n);
			if (*n == PMD_PAGES)
				return;
		}
		if (x < 90 && full_chunk(w, r, off)) {
			*n = PMD_PAGES;
			return;
		}
		*off = 0;
		*n = r->npages;
		return;
	case RS_SWAP:
		if (x < 40 && last_valid(w, r)) {
			*off = w->last_off;
			*n = w->last_n;
		} else if (x < 60 && last_valid(w, r)) {
			chunk_of(r, w->last_off, off, n);
		} else if (x < 75) {
			*off = 0;
			*n = r->npages;
		} else if (x < 95 && full_chunk(w, r, off)) {
			*n = PMD_PAGES;
		} else {
			rand_span(w, r, off, n);
		}
		return;
	case RS_SPLIT:
		/* strictly inside one 2 MiB block: splits what maps it whole */
		if (x < 60 && last_valid(w, r)) {
			chunk_of(r, w->last_off, &c, &cn);
		} else if (x < 85 && full_chunk(w, r, &c)) {
			cn = PMD_PAGES;
		} else {
			rand_span(w, r, off, n);
			return;
		}
		if (cn < 2) {
			*off = c;
			*n = cn;
			return;
		}
		s = below(w, cn - 1);
		max = s ? cn - s : cn - 1;
		*off = c + s;
		*n = 1 + below(w, chance(w, 80) && max > 8 ? 8 : max);
		return;
	default:
		if (x < 35 && last_valid(w, r)) {
			*off = w->last_off;
			*n = w->last_n;
		} else if (x < 50) {
			*off = 0;
			*n = r->npages;
		} else if (x < 70 && full_chunk(w, r, off)) {
			*n = PMD_PAGES;
		} else {
			rand_span(w, r, off, n);
		}
	}
}

/* Splits leave small regions behind: munmap picks those first. */
static struct region *smallest_region(struct worker *w)
{
	struct region *r = NULL;
	int i;

	for (i = 0; i < MAXREG; i++)
		if (w->reg[i].id && (!r || w->reg[i].npages < r->npages))
			r = &w->reg[i];
	return r;
}

/* Regions with a whole 2 MiB-aligned block: where THPs can be. */
static int thp_capable(struct worker *w)
{
	int i, n = 0;

	for (i = 0; i < MAXREG; i++)
		n += w->reg[i].id && has_chunk(&w->reg[i]);
	return n;
}

/* --- userfaultfd --- */
static bool any_flag(struct region *r, size_t off, size_t n, int flag)
{
	size_t i;

	for (i = off; i < off + n; i++)
		if (r->pg[i].flags & flag)
			return true;
	return false;
}

/*
 * Before touching pages of @r: unregister the whole region from
 * userfaultfd, so that no fault waits for a handler there is none of.
 * Returns false when registered pages remain (a fork child cannot
 * unregister: the fd is its parent's).
 */
static bool uffd_release(struct worker *w, struct region *r, size_t off, size_t n)
{
	struct uffdio_range rg;
	struct oplog *e;
	size_t i;
	long ret;

	if (!any_flag(r, off, n, F_UFFD))
		return true;
	if (w->in_child || pr.uffd < 0)
		return false;
	e = log_begin(w, OP_UFFD_UNREG, r, 0, r->npages);
	e->arg = 1;
	rg.start = (uintptr_t)r->base;
	rg.len = r->npages * PAGE;
	ret = ioctl(pr.uffd, UFFDIO_UNREGISTER, &rg);
	log_end(w, e, ret);
	if (ret)
		return false;
	for (i = 0; i < r->npages; i++)
		r->pg[i].flags &= ~F_UFFD;
	return true;
}

static bool readable(const struct pstate *ps)
{
	return (ps->prot == P_RO || ps->prot == P_RW) && !(ps->flags & F_UFFD);
}

static bool writable(const struct pstate *ps)
{
	return ps->prot == P_RW && !(ps->flags & F_UFFD);
}

/* --- operations --- */
static void write_page(struct worker *w, struct region *r, size_t i)
{
	uint64_t tag = new_tag(w);

	fill_words((uint64_t *)(r->base + i * PAGE), tag);
	r->pg[i].tag = tag;
	r->pg[i].flags &= ~F_MAYBE;
}

/*
 * Map @len bytes at @sub bytes past a 2 MiB boundary: where a region lies
 * within its 2 MiB blocks decides what can be a THP, so it comes from the
 * seed, not from where the kernel puts a mapping.
 */
static char *map_region(size_t len, size_t sub, int prot)
{
	size_t rl = len + 2 * PMD;
	char *raw, *p;

	raw = mmap(NULL, rl, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		   -1, 0);
	if (raw == MAP_FAILED)
		return raw;
	p = (char *)(((uintptr_t)raw + PMD - 1) & ~(PMD - 1)) + sub;
	if (p > raw)
		munmap(raw, p - raw);
	if (raw + rl > p + len)
		munmap(p + len, raw + rl - (p + len));
	return p;
}

static bool can_mmap(struct worker *w)
{
	return reg_count(w) < SOFTREG && mapped_pages(w) + 16 <= CAP_PAGES;
}

static void op_mmap(struct worker *w)
{
	bool thp = chance(w, 80);
	size_t np = thp ? PMD_PAGES * (1 + below(w, 4)) : 16 + below(w, 241);
	bool nohuge = !thp && chance(w, 50);
	size_t sub = thp ? 0 : below(w, PMD_PAGES) * PAGE;
	struct region *r;
	struct oplog *e;
	char *p;
	size_t i;

	if (mapped_pages(w) + np > CAP_PAGES)
		np = thp ? PMD_PAGES : 16;
	e = log_begin(w, OP_MMAP, NULL, 0, np);
	e->arg = thp;
	p = map_region(np * PAGE, sub, PROT_READ | PROT_WRITE);
	if (p == MAP_FAILED) {
		log_end(w, e, -1);
		return;
	}
	r = reg_new(w, p, np, thp);
	if (!r) {
		munmap(p, np * PAGE);
		errno = ENOMEM;
		log_end(w, e, -1);
		return;
	}
	e->reg = r->id;
	e->addr = (uintptr_t)p;
	if (thp)
		madvise(p, np * PAGE, MADV_HUGEPAGE);
	else if (nohuge)
		madvise(p, np * PAGE, MADV_NOHUGEPAGE);
	for (i = 0; i < np; i++)
		if (thp || chance(w, 80))
			write_page(w, r, i);
	log_end(w, e, 0);
	focus(w, r, 0, np);
}

static void op_read(struct worker *w)
{
	struct region *r = pick_region(w);
	size_t off, n, i, c, cn, k, checked = 0, idx[128];
	int x = below(w, 100), cnt = 0;
	struct oplog *e;

	if (x < 40 && last_valid(w, r)) {
		off = w->last_off;
		n = w->last_n;
	} else if (x < 70 && last_valid(w, r)) {
		/* a few pages of the 2 MiB block the last operation was in */
		chunk_of(r, w->last_off, &c, &cn);
		off = c;
		n = cn;
		cnt = 1 + below(w, 8);
	} else {
		pick_range(w, r, RS_ANY, &off, &n);
	}
	if (!cnt && n > 128)
		cnt = 128;
	if (cnt)
		for (k = 0; k < (size_t)cnt; k++)
			idx[k] = off + below(w, n);
	e = log_begin(w, OP_READ, r, off, n);
	uffd_release(w, r, off, n);
	if (cnt) {
		for (k = 0; k < (size_t)cnt; k++) {
			i = idx[k];
			if (!readable(&r->pg[i]))
				continue;
			verify_page(w, e, r, i,
				    (const volatile uint64_t *)(r->base + i * PAGE),
				    VIA_LOAD);
			checked++;
		}
	} else {
		for (i = off; i < off + n; i++) {
			if (!readable(&r->pg[i]))
				continue;
			verify_page(w, e, r, i,
				    (const volatile uint64_t *)(r->base + i * PAGE),
				    VIA_LOAD);
			checked++;
		}
	}
	e->arg = checked;
	log_end(w, e, checked);
	if (!cnt || x >= 70)
		focus(w, r, off, n);
}

static void op_write(struct worker *w)
{
	struct region *r = pick_region(w);
	size_t off, n, i, k, done = 0;
	struct oplog *e;

	pick_range(w, r, RS_ANY, &off, &n);
	e = log_begin(w, OP_WRITE, r, off, n);
	uffd_release(w, r, off, n);
	if (n <= 64) {
		for (i = off; i < off + n; i++)
			if (writable(&r->pg[i])) {
				write_page(w, r, i);
				done++;
			}
	} else {
		for (k = 0; k < 64; k++) {
			i = off + below(w, n);
			if (writable(&r->pg[i])) {
				write_page(w, r, i);
				done++;
			}
		}
	}
	e->arg = done;
	log_end(w, e, done);
	focus(w, r, off, n);
}

static void op_madvise(struct worker *w, int kind, int advice, int style)
{
	struct region *r = pick_region(w);
	struct oplog *e;
	size_t off, n, i;
	long ret;
	int k;

	/* whole 2 MiB blocks: a region that has one */
	if (style == RS_PMD && !has_chunk(r) && thp_capable(w)) {
		k = below(w, thp_capable(w));
		for (i = 0; i < MAXREG; i++)
			if (w->reg[i].id && has_chunk(&w->reg[i]) && !k--)
				break;
		r = &w->reg[i];
	}

	pick_range(w, r, style, &off, &n);
	e = log_begin(w, kind, r, off, n);
	if (kind == OP_POP_READ || kind == OP_POP_WRITE)
		uffd_release(w, r, off, n);
	ret = madvise(r->base + off * PAGE, n * PAGE, advice);
	log_end(w, e, ret);
	if (kind == OP_DONTNEED) {
		for (i = off; i < off + n; i++) {
			if (ret) {
				/* some VMAs before the failing one were zapped */
				r->pg[i].flags |= F_MAYBE;
			} else {
				r->pg[i].tag = 0;
				r->pg[i].flags &= ~F_MAYBE;
			}
		}
	} else if (kind == OP_FREE) {
		for (i = off; i < off + n; i++)
			if (r->pg[i].tag)
				r->pg[i].flags |= F_MAYBE;
	}
	focus(w, r, off, n);
}

static void op_wait(struct worker *w)
{
	struct region *r = reg_by_id(w, w->last_reg);
	unsigned char vec[PMD_PAGES];
	size_t off, n, i, res = 0;
	uint64_t t0 = now_ns();
	struct oplog *e;

	if (!r || !last_valid(w, r)) {
		r = pick_region(w);
		pick_range(w, r, RS_SWAP, &off, &n);
	} else {
		off = w->last_off;
		n = w->last_n;
	}
	if (n > PMD_PAGES)
		n = PMD_PAGES;
	e = log_begin(w, OP_WAIT, r, off, n);
	/* until mincore shows the range resident (swap cache or mapped) */
	while (now_ns() - t0 < 20000000ULL) {
		if (mincore(r->base + off * PAGE, n * PAGE, vec))
			break;
		for (res = 0, i = 0; i < n; i++)
			res += vec[i] & 1;
		if (res == n)
			break;
		usleep(1000);
	}
	e->arg = res;
	log_end(w, e, res);
}

static void op_mprotect(struct worker *w)
{
	static const int prots[] = { PROT_NONE, PROT_READ, PROT_READ | PROT_WRITE };
	struct region *r = pick_region(w);
	int x = below(w, 100), pi = x < 25 ? P_NONE : x < 65 ? P_RO : P_RW;
	struct oplog *e;
	size_t off, n, i;
	long ret;

	pick_range(w, r, chance(w, 60) ? RS_SPLIT : RS_ANY, &off, &n);
	e = log_begin(w, OP_MPROTECT, r, off, n);
	e->arg = pi;
	ret = mprotect(r->base + off * PAGE, n * PAGE, prots[pi]);
	log_end(w, e, ret);
	for (i = off; i < off + n; i++)
		r->pg[i].prot = ret ? P_UNK : pi;
	focus(w, r, off, n);
}

static void op_munmap(struct worker *w, bool whole)
{
	struct region *r = whole && chance(w, 70) ? smallest_region(w) : pick_region(w);
	struct oplog *e;
	size_t off, n;
	long ret;

	if (whole) {
		off = 0;
		n = r->npages;
	} else {
		pick_range(w, r, chance(w, 50) ? RS_SPLIT : RS_ANY, &off, &n);
		/* a hole in the middle needs a second slot: else cut the tail */
		if (off && off + n < r->npages && !free_slots(w))
			n = r->npages - off;
	}
	e = log_begin(w, whole ? OP_MUNMAP : OP_MUNMAP_PART, r, off, n);
	ret = munmap(r->base + off * PAGE, n * PAGE);
	log_end(w, e, ret);
	if (ret)
		return;
	reg_cut(w, r, off, n);
	if (r->id)
		focus(w, r, off ? off - 1 : 0, 1);
}

/* Is [p, p + len) still mapped? (mincore fails with ENOMEM on a hole) */
static bool still_mapped(char *p, size_t len)
{
	static __thread unsigned char vec[CAP_PAGES];

	return len / PAGE <= CAP_PAGES && !mincore(p, len, vec);
}

static void drop_region(struct worker *w, struct region *r, const char *why)
{
	out("p%d.t%d: region r%d dropped from the model: %s", w->p, w->t, r->id, why);
	reg_free(r);
}

static void op_mremap_move(struct worker *w)
{
	struct region *r = pick_region(w), *nr;
	size_t off, n, len, sub;
	char *src, *dst;
	struct oplog *e;
	int x;
	void *ret;

	if (chance(w, 40)) {
		off = 0;
		n = r->npages;
	} else {
		pick_range(w, r, chance(w, 60) ? RS_SPLIT : RS_ANY, &off, &n);
	}
	x = below(w, 100);
	if (free_slots(w) < (off && off + n < r->npages ? 2 : 1) ||
	    !uffd_release(w, r, 0, r->npages))
		return;
	src = r->base + off * PAGE;
	len = n * PAGE;
	/* destination: same offset in a 2 MiB block, aligned, or any page */
	sub = x < 40 ? (uintptr_t)src & (PMD - 1) : x < 80 ? 0 :
	      below(w, PMD_PAGES) * PAGE;
	e = log_begin(w, OP_MREMAP_MOVE, r, off, n);
	/* a PROT_NONE placeholder, replaced by the move */
	dst = map_region(len, sub, PROT_NONE);
	if (dst == MAP_FAILED) {
		log_end(w, e, -1);
		return;
	}
	e->arg = (uintptr_t)dst;
	ret = mremap(src, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, dst);
	log_end(w, e, ret == MAP_FAILED ? -1 : 0);
	if (ret == MAP_FAILED) {
		/* the placeholder is gone (mremap unmaps the target first) */
		if (!still_mapped(src, len))
			drop_region(w, r, "mremap failed after moving a part");
		return;
	}
	nr = reg_new(w, dst, n, r->thp);
	if (!nr) {
		drop_region(w, r, "no slot");
		return;
	}
	memcpy(nr->pg, r->pg + off, n * sizeof(*r->pg));
	e->arg2 = nr->id;
	reg_cut(w, r, off, n);
	focus(w, nr, 0, n);
}

static void op_mremap_grow(struct worker *w)
{
	struct region *r = pick_region(w);
	size_t np = r->npages, k, i;
	struct pstate *pg;
	struct oplog *e;
	char *dst;
	void *ret;

	if (chance(w, 30))
		k = PMD_PAGES - np % PMD_PAGES;
	else
		k = 1 + below(w, 64);
	if (mapped_pages(w) + k > CAP_PAGES || !uffd_release(w, r, 0, np))
		return;
	pg = realloc(r->pg, (np + k) * sizeof(*pg));
	if (!pg)
		return;
	r->pg = pg;
	e = log_begin(w, OP_MREMAP_GROW, r, 0, np);
	e->arg = np + k;
	/* in place, else moved keeping its offset in its 2 MiB block */
	ret = mremap(r->base, np * PAGE, (np + k) * PAGE, 0);
	if (ret == MAP_FAILED && errno == ENOMEM) {
		dst = map_region((np + k) * PAGE, (uintptr_t)r->base & (PMD - 1),
				 PROT_NONE);
		if (dst != MAP_FAILED)
			ret = mremap(r->base, np * PAGE, (np + k) * PAGE,
				     MREMAP_MAYMOVE | MREMAP_FIXED, dst);
	}
	e->arg2 = (uintptr_t)ret;
	log_end(w, e, ret == MAP_FAILED ? -1 : 0);
	if (ret == MAP_FAILED)
		return;
	/* one VMA (else it fails): one protection; the new part reads zero */
	for (i = np; i < np + k; i++) {
		pg[i].tag = 0;
		pg[i].flags = 0;
		pg[i].prot = pg[np - 1].prot;
	}
	r->base = ret;
	r->npages = np + k;
	focus(w, r, np ? np - 1 : 0, k + 1);
}

static void op_mremap_shrink(struct worker *w)
{
	struct region *r = pick_region(w);
	size_t np = r->npages, k;
	struct oplog *e;
	void *ret;

	if (np < 2)
		return;
	if (chance(w, 30) && np % PMD_PAGES && np > PMD_PAGES)
		k = np % PMD_PAGES;
	else
		k = 1 + below(w, np - 1 > 64 ? 64 : np - 1);
	e = log_begin(w, OP_MREMAP_SHRINK, r, np - k, k);
	e->arg = np - k;
	ret = mremap(r->base, np * PAGE, (np - k) * PAGE, 0);
	e->arg2 = (uintptr_t)ret;
	log_end(w, e, ret == MAP_FAILED ? -1 : 0);
	if (ret == MAP_FAILED)
		return;
	r->npages = np - k;
	focus(w, r, np - k - 1, 1);
}

static void op_mlock(struct worker *w, bool lock)
{
	struct region *r = pick_region(w);
	struct oplog *e;
	size_t off, n;
	long ret;

	pick_range(w, r, RS_ANY, &off, &n);
	if (lock && n > 64)
		n = 64;
	if (!lock && chance(w, 60)) {
		off = 0;
		n = r->npages;
	}
	e = log_begin(w, lock ? OP_MLOCK : OP_MUNLOCK, r, off, n);
	if (lock)
		uffd_release(w, r, off, n);
	ret = lock ? mlock(r->base + off * PAGE, n * PAGE) :
		     munlock(r->base + off * PAGE, n * PAGE);
	log_end(w, e, ret);
}

/* The first run of pages from @off on that pass @ok, at most @max. */
static size_t run_of(struct region *r, size_t off, size_t n, size_t max,
		     bool (*ok)(const struct pstate *))
{
	size_t k = 0;

	while (k < n && k < max && ok(&r->pg[off + k]))
		k++;
	return k;
}

static bool rw_page(const struct pstate *ps)
{
	return ps->prot == P_RW;
}

static bool mem_readable(const struct pstate *ps)
{
	if (ps->flags & F_UFFD)
		return false;
	return ps->prot == P_RO || ps->prot == P_RW ||
	       (ps->prot == P_NONE && pr.mem_force_read);
}

static bool mem_writable(const struct pstate *ps)
{
	if (ps->flags & F_UFFD)
		return false;
	return ps->prot == P_RW ||
	       ((ps->prot == P_RO || ps->prot == P_NONE) && pr.mem_force_write);
}

static void op_remote_read(struct worker *w, int kind)
{
	struct region *r = pick_region(w);
	size_t off, n, k, i;
	struct oplog *e;
	long ret;

	pick_range(w, r, RS_ANY, &off, &n);
	e = log_begin(w, kind, r, off, n);
	uffd_release(w, r, off, n);
	k = run_of(r, off, n, BUFPAGES, kind == OP_PVREAD ? readable : mem_readable);
	e->arg = k;
	if (!k) {
		log_end(w, e, 0);
		return;
	}
	memset(w->buf, 0x5a, k * PAGE);
	if (kind == OP_PVREAD)
		ret = pvr(w->buf, (uintptr_t)(r->base + off * PAGE), k * PAGE);
	else
		ret = pread(w->memfd, w->buf, k * PAGE, (uintptr_t)(r->base + off * PAGE));
	log_end(w, e, ret);
	if (ret != (long)(k * PAGE))
		fail_op(w, e, kind == OP_PVREAD ? "process_vm_readv" : "pread /proc/self/mem",
			ret, k * PAGE);
	for (i = 0; i < k; i++)
		verify_page(w, e, r, off + i, w->buf + i * WORDS,
			    kind == OP_PVREAD ? VIA_PVR : VIA_PROCMEM);
	focus(w, r, off, n);
}

static void op_mem_write(struct worker *w)
{
	struct region *r = pick_region(w);
	size_t off, n, k, i;
	uint64_t tags[16];
	struct oplog *e;
	long ret;

	pick_range(w, r, RS_ANY, &off, &n);
	e = log_begin(w, OP_MEM_WRITE, r, off, n);
	uffd_release(w, r, off, n);
	k = run_of(r, off, n, 16, mem_writable);
	e->arg = k;
	if (!k) {
		log_end(w, e, 0);
		return;
	}
	for (i = 0; i < k; i++) {
		tags[i] = new_tag(w);
		fill_words(w->buf + i * WORDS, tags[i]);
	}
	ret = pwrite(w->memfd, w->buf, k * PAGE, (uintptr_t)(r->base + off * PAGE));
	log_end(w, e, ret);
	if (ret != (long)(k * PAGE))
		fail_op(w, e, "pwrite /proc/self/mem", ret, k * PAGE);
	for (i = 0; i < k; i++) {
		r->pg[off + i].tag = tags[i];
		r->pg[off + i].flags &= ~F_MAYBE;
	}
	focus(w, r, off, n);
}

static void op_uffd_reg(struct worker *w, bool reg)
{
	struct region *r = pick_region(w);
	struct uffdio_register ur;
	struct uffdio_range rg;
	struct oplog *e;
	size_t off, n, i;
	long ret;

	pick_range(w, r, reg && chance(w, 40) ? RS_SPLIT : RS_ANY, &off, &n);
	e = log_begin(w, reg ? OP_UFFD_REG : OP_UFFD_UNREG, r, off, n);
	if (reg) {
		memset(&ur, 0, sizeof(ur));
		ur.range.start = (uintptr_t)(r->base + off * PAGE);
		ur.range.len = n * PAGE;
		ur.mode = UFFDIO_REGISTER_MODE_MISSING;
		ret = ioctl(pr.uffd, UFFDIO_REGISTER, &ur);
	} else {
		rg.start = (uintptr_t)(r->base + off * PAGE);
		rg.len = n * PAGE;
		ret = ioctl(pr.uffd, UFFDIO_UNREGISTER, &rg);
	}
	log_end(w, e, ret);
	/* a failed registration may have done part: count it as registered */
	for (i = off; i < off + n; i++) {
		if (reg)
			r->pg[i].flags |= F_UFFD;
		else if (!ret)
			r->pg[i].flags &= ~F_UFFD;
	}
	focus(w, r, off, n);
}

static long uffd_register(struct region *r, size_t off, size_t n)
{
	struct uffdio_register ur;
	size_t i;

	memset(&ur, 0, sizeof(ur));
	ur.range.start = (uintptr_t)(r->base + off * PAGE);
	ur.range.len = n * PAGE;
	ur.mode = UFFDIO_REGISTER_MODE_MISSING;
	for (i = off; i < off + n; i++)
		r->pg[i].flags |= F_UFFD;
	return ioctl(pr.uffd, UFFDIO_REGISTER, &ur);
}

/*
 * UFFDIO_MOVE: empty the destination (MADV_DONTNEED), register both ranges
 * and move. The pages moved (all, or the count the ioctl reports) go to
 * the destination with their state; the source reads zero.
 */
static void op_uffd_move(struct worker *w)
{
	struct region *rs = pick_region(w), *rd;
	size_t so, doff, n, i, moved, tries;
	struct fz_uffdio_move mv;
	struct oplog *e;
	long ret;

	if (rs->thp && chance(w, 35) && full_chunk(w, rs, &so)) {
		n = PMD_PAGES;
	} else {
		rand_span(w, rs, &so, &n);
		if (n > 64)
			n = 64;
	}
	/* both ranges in one VMA each, writable: runs of RW pages */
	n = run_of(rs, so, n, n, rw_page);
	rd = chance(w, 50) ? rs : pick_region(w);
	for (tries = 0; n && tries < 8; tries++) {
		if (n == PMD_PAGES && rd->thp && chance(w, 70) && full_chunk(w, rd, &doff))
			;
		else if (rd->npages >= n)
			doff = below(w, rd->npages - n + 1);
		else
			continue;
		if (run_of(rd, doff, n, n, rw_page) != n)
			continue;
		if (rd != rs || doff + n <= so || so + n <= doff)
			break;
	}
	if (!n || tries == 8)
		return;
	e = log_begin(w, OP_UFFD_MOVE, rs, so, n);
	e->arg = ((uint64_t)rd->id << 32) | doff;
	ret = madvise(rd->base + doff * PAGE, n * PAGE, MADV_DONTNEED);
	if (ret) {
		for (i = doff; i < doff + n; i++)
			rd->pg[i].flags |= F_MAYBE;
		log_end(w, e, ret);
		return;
	}
	for (i = doff; i < doff + n; i++) {
		rd->pg[i].tag = 0;
		rd->pg[i].flags &= ~F_MAYBE;
	}
	uffd_register(rd, doff, n);
	uffd_register(rs, so, n);
	memset(&mv, 0, sizeof(mv));
	mv.dst = (uintptr_t)(rd->base + doff * PAGE);
	mv.src = (uintptr_t)(rs->base + so * PAGE);
	mv.len = n * PAGE;
	mv.mode = FZ_UFFDIO_MOVE_ALLOW_SRC_HOLES;
	ret = ioctl(pr.uffd, FZ_UFFDIO_MOVE, &mv);
	moved = !ret ? n * PAGE : (mv.move > 0 ? (size_t)mv.move : 0);
	e->arg2 = ret ? mv.move : (int64_t)moved;
	log_end(w, e, ret);
	for (i = 0; i < moved / PAGE; i++) {
		rd->pg[doff + i].tag = rs->pg[so + i].tag;
		rd->pg[doff + i].flags = (rd->pg[doff + i].flags & ~F_MAYBE) |
					 (rs->pg[so + i].flags & F_MAYBE);
		rs->pg[so + i].tag = 0;
		rs->pg[so + i].flags &= ~F_MAYBE;
	}
	focus(w, rd, doff, n);
}

/* --- fork --- */
static void run_ops(struct worker *w, const int *weight, long nops);

static void __noreturn fail_child(struct worker *w, int status)
{
	report_lock(w);
	out("FUZZ FAILURE seed=%llu proc=%d thread=%d: fork child (pid %d, forked at op #%llu) %s %d",
	    (unsigned long long)opt.seed, w->p, w->t, w->child,
	    (unsigned long long)w->child_seq,
	    WIFSIGNALED(status) ? "killed by signal" : "exited with",
	    WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	snprintf(sh->p[w->p].why, sizeof(sh->p[w->p].why),
		 "t%d: fork child of op #%llu failed (status 0x%x)", w->t,
		 (unsigned long long)w->child_seq, status);
	fail_exit(w, 1);
}

static void reap_child(struct worker *w, bool block)
{
	uint64_t t0 = now_ns();
	struct oplog *e;
	int status;
	pid_t pid;

	if (!w->child)
		return;
	for (;;) {
		pid = waitpid(w->child, &status, WNOHANG);
		if (pid == w->child)
			break;
		if (pid < 0) {
			status = 0;
			break;
		}
		if (!block)
			return;
		if (now_ns() - t0 > CHILD_WAIT_S * 1000000000ULL) {
			report_lock(w);
			out("FUZZ FAILURE seed=%llu proc=%d thread=%d: fork child %d hangs for %d s",
			    (unsigned long long)opt.seed, w->p, w->t, w->child,
			    CHILD_WAIT_S);
			kill(w->child, SIGKILL);
			snprintf(sh->p[w->p].why, sizeof(sh->p[w->p].why),
				 "t%d: fork child of op #%llu hangs", w->t,
				 (unsigned long long)w->child_seq);
			fail_exit(w, 1);
		}
		usleep(2000);
	}
	e = log_begin(w, OP_REAP, NULL, 0, 0);
	e->arg = w->child;
	e->arg2 = status;
	log_end(w, e, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fail_child(w, status);
	w->child = 0;
}

static void op_fork(struct worker *w)
{
	uint64_t cseed = rnd(&w->rng);
	long nops = 8 + below(w, 41);
	uint64_t reap = 8 + below(w, 24);
	struct oplog *e;
	pid_t pid;

	reap_child(w, true);
	e = log_begin(w, OP_FORK, NULL, 0, 0);
	e->arg = nops;
	pid = fork();
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* the child's model is its copy of the parent's */
		memcpy(w->child_ring, w->ring, sizeof(w->child_ring));
		w->ring = w->child_ring;
		w->in_child = true;
		w->child_seq = w->seq;
		w->child = 0;
		rng_seed(&w->rng, cseed, w->p, w->t | 0x100);
		w->seq++;
		e = log_begin(w, OP_CHILD, NULL, 0, 0);
		e->arg = getpid();
		log_end(w, e, 0);
		run_ops(w, child_weight, nops);
		_exit(0);
	}
	e->arg2 = pid > 0 ? pid : 0;
	log_end(w, e, pid);
	if (pid > 0) {
		w->child = pid;
		w->child_seq = w->seq;
		w->child_reap_at = w->seq + reap;
	}
}

/* --- the loop --- */
static bool applicable(struct worker *w, int op)
{
	switch (op) {
	case OP_MMAP:
		return can_mmap(w);
	case OP_MEM_READ:
	case OP_MEM_WRITE:
		return w->memfd >= 0 && !w->in_child;
	case OP_FORK:
		return !w->in_child;
	case OP_FREE:
		/*
		 * Not while a fork child shares the pages: stock 6.12 marks a
		 * clean shared folio (swapped in by a read fault, skipping the
		 * swap cache on pmem and zram) lazyfree, and reclaim then
		 * discards it under the child too. Until child_reap_at
		 * (the child is reaped by then at the latest) as if it
		 * lived: when it exits must not change the sequence.
		 */
		return w->seq >= w->child_reap_at;
	case OP_UFFD_REG:
	case OP_UFFD_UNREG:
		return pr.uffd_ok && !w->in_child;
	case OP_UFFD_MOVE:
		return pr.move_ok && !w->in_child;
	default:
		return true;
	}
}

/*
 * Draw an operation by weight. Fewer than two regions that can hold a THP:
 * mmap a new one, or munmap the smallest to make room, ten times as often.
 */
static int draw(struct worker *w, const int *weight)
{
	int op, total = 0, x, wt[OP_NR];
	bool renew;

	if (!reg_count(w))
		return can_mmap(w) ? OP_MMAP : -1;
	renew = !w->in_child && thp_capable(w) < 2;
	for (op = 0; op < OP_NR; op++) {
		wt[op] = applicable(w, op) ? weight[op] : 0;
		if (renew && (op == OP_MMAP || (op == OP_MUNMAP && !can_mmap(w))))
			wt[op] *= 10;
		total += wt[op];
	}
	x = below(w, total);
	for (op = 0; op < OP_NR; op++) {
		x -= wt[op];
		if (x < 0)
			return op;
	}
	return -1;
}

static void do_op(struct worker *w, int op)
{
	switch (op) {
	case OP_READ:
		op_read(w);
		break;
	case OP_WRITE:
		op_write(w);
		break;
	case OP_PAGEOUT:
		op_madvise(w, op, MADV_PAGEOUT, RS_SWAP);
		break;
	case OP_WILLNEED:
		op_madvise(w, op, MADV_WILLNEED, RS_SWAP);
		break;
	case OP_COLD:
		op_madvise(w, op, MADV_COLD, RS_SWAP);
		break;
	case OP_WAIT:
		op_wait(w);
		break;
	case OP_MPROTECT:
		op_mprotect(w);
		break;
	case OP_MMAP:
		op_mmap(w);
		break;
	case OP_MUNMAP:
		op_munmap(w, true);
		break;
	case OP_MUNMAP_PART:
		op_munmap(w, false);
		break;
	case OP_MREMAP_MOVE:
		op_mremap_move(w);
		break;
	case OP_MREMAP_GROW:
		op_mremap_grow(w);
		break;
	case OP_MREMAP_SHRINK:
		op_mremap_shrink(w);
		break;
	case OP_DONTNEED:
		op_madvise(w, op, MADV_DONTNEED, RS_ANY);
		break;
	case OP_FREE:
		op_madvise(w, op, MADV_FREE, RS_ANY);
		break;
	case OP_HUGEPAGE:
		op_madvise(w, op, MADV_HUGEPAGE, RS_ANY);
		break;
	case OP_NOHUGEPAGE:
		op_madvise(w, op, MADV_NOHUGEPAGE, chance(w, 50) ? RS_SPLIT : RS_ANY);
		break;
	case OP_COLLAPSE:
		op_madvise(w, op, MADV_COLLAPSE, RS_PMD);
		break;
	case OP_POP_READ:
		op_madvise(w, op, MADV_POPULATE_READ, RS_ANY);
		break;
	case OP_POP_WRITE:
		op_madvise(w, op, MADV_POPULATE_WRITE, RS_ANY);
		break;
	case OP_MLOCK:
		op_mlock(w, true);
		break;
	case OP_MUNLOCK:
		op_mlock(w, false);
		break;
	case OP_MEM_READ:
		op_remote_read(w, OP_MEM_READ);
		break;
	case OP_MEM_WRITE:
		op_mem_write(w);
		break;
	case OP_PVREAD:
		op_remote_read(w, OP_PVREAD);
		break;
	case OP_FORK:
		op_fork(w);
		break;
	case OP_UFFD_REG:
		op_uffd_reg(w, true);
		break;
	case OP_UFFD_UNREG:
		op_uffd_reg(w, false);
		break;
	case OP_UFFD_MOVE:
		op_uffd_move(w);
		break;
	}
}

static bool time_up(void)
{
	if (sh->stop)
		return true;
	return opt.duration > 0 &&
	       now_ns() - sh->start_ns >= (uint64_t)(opt.duration * 1e9);
}

/*
 * --inject N: after operation N, p0.t0 changes one byte of a page it can
 * write, behind the model's back, and reads the page: the check must fail
 * (a self-test of the checker and of the failure report).
 */
static void inject(struct worker *w)
{
	struct oplog *e;
	struct region *r;
	size_t i;
	int k;

	for (k = 0; k < MAXREG; k++) {
		r = &w->reg[k];
		if (!r->id)
			continue;
		for (i = 0; i < r->npages; i++) {
			if (!writable(&r->pg[i]))
				continue;
			r->base[i * PAGE + 0x123] ^= 0x40;
			out("p%d.t%d: --inject: flipped a bit at %p (region r%d page %zu) behind the model's back",
			    w->p, w->t, r->base + i * PAGE + 0x123, r->id, i);
			focus(w, r, i, 1);
			w->seq++;
			e = log_begin(w, OP_READ, r, i, 1);
			verify_page(w, e, r, i,
				    (const volatile uint64_t *)(r->base + i * PAGE),
				    VIA_LOAD);
			out("p%d.t%d: --inject: the check did not see it", w->p, w->t);
			snprintf(sh->p[w->p].why, sizeof(sh->p[w->p].why),
				 "--inject: a corrupted page passed the check");
			fail_exit(w, 1);
		}
	}
}

static void run_ops(struct worker *w, const int *weight, long nops)
{
	long n;
	int op;

	for (n = 0; !nops || n < nops; n++) {
		if (!w->in_child) {
			if (time_up())
				break;
			reap_child(w, w->child && w->seq >= w->child_reap_at);
		}
		op = draw(w, weight);
		if (op < 0)
			break;
		w->seq++;
		if (!w->in_child)
			w->ts->seq = w->seq;
		do_op(w, op);
		if (opt.inject && w->seq == (uint64_t)opt.inject && !w->p && !w->t &&
		    !w->in_child)
			inject(w);
	}
}

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	struct worker *w = cur_w;
	struct region *r;
	int i;

	if (!w)
		_exit(128 + sig);
	if (!w->in_child)
		pthread_mutex_trylock(&pr.out_lock);
	out("FUZZ SIGNAL seed=%llu proc=%d thread=%d%s op=#%llu: %s at %p",
	    (unsigned long long)opt.seed, w->p, w->t, w->in_child ? " (fork child)" : "",
	    (unsigned long long)w->seq, strsignal(sig), si->si_addr);
	for (i = 0; i < MAXREG; i++) {
		size_t pg;

		r = &w->reg[i];
		if (!r->id || (char *)si->si_addr < r->base ||
		    (char *)si->si_addr >= r->base + r->npages * PAGE)
			continue;
		pg = ((char *)si->si_addr - r->base) / PAGE;
		out("in region r%d page %zu: model prot %s%s%s", r->id, pg,
		    prot_name[r->pg[pg].prot],
		    r->pg[pg].flags & F_UFFD ? " uffd" : "",
		    r->pg[pg].flags & F_MAYBE ? " maybe-zero" : "");
	}
	if (!w->in_child)
		snprintf(sh->p[w->p].why, sizeof(sh->p[w->p].why),
			 "t%d: %s at %p in op #%llu", w->t, strsignal(sig),
			 si->si_addr, (unsigned long long)w->seq);
	fail_exit(w, 128 + sig);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	int i;

	cur_w = w;
	w->memfd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	run_ops(w, parent_weight, opt.ops);
	reap_child(w, true);
	for (i = 0; i < MAXREG; i++) {
		if (!w->reg[i].id)
			continue;
		munmap(w->reg[i].base, w->reg[i].npages * PAGE);
		reg_free(&w->reg[i]);
	}
	if (w->memfd >= 0)
		close(w->memfd);
	return NULL;
}

/*
 * Can this process open /proc/self/mem, and read and write (FOLL_FORCE) a
 * PROT_NONE page through it? Returns the errno of the open, or 0.
 */
static int probe_procmem(void)
{
	char *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd = open("/proc/self/mem", O_RDWR), err = fd < 0 ? errno : 0;
	char b[8] = "fuzzfuz";

	if (p == MAP_FAILED || fd < 0)
		goto out;
	p[0] = 1;
	mprotect(p, PAGE, PROT_NONE);
	pr.mem_force_read = pread(fd, b, 8, (uintptr_t)p) == 8 && b[0] == 1;
	pr.mem_force_write = pwrite(fd, "fuzzfuz", 8, (uintptr_t)p) == 8;
out:
	if (fd >= 0)
		close(fd);
	if (p != MAP_FAILED)
		munmap(p, PAGE);
	return err;
}

/* userfaultfd for this process: USER_MODE_ONLY works without privilege. */
static const char *uffd_setup(void)
{
	struct uffdio_api api;
	static char why[96];
	int fd;

	fd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
	if (fd < 0 && errno == EINVAL)
		fd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		snprintf(why, sizeof(why), "off (userfaultfd: %s)", strerror(errno));
		return why;
	}
	memset(&api, 0, sizeof(api));
	api.api = UFFD_API;
	api.features = FZ_UFFD_FEATURE_MOVE;
	if (ioctl(fd, UFFDIO_API, &api)) {
		/* no UFFDIO_MOVE (before 6.8): a new fd without it */
		close(fd);
		fd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
		if (fd < 0)
			fd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
		memset(&api, 0, sizeof(api));
		api.api = UFFD_API;
		if (fd < 0 || ioctl(fd, UFFDIO_API, &api)) {
			snprintf(why, sizeof(why), "off (UFFDIO_API: %s)", strerror(errno));
			if (fd >= 0)
				close(fd);
			return why;
		}
	}
	pr.uffd = fd;
	pr.uffd_ok = true;
	pr.move_ok = api.features & FZ_UFFD_FEATURE_MOVE;
	return pr.move_ok ? "on (register, UFFDIO_MOVE)" : "on (register; no UFFDIO_MOVE)";
}

static int proc_main(int p)
{
	struct worker *w[MAXTHREADS] = { 0 };
	pthread_t th[MAXTHREADS];
	struct sigaction sa;
	int t;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	pr.idx = p;
	probe_procmem();
	uffd_setup();
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sh->p[p].started = 1;
	for (t = 0; t < opt.threads; t++) {
		if (opt.only_t >= 0 && t != opt.only_t)
			continue;
		w[t] = calloc(1, sizeof(*w[t]));
		if (!w[t])
			return 1;
		w[t]->p = p;
		w[t]->t = t;
		w[t]->memfd = -1;
		w[t]->ts = &sh->p[p].t[t];
		w[t]->ring = w[t]->ts->ring;
		w[t]->buf = aligned_alloc(PAGE, BUFPAGES * PAGE);
		w[t]->buf2 = aligned_alloc(PAGE, PAGE);
		if (!w[t]->buf || !w[t]->buf2)
			return 1;
		rng_seed(&w[t]->rng, opt.seed, p, t);
		pr.w[t] = w[t];
	}
	for (t = 0; t < opt.threads; t++)
		if (w[t] && pthread_create(&th[t], NULL, worker_main, w[t]))
			return 1;
	for (t = 0; t < opt.threads; t++)
		if (w[t])
			pthread_join(th[t], NULL);
	sh->p[p].done = 1;
	return 0;
}

/* --- the root helper --- */
struct knob {
	char path[300];
	const char *vals[3];
	int nvals;
	char orig[32];
	long flips, fails;
};

#define MAXKNOBS 16
static struct knob knobs[MAXKNOBS];
static int nknobs;
static char memcg[128];

static int write_str(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), ret;

	if (fd < 0)
		return -1;
	ret = write(fd, val, strlen(val)) == (ssize_t)strlen(val) ? 0 : -1;
	close(fd);
	return ret;
}

static int read_str(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* "[read] never always" style files: the bracketed word */
static void current_val(char *s)
{
	char *a = strchr(s, '['), *b = a ? strchr(a, ']') : NULL;

	if (a && b) {
		*b = 0;
		memmove(s, a + 1, strlen(a + 1) + 1);
	}
}

static void add_knob(const char *path, const char *v0, const char *v1,
		     const char *v2)
{
	struct knob *k;

	if (nknobs == MAXKNOBS || access(path, W_OK))
		return;
	k = &knobs[nknobs];
	snprintf(k->path, sizeof(k->path), "%s", path);
	if (read_str(path, k->orig, sizeof(k->orig)))
		return;
	current_val(k->orig);
	k->vals[0] = v0;
	k->vals[1] = v1;
	k->vals[2] = v2;
	k->nvals = v2 ? 3 : 2;
	nknobs++;
}

static void find_knobs(void)
{
	glob_t g;
	size_t i;

	if (opt.flip & FLIP_HUGE)
		add_knob("/sys/kernel/mm/pmswap/huge_swap", "0", "1", NULL);
	if ((opt.flip & FLIP_INPLACE) &&
	    !glob("/sys/kernel/mm/pmswap/pmem/*/inplace", 0, NULL, &g)) {
		for (i = 0; i < g.gl_pathc; i++)
			add_knob(g.gl_pathv[i], "never", "read", "always");
		globfree(&g);
	}
	if ((opt.flip & FLIP_IO) &&
	    !glob("/sys/kernel/mm/pmswap/pmem/*/io", 0, NULL, &g)) {
		for (i = 0; i < g.gl_pathc; i++)
			add_knob(g.gl_pathv[i], "dax", "bio", NULL);
		globfree(&g);
	}
}

static bool memcg_file(const char *f, char *path, size_t len)
{
	if (!memcg[0])
		return false;
	snprintf(path, len, "/sys/fs/cgroup/%s/%s", memcg, f);
	return !access(path, W_OK);
}

static void memcg_create(void)
{
	char path[256];

	write_str("/sys/fs/cgroup/cgroup.subtree_control", "+memory");
	snprintf(memcg, sizeof(memcg), "pmswap-fuzz-%d", getpid());
	snprintf(path, sizeof(path), "/sys/fs/cgroup/%s", memcg);
	if (mkdir(path, 0755) && errno != EEXIST) {
		memcg[0] = 0;
		return;
	}
	if (!memcg_file("memory.max", path, sizeof(path))) {
		snprintf(path, sizeof(path), "/sys/fs/cgroup/%s", memcg);
		rmdir(path);
		memcg[0] = 0;
	}
}

static long memcg_current(void)
{
	char path[256], buf[64];

	snprintf(path, sizeof(path), "/sys/fs/cgroup/%s/memory.current", memcg);
	if (read_str(path, buf, sizeof(buf)))
		return -1;
	return atol(buf);
}

static void helper_main(pid_t mainpid)
{
	char reclaim[256], high[256], val[64], *s;
	bool have_reclaim, have_high;
	long n_reclaim = 0, n_high = 0;
	int actions, a, i, ok = 1;
	struct worker hw = { 0 };
	size_t len;

	/* no parent-death signal: when main dies, we notice and restore */
	signal(SIGTERM, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	rng_seed(&hw.rng, opt.seed, 0xffff, 0);
	have_reclaim = (opt.flip & FLIP_RECLAIM) &&
		       memcg_file("memory.reclaim", reclaim, sizeof(reclaim));
	have_high = (opt.flip & FLIP_HIGH) && memcg_file("memory.high", high, sizeof(high));
	actions = nknobs + have_reclaim + have_high;
	sh->h.actions = actions;
	while (actions && !sh->stop && getppid() == mainpid) {
		usleep(50000 + below(&hw, 400000));
		a = below(&hw, actions);
		if (a < nknobs) {
			struct knob *k = &knobs[a];
			const char *v = k->vals[below(&hw, k->nvals)];

			if (write_str(k->path, v))
				k->fails++;
			else
				k->flips++;
		} else if (have_reclaim && a == nknobs) {
			snprintf(val, sizeof(val), "%luM", 1 + below(&hw, 32));
			write_str(reclaim, val);	/* EAGAIN when short: fine */
			n_reclaim++;
		} else {
			long cur = memcg_current(), lim;

			lim = cur - (long)(4 + below(&hw, 28)) * (1L << 20);
			if (lim < (16L << 20))
				lim = 16L << 20;
			snprintf(val, sizeof(val), "%ld", lim);
			write_str(high, val);
			usleep(20000 + below(&hw, 280000));
			write_str(high, "max");
			n_high++;
		}
	}
	while (!sh->stop && getppid() == mainpid)
		usleep(50000);
	/* put everything back */
	s = sh->h.flips;
	len = sizeof(sh->h.flips);
	for (i = 0; i < nknobs; i++) {
		char *name = strstr(knobs[i].path, "pmswap/");
		int m;

		if (write_str(knobs[i].path, knobs[i].orig)) {
			ok = 0;
			out("helper: could not restore %s to %s", knobs[i].path, knobs[i].orig);
		}
		m = snprintf(s, len, "%s%s=%ld", i ? " " : "", name ? name + 7 : knobs[i].path,
			     knobs[i].flips);
		if (knobs[i].fails)
			m += snprintf(s + m, len - m, "(%ld refused)", knobs[i].fails);
		if (m > 0 && (size_t)m < len) {
			s += m;
			len -= m;
		}
	}
	if (have_high)
		write_str(high, "max");
	snprintf(s, len, "%smemory.reclaim=%ld memory.high=%ld", nknobs ? " " : "",
		 n_reclaim, n_high);
	/* move the main process out (the workers have exited) and clean up */
	if (memcg[0]) {
		snprintf(val, sizeof(val), "%d", mainpid);
		write_str("/sys/fs/cgroup/cgroup.procs", val);
		snprintf(reclaim, sizeof(reclaim), "/sys/fs/cgroup/%s", memcg);
		/* killed workers may take a moment to leave */
		for (i = 0; rmdir(reclaim) && errno == EBUSY && i < 50; i++)
			usleep(100000);
		if (access(reclaim, F_OK) == 0)
			out("helper: rmdir %s: %s", reclaim, strerror(errno));
	}
	sh->h.ok = ok;
	sh->h.done = 1;
}

/* --- the kernel's view: swap and THP counters, before and after --- */
static const char * const vm_names[] = {
	"pswpout", "pswpin", "thp_swpout", "thp_swpout_fallback", "thp_split_pmd",
	"thp_swpout_pmd", "thp_swpin_pmd", "thp_swpin_pmd_fallback",
	"thp_split_swap_pmd", "pmswap_inplace_map", "pmswap_inplace_pte_map",
	"pmswap_inplace_promote", "thp_collapse_alloc", "pgmajfault",
};
#define NR_VM ARRAY_SIZE(vm_names)

static void vmstat_read(long *v)
{
	char name[64];
	FILE *f = fopen("/proc/vmstat", "r");
	long val;
	size_t i;

	for (i = 0; i < NR_VM; i++)
		v[i] = -1;
	if (!f)
		return;
	while (fscanf(f, "%63s %ld", name, &val) == 2)
		for (i = 0; i < NR_VM; i++)
			if (!strcmp(name, vm_names[i]))
				v[i] = val;
	fclose(f);
}

/* --weight NAME=N,...: change how often workers draw an operation */
static void parse_weights(const char *s)
{
	char buf[512], *tok, *save = NULL, *eq;
	int op;

	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		eq = strchr(tok, '=');
		if (!eq)
			ksft_exit_fail_msg("--weight: want NAME=N, got '%s'\n", tok);
		*eq = 0;
		for (op = 0; op < OP_NR; op++)
			if (!strcmp(tok, op_name[op]))
				break;
		if (op == OP_NR)
			ksft_exit_fail_msg("--weight: unknown operation '%s'\n", tok);
		parent_weight[op] = atoi(eq + 1);
		if (!parent_weight[op])
			child_weight[op] = 0;	/* 0: in fork children too */
	}
}

/* --- main --- */
static unsigned int parse_flip(const char *s)
{
	static const struct { const char *n; unsigned int f; } names[] = {
		{ "huge_swap", FLIP_HUGE }, { "inplace", FLIP_INPLACE },
		{ "io", FLIP_IO }, { "reclaim", FLIP_RECLAIM }, { "high", FLIP_HIGH },
		{ "all", FLIP_ALL }, { "none", 0 },
	};
	char buf[128], *tok, *save = NULL;
	unsigned int f = 0;
	size_t i;

	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < ARRAY_SIZE(names); i++)
			if (!strcmp(tok, names[i].n))
				break;
		if (i == ARRAY_SIZE(names))
			ksft_exit_fail_msg("--flip: unknown '%s'\n", tok);
		f |= names[i].f;
	}
	return f;
}

static void usage(void)
{
	printf("usage: fuzz [--seed N] [--duration SECONDS] [--procs N] [--threads N]\n"
	       "            [--ops N] [--only P.T] [--verbose] [--uid UID] [--no-helper]\n"
	       "            [--flip huge_swap,inplace,io,reclaim,high|all|none] [--inject N]\n"
	       "            [--weight OP=N,...]\n"
	       "  --ops N: stop each worker thread after N operations (no time limit\n"
	       "           unless --duration is given too)\n"
	       "  --only P.T: run only thread T of process P (replays its sequence)\n"
	       "  --flip: what the root helper changes (default all)\n"
	       "  --inject N: self-test: corrupt a page after operation N of p0.t0\n"
	       "  --weight OP=N: how often workers draw OP (names as in the final counts;\n"
	       "           0 also takes it out of fork children)\n");
	exit(2);
}

static void parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "seed", 1, NULL, 's' }, { "duration", 1, NULL, 'd' },
		{ "procs", 1, NULL, 'p' }, { "threads", 1, NULL, 't' },
		{ "ops", 1, NULL, 'n' }, { "only", 1, NULL, 'o' },
		{ "verbose", 0, NULL, 'v' }, { "uid", 1, NULL, 'u' },
		{ "no-helper", 0, NULL, 'H' }, { "flip", 1, NULL, 'f' },
		{ "inject", 1, NULL, 'i' }, { "weight", 1, NULL, 'w' },
		{ "help", 0, NULL, 'h' }, { 0 },
	};
	bool seeded = false, timed = false;
	int c;

	opt.flip = FLIP_ALL;
	while ((c = getopt_long(argc, argv, "s:d:p:t:n:o:vu:Hf:i:w:h", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			opt.seed = strtoull(optarg, NULL, 0);
			seeded = true;
			break;
		case 'd':
			opt.duration = atof(optarg);
			timed = true;
			break;
		case 'p':
			opt.procs = atoi(optarg);
			break;
		case 't':
			opt.threads = atoi(optarg);
			break;
		case 'n':
			opt.ops = atol(optarg);
			break;
		case 'o':
			if (sscanf(optarg, "%d.%d", &opt.only_p, &opt.only_t) != 2)
				usage();
			break;
		case 'v':
			opt.verbose = 1;
			break;
		case 'u':
			opt.uid = atoi(optarg);
			break;
		case 'H':
			opt.no_helper = true;
			break;
		case 'f':
			opt.flip = parse_flip(optarg);
			break;
		case 'i':
			opt.inject = atol(optarg);
			break;
		case 'w':
			parse_weights(optarg);
			break;
		default:
			usage();
		}
	}
	if (opt.procs < 1 || opt.procs > MAXPROCS || opt.threads < 1 ||
	    opt.threads > MAXTHREADS || opt.only_p >= opt.procs ||
	    opt.only_t >= opt.threads)
		usage();
	if (opt.ops && !timed)
		opt.duration = 0;
	if (!seeded)
		opt.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
}

int main(int argc, char **argv)
{
	pid_t pids[MAXPROCS] = { 0 }, helper = 0;
	uint64_t total[OP_LOG_NR] = { 0 }, last_progress;
	long vm0[NR_VM], vm1[NR_VM];
	int p, t, k, status, running, nproc_run = 0;
	bool root, hung = false;
	char line[2048];
	double grace;
	size_t m;

	parse_args(argc, argv);
	root = !geteuid();
	ksft_print_header();
	ksft_print_msg("fuzz: seed=%llu procs=%d threads=%d duration=%gs ops=%ld%s uptime=%.1f\n",
		       (unsigned long long)opt.seed, opt.procs, opt.threads,
		       opt.duration, opt.ops, opt.only_p >= 0 ? " (--only)" : "",
		       uptime());
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		ksft_exit_fail_msg("mmap shared: %s\n", strerror(errno));
	for (p = 0; p < opt.procs; p++)
		nproc_run += opt.only_p < 0 || p == opt.only_p;
	ksft_set_plan(nproc_run + 1);

	if (root && !opt.no_helper) {
		memcg_create();
		find_knobs();
		m = 0;
		line[0] = 0;
		for (k = 0; k < nknobs; k++)
			m += snprintf(line + m, sizeof(line) - m, " %s=%s",
				      knobs[k].path, knobs[k].orig);
		ksft_print_msg("helper: knobs found:%s%s%s\n", nknobs ? line : " no pmswap switches",
			       memcg[0] ? "; memcg /sys/fs/cgroup/" : "; no memcg v2",
			       memcg[0] ? memcg : "");
		fflush(stdout);
		helper = fork();
		if (!helper) {
			helper_main(getppid());
			_exit(0);
		}
	}
	if (root) {
		if (memcg[0]) {
			char path[256], val[32];

			snprintf(path, sizeof(path), "/sys/fs/cgroup/%s/cgroup.procs", memcg);
			snprintf(val, sizeof(val), "%d", getpid());
			if (write_str(path, val))
				ksft_print_msg("cannot enter %s: %s\n", path, strerror(errno));
		}
		if (setgroups(0, NULL) || setgid(opt.uid) || setuid(opt.uid))
			ksft_exit_fail_msg("dropping privileges to %d: %s\n", opt.uid,
					   strerror(errno));
		prctl(PR_SET_DUMPABLE, 1);
	}
	/* what the workers will find, probed here with their credentials */
	k = probe_procmem();
	ksft_print_msg("workers: uid %d; userfaultfd %s; /proc/self/mem %s%s%s%s\n",
		       getuid(), uffd_setup(), k ? "off (open: " : "on, PROT_NONE pages: ",
		       k ? strerror(k) : pr.mem_force_read ? "read" : "no read",
		       k ? "" : pr.mem_force_write ? ", write" : ", no write",
		       k ? ")" : "");
	if (pr.uffd >= 0)
		close(pr.uffd);
	pr.uffd = -1;
	pr.uffd_ok = pr.move_ok = false;
	fflush(stdout);

	vmstat_read(vm0);
	sh->start_ns = now_ns();
	for (p = 0; p < opt.procs; p++) {
		if (opt.only_p >= 0 && p != opt.only_p)
			continue;
		pids[p] = fork();
		if (!pids[p])
			_exit(proc_main(p));
		if (pids[p] < 0)
			ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	}

	/* wait; report progress; a process that outlives its time hangs */
	grace = opt.duration > 0 ? 300 + opt.duration / 2 : 0;
	last_progress = now_ns();
	for (;;) {
		running = 0;
		for (p = 0; p < opt.procs; p++) {
			if (pids[p] <= 0)
				continue;
			if (waitpid(pids[p], &status, WNOHANG) == pids[p]) {
				if (!WIFEXITED(status) || WEXITSTATUS(status)) {
					sh->p[p].failed = 1;
					if (!sh->p[p].why[0])
						snprintf(sh->p[p].why, sizeof(sh->p[p].why),
							 "%s %d", WIFSIGNALED(status) ?
							 "killed by signal" : "exit status",
							 WIFSIGNALED(status) ? WTERMSIG(status) :
							 WEXITSTATUS(status));
					sh->stop = 1;
				}
				pids[p] = -pids[p];
				continue;
			}
			running++;
		}
		if (!running)
			break;
		if (now_ns() - last_progress >= 30000000000ULL) {
			last_progress = now_ns();
			m = 0;
			for (p = 0; p < opt.procs; p++) {
				uint64_t s = 0;

				for (t = 0; t < opt.threads; t++)
					s += sh->p[p].t[t].seq;
				m += snprintf(line + m, sizeof(line) - m, " p%d=%llu", p,
					      (unsigned long long)s);
			}
			ksft_print_msg("fuzz: %.0fs, ops%s\n",
				       (now_ns() - sh->start_ns) / 1e9, line);
		}
		if (grace > 0 && !hung &&
		    now_ns() - sh->start_ns > (uint64_t)((opt.duration + grace) * 1e9)) {
			hung = true;
			for (p = 0; p < opt.procs; p++) {
				char wchan[64] = "?", path[64];

				if (pids[p] <= 0)
					continue;
				snprintf(path, sizeof(path), "/proc/%d/wchan", pids[p]);
				read_str(path, wchan, sizeof(wchan));
				ksft_print_msg("FUZZ HANG seed=%llu proc=%d still running %.0fs after its end (wchan %s); last operations:\n",
					       (unsigned long long)opt.seed, p, grace, wchan);
				fflush(stdout);
				for (t = 0; t < opt.threads; t++)
					dump_ring(sh->p[p].t[t].ring, sh->p[p].t[t].logn,
						  p, t, false);
				snprintf(sh->p[p].why, sizeof(sh->p[p].why),
					 "hangs (%.0fs past its end)", grace);
				sh->p[p].failed = 1;
				kill(pids[p], SIGKILL);
			}
		}
		usleep(100000);
	}

	sh->stop = 1;
	for (p = 0; p < opt.procs; p++) {
		uint64_t ops = 0;

		if (!pids[p])
			continue;
		for (t = 0; t < opt.threads; t++) {
			ops += sh->p[p].t[t].seq;
			for (k = 0; k < OP_LOG_NR; k++)
				total[k] += sh->p[p].t[t].counts[k];
		}
		if (sh->p[p].failed)
			ksft_test_result_fail("proc %d: %s (seed %llu, %llu ops)\n", p,
					      sh->p[p].why, (unsigned long long)opt.seed,
					      (unsigned long long)ops);
		else
			ksft_test_result_pass("proc %d: %llu ops, data as modelled\n", p,
					      (unsigned long long)ops);
	}
	if (helper > 0) {
		waitpid(helper, &status, 0);
		if (sh->h.done && !sh->h.actions)
			ksft_test_result_skip("root helper: no pmswap switches and no memcg v2 here\n");
		else
			ksft_test_result(sh->h.done && sh->h.ok && WIFEXITED(status),
					 "root helper: flips %s\n", sh->h.flips);
	} else {
		ksft_test_result_skip("root helper: %s\n",
				      root ? "--no-helper" : "not root");
	}
	vmstat_read(vm1);
	m = 0;
	for (k = 0; k < (int)NR_VM; k++)
		if (vm0[k] >= 0 && vm1[k] >= 0)
			m += snprintf(line + m, sizeof(line) - m, " %s=%ld", vm_names[k],
				      vm1[k] - vm0[k]);
	ksft_print_msg("fuzz: vmstat during the run:%s\n", line);
	m = 0;
	for (k = 0; k < OP_LOG_NR; k++)
		m += snprintf(line + m, sizeof(line) - m, " %s=%llu", op_name[k],
			      (unsigned long long)total[k]);
	ksft_print_msg("fuzz: seed=%llu ops:%s\n", (unsigned long long)opt.seed, line);
	ksft_finished();
}
