// SPDX-License-Identifier: GPL-2.0
/*
 * pmem media failures and device removal under pmem swap.
 *
 * badslot POLICY (never, read or always, set on the device's inplace file
 * for the run, "read" put back after): one bad 4 KiB slot must cost one
 * page, not 2 MiB. A 4 MiB THP region is swapped out in huge swap entries,
 * the pmem page behind one of its slots is poisoned with hwpoison-inject,
 * and a child reads every 4 KiB page with a SIGBUS handler. Required: the
 * huge swap-in is split and retried at 4 KiB, so exactly one SIGBUS, at
 * the bad page, si_code BUS_MCEERR_AR with si_addr_lsb 12 (what
 * memory_failure() gives, and what a VMM turns into a guest machine
 * check); the other 1023 pages read back intact; the bad page is never
 * mapped in place; reading it again raises the same SIGBUS (no hang, no
 * loop); the other THP is not touched. Two passes (page 37 of the first
 * THP, page 511 of the second), then a fresh 16 MiB swap round trip (in a
 * child) shows the kernel still works.
 * Under read and always, a third pass races the poison with a fault that
 * maps in place (issue 14 item 4, memory failure side): the kernel's race
 * window "inplace_map" holds the reader's first fault (on the THP with
 * the bad page 200) after its checks and slot claim, before it takes the
 * PMD lock to map the extent; a thread of the reader poisons the page
 * while it waits, then lets it go. The fault must see the bad slot under
 * the lock and not map the extent: the same rules as above then hold
 * (QEMU's poison reads back the old data, so a mapping of the extent
 * shows as no SIGBUS and PmswapInPlace covering the bad page).
 *
 * fullbb POLICY: the same with the pmem disk's bad block table full
 * (filled through the writable /sys/block/<disk>/badblocks with one-sector
 * entries at the end of the disk until a write gets ENOSPC): pmswap can no
 * longer record the poisoned page there, yet its owner must get one SIGBUS
 * per read of it, nothing may hang, and the page must not be mapped in
 * place. QEMU has no real poison (a read of the page returns the old
 * data), so the machine-check loop of real hardware (a poisoned page
 * mapped in place again after each machine check) cannot happen here;
 * what is checked is that the kernel still treats the page as bad.
 *
 * unbind: the namespace is removed (its pfn device unbound from nd_pmem)
 * while a victim holds 64 MiB of THPs in huge swap entries on it, the
 * first 16 MiB of them mapped in place (policy read). Required: the io
 * knob cannot be set back to "dax"; no released pmem is ever mapped or
 * copied. The freed namespace is made a devdax device (ndctl
 * create-namespace -f -e NS -m devdax) and filled with a marker; the
 * victim then reads its region: every page must be its own data or
 * SIGBUS, never the marker nor other data, and nothing is mapped in place.
 * Then swapoff of the dead device (with the victim alive; by /dev/<disk>,
 * else by a node made with its old device number) must return, and the
 * victim reads again under the same rule.
 * With swap on a device-dax instance through dax_swap (/dev/daxswapX.Y,
 * issue 19), the removal is the unbind of daxX.Y from dax_swap, and the
 * new owner is device_dax, bound to it again: the marker goes in through
 * /dev/daxX.Y. The rules are the same.
 * The removal also races a fault (issue 14 item 4): the victim reads a
 * THP it has not touched yet, and the kernel's race window "inplace_map"
 * holds that fault after its checks, before it takes the PMD lock to map
 * the extent in place, until the unbind is over. The removal's walk
 * passes the PMD while it still holds the swap entry; the fault must
 * then see the dead device under the lock and not map released pmem:
 * it ends in SIGBUS (the checks above also find such a mapping:
 * PmswapInPlace, the marker).
 *
 * All of them leave the device damaged for good (QEMU cannot clear
 * poison; unbind removes the swap device): run last in a boot, fullbb
 * after badslot.
 *
 * usage: pmem_failure badslot|fullbb never|read|always
 *        pmem_failure unbind
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include "kselftest.h"
#include "pmswap_test.h"

#define PMEM_KNOBS	"/sys/kernel/mm/pmswap/pmem"
#define POISON		"/sys/kernel/debug/hwpoison/corrupt-pfn"
#define ND_PMEM		"/sys/bus/nd/drivers/nd_pmem"
#define DAX_DRV		"/sys/bus/dax/drivers"
#define MAGIC		0x4d41524b45523031ULL	/* "MARKER01" */
#define MARKBYTE	0x5a
#define MAXREC		8

#ifndef BUS_MCEERR_AR
#define BUS_MCEERR_AR	4
#endif
#ifndef BUS_MCEERR_AO
#define BUS_MCEERR_AO	5
#endif

/* the pmem swap device: /sys/kernel/mm/pmswap/pmem/<disk> */
static char dir[300], disk[64], knob_io[340], knob_inplace[340];
static char knob_stats[340];

static int find_dev(void)
{
	glob_t g;
	char *slash;

	if (glob(PMEM_KNOBS "/*/phys_start", 0, NULL, &g))
		return -1;
	if (!g.gl_pathc) {
		globfree(&g);
		return -1;
	}
	slash = strrchr(g.gl_pathv[0], '/');
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - g.gl_pathv[0]),
		 g.gl_pathv[0]);
	globfree(&g);
	snprintf(disk, sizeof(disk), "%.60s", strrchr(dir, '/') + 1);
	snprintf(knob_io, sizeof(knob_io), "%s/io", dir);
	snprintf(knob_inplace, sizeof(knob_inplace), "%s/inplace", dir);
	snprintf(knob_stats, sizeof(knob_stats), "%s/stats", dir);
	return 0;
}

/* Write @val to @path; 0 or -errno. */
static int write_file(const char *path, const char *val)
{
	ssize_t n;
	int fd, err;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	err = n < 0 ? -errno : (n == (ssize_t)strlen(val) ? 0 : -EIO);
	close(fd);
	return err;
}

/* Print a file as "# " lines. */
static void show_file(const char *what, const char *path)
{
	char line[512];
	FILE *f = fopen(path, "r");

	if (!f) {
		ksft_print_msg("%s: %s: %s\n", what, path, strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f))
		ksft_print_msg("%s: %s", what, line);
	fclose(f);
}

/* Print a stats/ directory, one "name value" per file, as "# " lines. */
static void show_stats(const char *dir)
{
	char path[600], buf[64];
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d) {
		ksft_print_msg("stats: %s: %s\n", dir, strerror(errno));
		return;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (!pt_read_str(path, buf, sizeof(buf)))
			ksft_print_msg("stats: %s %s\n", e->d_name, buf);
	}
	closedir(d);
}

/* Run a shell command, its output as "# " lines; its exit status. */
static int run_cmd(const char *cmd)
{
	char line[512];
	FILE *p;
	int st;

	ksft_print_msg("$ %s\n", cmd);
	fflush(stdout);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p))
		ksft_print_msg("  %s", line);
	st = pclose(p);
	ksft_print_msg("  (exit status %d)\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static const char *bus_code_name(int code)
{
	switch (code) {
	case BUS_ADRALN: return "BUS_ADRALN";
	case BUS_ADRERR: return "BUS_ADRERR";
	case BUS_OBJERR: return "BUS_OBJERR";
	case BUS_MCEERR_AR: return "BUS_MCEERR_AR";
	case BUS_MCEERR_AO: return "BUS_MCEERR_AO";
	case -1: return "none";
	default: return "other";
	}
}

/* --- reading pages under a SIGBUS handler ---------------------------------- */

static sigjmp_buf jb;
static volatile sig_atomic_t in_read;
static volatile int sig_code, sig_lsb;
static void *volatile sig_addr;
static volatile long n_async;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	sig_code = si->si_code;
	sig_addr = si->si_addr;
	sig_lsb = si->si_addr_lsb;
	if (in_read) {
		in_read = 0;
		siglongjmp(jb, 1);
	}
	/* not raised by our own access (BUS_MCEERR_AO from memory_failure) */
	n_async++;
}

static void catch_sigbus(void)
{
	struct sigaction sa = { .sa_sigaction = on_sigbus, .sa_flags = SA_SIGINFO };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
}

enum { RP_OK, RP_BAD, RP_MARKER, RP_BUS };

/* One of the marker's 512-byte chunks: the magic word, then MARKBYTE. */
static bool has_marker(const char *p)
{
	size_t o, i;

	for (o = 0; o < PT_PAGE_SIZE; o += 512) {
		bool fill = true;

		if (*(const uint64_t *)(p + o) == MAGIC)
			return true;
		for (i = 8; i < 512 && fill; i++)
			fill = (unsigned char)p[o + i] == MARKBYTE;
		if (fill)
			return true;
	}
	return false;
}

/*
 * Read the 4 KiB page at @off of a region filled by pt_fill(@seed) at
 * @base: RP_OK, RP_BAD (wrong data), RP_MARKER (wrong data: the marker),
 * or RP_BUS (SIGBUS, with sig_code, sig_addr and sig_lsb set).
 */
static int read_page(const char *base, size_t off, uint64_t seed)
{
	int ret;

	sig_code = -1;
	sig_addr = NULL;
	sig_lsb = -1;
	if (sigsetjmp(jb, 1))
		return RP_BUS;
	in_read = 1;
	ret = pt_verify_range(base, off, PT_PAGE_SIZE, seed) ? RP_BAD : RP_OK;
	if (ret == RP_BAD && has_marker(base + off))
		ret = RP_MARKER;
	in_read = 0;
	return ret;
}

/* --- badslot / fullbb ------------------------------------------------------ */

#define SLOT_THPS	2
#define SLOT_SIZE	(SLOT_THPS * PT_PMD_SIZE)
#define SLOT_PAGES	(SLOT_SIZE / PT_PAGE_SIZE)

struct slot_case {
	int thp, page;		/* the bad page: page @page of THP @thp */
	uint64_t seed;
	unsigned long phys0;
	/*
	 * Poisoning may fail or not be counted (full bad block table): read
	 * anyway, and do not fail the injection's test point on that.
	 */
	bool lenient;
	/* poison while the first fault waits in the inplace_map window */
	bool race;
};

struct sigrec {
	long page;		/* page of the region the read was on */
	long off;		/* si_addr - region start, -1 if outside */
	int code, lsb;
};

enum { ST_START, ST_SWAPPED, ST_POISONED, ST_READ, ST_DONE };

struct slot_report {
	int stage;
	int poison_err;			/* -errno of the corrupt-pfn write */
	long thp_kb, swap_pmd_kb;
	long cached;			/* pages mincore() finds after swap-out */
	unsigned long offset, pfn;	/* swap offset of the bad page, its pfn */
	long notices, read_errors;	/* device counters, deltas */
	long good[SLOT_THPS], bad[SLOT_THPS], bus[SLOT_THPS];
	long nbus, nasync;
	struct sigrec rec[MAXREC];	/* the first SIGBUSes */
	long badpage[MAXREC];		/* the first pages with wrong data */
	long inplace_kb;		/* PmswapInPlace after reading it all */
	int first;			/* first read of the bad page: RP_* */
	int again;			/* second read of the bad page: RP_* */
	struct sigrec again_rec;
	/* race: armed, fault reached the window, still there after the poison */
	bool armed, raced, held;
	long hits0, hits1;
};

static void race_release(void)
{
	pt_race_release("inplace_map");
}

struct race_ctx {
	struct slot_report *r;
	volatile int first_done;	/* the reader's first page is read */
};

static void poison_slot(struct slot_report *r)
{
	char pfn[32];
	long n0 = pt_stat_key(knob_stats, "poison_notices");

	snprintf(pfn, sizeof(pfn), "%#lx", r->pfn);
	r->poison_err = write_file(POISON, pfn);
	r->notices = pt_stat_key(knob_stats, "poison_notices") - n0;
}

/*
 * The reader's other thread: once the reader's first fault waits in the
 * window, poison the bad page, note whether the fault is still there,
 * and let it go. It poisons even when the fault never came, so the reads
 * still check the page (and the race point fails).
 */
static void *race_poisoner(void *arg)
{
	struct race_ctx *x = arg;
	struct slot_report *r = x->r;

	r->raced = pt_race_wait("inplace_map", r->hits0, 60);
	poison_slot(r);
	r->held = r->raced && !x->first_done;
	r->hits1 = pt_race_hits("inplace_map");
	pt_race_release("inplace_map");
	return NULL;
}

static void record(struct sigrec *r, const char *base, long page)
{
	uintptr_t a = (uintptr_t)sig_addr, b = (uintptr_t)base;

	r->page = page;
	r->off = a >= b && a < b + SLOT_SIZE ? (long)(a - b) : -1;
	r->code = sig_code;
	r->lsb = sig_lsb;
}

static int slot_child(void *arg, int out)
{
	const struct slot_case *c = arg;
	struct slot_report r = { .stage = ST_START };
	long bad_idx = (long)c->thp * PT_PMD_PAGES + c->page, i;
	unsigned char vec[SLOT_PAGES];
	struct race_ctx x = { .r = &r };
	bool thread = false;
	pthread_t t;
	long e0;
	char *mem;
	uint64_t e;
	int fd;

	memset(r.rec, 0xff, sizeof(r.rec));
	memset(r.badpage, 0xff, sizeof(r.badpage));
	mem = pt_alloc_thp(SLOT_SIZE);
	fd = pt_pagemap_open();
	if (!mem || fd < 0)
		goto out;
	pt_fill(mem, SLOT_SIZE, c->seed);
	r.thp_kb = pt_smaps_kb(mem, "AnonHugePages");
	pt_pageout(mem, SLOT_SIZE);
	r.swap_pmd_kb = pt_smaps_kb(mem, "SwapPmdMapped");
	if (!mincore(mem, SLOT_SIZE, vec))
		for (i = 0; i < (long)SLOT_PAGES; i++)
			r.cached += vec[i] & 1;
	e = pt_pagemap_entry(fd, mem + bad_idx * PT_PAGE_SIZE);
	if (!(e & PT_PM_SWAP))
		goto out;
	r.stage = ST_SWAPPED;
	r.offset = PT_PM_SWP_OFFSET(e);
	r.pfn = c->phys0 / PT_PAGE_SIZE + r.offset;
	e0 = pt_stat_key(knob_stats, "read_errors");
	if (c->race) {
		/* only this process's fault; held longer than any poisoning */
		r.hits0 = pt_race_hits("inplace_map");
		r.armed = !pt_race_arm("inplace_map", 300000, getpid());
		if (!r.armed)
			pt_race_release("inplace_map");
		thread = !pthread_create(&t, NULL, race_poisoner, &x);
		if (!thread) {
			pt_race_release("inplace_map");
			goto out;
		}
	} else {
		poison_slot(&r);
		/* the write reached memory_failure() even if that failed: read */
		if (r.poison_err == -ENOENT || r.poison_err == -EACCES)
			goto out;
	}
	r.stage = ST_POISONED;

	/* every page once; a hang is ended by the alarm (child killed) */
	catch_sigbus();
	alarm(120);
	for (i = 0; i < (long)SLOT_PAGES; i++) {
		int t = i / PT_PMD_PAGES;

		int rp = read_page(mem, i * PT_PAGE_SIZE, c->seed);

		if (!i && thread) {
			x.first_done = 1;
			pthread_join(t, NULL);
			thread = false;
			alarm(120);
		}
		if (i == bad_idx)
			r.first = rp;
		switch (rp) {
		case RP_OK:
			r.good[t]++;
			break;
		case RP_BUS:
			if (r.nbus < MAXREC)
				record(&r.rec[r.nbus], mem, i);
			r.nbus++;
			r.bus[t]++;
			break;
		default:
			if (r.bad[0] + r.bad[1] < MAXREC)
				r.badpage[r.bad[0] + r.bad[1]] = i;
			r.bad[t]++;
			break;
		}
	}
	r.stage = ST_READ;
	r.inplace_kb = pt_smaps_kb(mem, "PmswapInPlace");
	/* the bad page again: the same SIGBUS, not a hang nor data */
	r.again = read_page(mem, bad_idx * PT_PAGE_SIZE, c->seed);
	if (r.again == RP_BUS)
		record(&r.again_rec, mem, bad_idx);
	alarm(0);
	r.nasync = n_async;
	r.read_errors = pt_stat_key(knob_stats, "read_errors") - e0;
	r.stage = ST_DONE;
out:
	return write(out, &r, sizeof(r)) == sizeof(r) ? 0 : 1;
}

static const char *status_str(int st, char *buf, size_t len)
{
	if (st < 0)
		snprintf(buf, len, "no child");
	else if (WIFSIGNALED(st))
		snprintf(buf, len, "killed by signal %d%s", WTERMSIG(st),
			 WTERMSIG(st) == SIGALRM ? " (hung, watchdog)" : "");
	else
		snprintf(buf, len, "exit %d", WEXITSTATUS(st));
	return buf;
}

#define SLOT_TESTS 11

/* One poisoned slot, read back by a child: SLOT_TESTS test points. */
static void slot_pass(const char *what, const struct slot_case *c)
{
	long bad_idx = (long)c->thp * PT_PMD_PAGES + c->page;
	long bad_off = bad_idx * PT_PAGE_SIZE, other;
	int o = !c->thp, st, i;
	struct slot_report r;
	bool at_k, in_k;
	char sbuf[64];

	ksft_print_msg("%s: poisoning page %d of THP %d (page %ld of the region)\n",
		       what, c->page, c->thp, bad_idx);
	st = pt_fork_report(slot_child, (void *)c, &r, sizeof(r));
	if (st < 0)
		ksft_exit_fail_perror("fork");
	if (r.stage == -1) {	/* nothing reported: 0xff */
		memset(&r, 0, sizeof(r));
		r.stage = -1;
	}
	ksft_print_msg("%s: child %s, stage %d; %ld pages resident or swap-cached after swap-out; swap offset %lu, pfn %#lx; %ld SIGBUS, %ld+%ld pages intact, %ld+%ld wrong; %ld async SIGBUS; read_errors +%ld\n",
		       what, status_str(st, sbuf, sizeof(sbuf)), r.stage,
		       r.cached, r.offset, r.pfn, r.nbus, r.good[0], r.good[1],
		       r.bad[0], r.bad[1], r.nasync, r.read_errors);
	for (i = 0; i < MAXREC && i < r.nbus; i++)
		ksft_print_msg("%s: SIGBUS %d: reading page %ld, si_code %d (%s), si_addr region+%#lx, si_addr_lsb %d\n",
			       what, i + 1, r.rec[i].page, r.rec[i].code,
			       bus_code_name(r.rec[i].code), r.rec[i].off,
			       r.rec[i].lsb);
	if (r.nbus > MAXREC)
		ksft_print_msg("%s: ... %ld more SIGBUS\n", what, r.nbus - MAXREC);
	for (i = 0; i < MAXREC && r.badpage[i] >= 0; i++)
		ksft_print_msg("%s: wrong data in page %ld\n", what, r.badpage[i]);

	ksft_test_result(r.stage >= ST_SWAPPED && r.swap_pmd_kb == (long)(SLOT_SIZE >> 10),
			 "%s: 4 MiB of THPs (AnonHugePages %ld kB) swapped out in huge swap entries (SwapPmdMapped %ld kB)\n",
			 what, r.thp_kb, r.swap_pmd_kb);
	ksft_test_result(r.stage >= ST_POISONED &&
			 (c->lenient || (!r.poison_err && r.notices == 1)),
			 "%s: pmem pfn %#lx (swap offset %lu) poisoned: %s, %ld poison notice(s)\n",
			 what, r.pfn, r.offset,
			 r.poison_err ? strerror(-r.poison_err) : "ok", r.notices);
	if (c->race) {
		ksft_print_msg("%s: race window %s, the reader's first fault %s it (hits %ld -> %ld)%s\n",
			       what, r.armed ? "armed" : "NOT armed",
			       r.raced ? "reached" : "NEVER reached", r.hits0,
			       r.hits1, r.raced ? (r.held ? " and waited there until after the poison" :
							 ", but did NOT wait there until after the poison") : "");
		ksft_test_result(r.armed && r.raced && r.held &&
				 r.hits1 == r.hits0 + 1,
				 "%s: the reader's fault waited between its checks and the PMD lock while the page was poisoned\n",
				 what);
	}
	if (r.stage < ST_READ) {
		for (i = 2; i < SLOT_TESTS; i++)
			ksft_test_result_fail("%s: not read (child %s at stage %d)\n",
					      what, sbuf, r.stage);
		return;
	}
	ksft_print_msg("%s: first read of the bad page: %s\n", what,
		       r.first == RP_BUS ? "SIGBUS" :
		       r.first == RP_OK ? "its data (not treated as bad)" : "wrong data");
	ksft_test_result(r.nbus == 1,
			 "%s: exactly one SIGBUS reading the 1024 pages (got %ld)\n",
			 what, r.nbus);
	at_k = r.nbus >= 1;
	for (i = 0; i < MAXREC && i < r.nbus; i++)
		at_k = at_k && r.rec[i].page == bad_idx &&
		       r.rec[i].off >= bad_off &&
		       r.rec[i].off < bad_off + (long)PT_PAGE_SIZE;
	if (r.nbus)
		ksft_test_result(at_k,
				 "%s: the SIGBUS is at the bad page %ld only (first at page %ld, si_addr region+%#lx; want +%#lx)\n",
				 what, bad_idx, r.rec[0].page, r.rec[0].off, bad_off);
	else
		ksft_test_result_fail("%s: the SIGBUS is at the bad page %ld only (no SIGBUS)\n",
				      what, bad_idx);
	ksft_test_result(r.nbus >= 1 && r.rec[0].code == BUS_MCEERR_AR,
			 "%s: si_code BUS_MCEERR_AR (got %d, %s)\n",
			 what, r.rec[0].code, bus_code_name(r.rec[0].code));
	ksft_test_result(r.nbus >= 1 && r.rec[0].lsb == 12,
			 "%s: si_addr_lsb 12 (got %d)\n", what, r.rec[0].lsb);
	/* pages other than the bad one: intact, whatever the bad one gave */
	other = r.good[0] + r.good[1] - (r.first == RP_OK);
	ksft_test_result(other == (long)SLOT_PAGES - 1,
			 "%s: the other %lu pages read back intact (%ld intact, %ld SIGBUS, %ld wrong data)\n",
			 what, SLOT_PAGES - 1, other, r.nbus - (r.first == RP_BUS),
			 r.bad[0] + r.bad[1] - (r.first == RP_BAD || r.first == RP_MARKER));
	in_k = r.again == RP_BUS && r.again_rec.off >= bad_off &&
	       r.again_rec.off < bad_off + (long)PT_PAGE_SIZE;
	if (r.again == RP_BUS)
		ksft_test_result(in_k && r.again_rec.code == BUS_MCEERR_AR &&
				 r.again_rec.lsb == 12,
				 "%s: reading the bad page again: SIGBUS again, same way (si_code %d %s, si_addr region+%#lx, lsb %d)\n",
				 what, r.again_rec.code,
				 bus_code_name(r.again_rec.code),
				 r.again_rec.off, r.again_rec.lsb);
	else
		ksft_test_result_fail("%s: reading the bad page again: SIGBUS again, same way (got %s)\n",
				      what, r.again == RP_OK ? "its data" : "wrong data");
	/* all 1024 pages in place would include the bad one */
	ksft_test_result(r.inplace_kb < (long)(SLOT_SIZE >> 10),
			 "%s: the bad page is not mapped in place (PmswapInPlace of the region %ld kB, all of it would be %lu)\n",
			 what, r.inplace_kb, SLOT_SIZE >> 10);
	other = r.good[o];
	ksft_test_result(other == (long)PT_PMD_PAGES && r.bus[o] == 0 && r.bad[o] == 0,
			 "%s: the other THP (%d) is unaffected (%ld of 512 intact, %ld SIGBUS, %ld wrong)\n",
			 what, o, other, r.bus[o], r.bad[o]);
	ksft_test_result(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 &&
			 r.stage == ST_DONE && r.nasync == 0,
			 "%s: reader finished normally: no hang, no unhandled or asynchronous SIGBUS (%s, %ld async)\n",
			 what, sbuf, r.nasync);
}

/* After the poison: can the kernel still swap a fresh region out and in? */
static int fresh_child(void *arg, int out)
{
	size_t size = 16 * PT_MIB;
	char *mem = pt_alloc_thp(size);
	long rep[3] = { -1, -1, -1 };	/* kB swapped, pages wrong, SIGBUS */
	size_t off;

	if (mem) {
		catch_sigbus();
		alarm(120);
		pt_fill(mem, size, 4242);
		pt_pageout(mem, size);
		rep[0] = pt_smaps_kb(mem, "Swap");
		rep[1] = rep[2] = 0;
		for (off = 0; off < size; off += PT_PAGE_SIZE) {
			int rp = read_page(mem, off, 4242);

			if (rp == RP_BUS)
				rep[2]++;
			else if (rp != RP_OK)
				rep[1]++;
		}
		alarm(0);
	}
	return write(out, rep, sizeof(rep)) == sizeof(rep) ? 0 : 1;
}

static void fresh_round_trip(const char *what)
{
	long rep[3];
	int st = pt_fork_report(fresh_child, NULL, rep, sizeof(rep));

	ksft_test_result(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 &&
			 rep[0] == 16384 && rep[1] == 0 && rep[2] == 0,
			 "%s: kernel still swaps: fresh 16 MiB out (%ld kB in swap) and back in, %ld pages wrong, %ld SIGBUS\n",
			 what, rep[0], rep[1], rep[2]);
}

static void set_policy(const char *policy)
{
	int err = write_file(knob_inplace, policy);

	ksft_test_result(!err, "in-place policy of %s set to %s%s%s\n", disk,
			 policy, err ? ": " : "", err ? strerror(-err) : "");
}

static void do_badslot(const char *policy)
{
	char path[340], buf[64];
	unsigned long phys0;
	struct slot_case c1, c2, c3;
	/* the race window is on the way of a fault that maps in place */
	bool race = strcmp(policy, "never") != 0;
	int i;

	ksft_set_plan(2 + 2 * SLOT_TESTS + (race ? SLOT_TESTS + 1 : 0));
	set_policy(policy);
	snprintf(path, sizeof(path), "%s/phys_start", dir);
	phys0 = pt_read_str(path, buf, sizeof(buf)) ? 0 : strtoul(buf, NULL, 0);
	ksft_print_msg("%s: phys_start %#lx\n", disk, phys0);
	c1 = (struct slot_case){ .thp = 0, .page = 37, .seed = 37, .phys0 = phys0 };
	c2 = (struct slot_case){ .thp = 1, .page = 511, .seed = 511, .phys0 = phys0 };
	slot_pass("pass 1", &c1);
	slot_pass("pass 2", &c2);
	if (race) {
		c3 = (struct slot_case){ .thp = 0, .page = 200, .seed = 200,
					 .phys0 = phys0, .race = true };
		if (pt_race_available()) {
			atexit(race_release);
			slot_pass("pass 3 (poison races a fault)", &c3);
		} else {
			for (i = 0; i < SLOT_TESTS + 1; i++)
				ksft_test_result_skip("pass 3 (poison races a fault): kernel without race windows (CONFIG_PMSWAP_RACE_WINDOWS)\n");
		}
	}
	show_stats(knob_stats);
	fresh_round_trip("after 2 bad slots");
	write_file(knob_inplace, "read");
}

/*
 * Fill the disk's bad block table with one-sector entries at its end,
 * until a write is refused. @lines: what the sysfs file then shows (it is
 * cut at a page, so it may show fewer than the table holds).
 */
static int fill_badblocks(long *added, long *lines, int *last_err)
{
	char path[128], val[64], buf[8192] = "";
	long sectors, s, n = 0;
	int err = 0;
	char *p;

	snprintf(path, sizeof(path), "/sys/block/%s/size", disk);
	sectors = pt_read_long(path);
	snprintf(path, sizeof(path), "/sys/block/%s/badblocks", disk);
	if (sectors <= 0 || !pt_path_exists(path))
		return -1;
	/* one entry per 4 KiB page, 7 sectors apart: none merge */
	for (s = sectors - 8; s > sectors - 8 * 1024; s -= 8) {
		snprintf(val, sizeof(val), "%ld 1", s);
		err = write_file(path, val);
		if (err)
			break;
		n++;
	}
	*added = n;
	*last_err = err;
	*lines = 0;
	if (!pt_read_str(path, buf, sizeof(buf)) && buf[0]) {
		for (p = buf; *p; p++)
			*lines += *p == '\n';
		(*lines)++;
	}
	return 0;
}

static void do_fullbb(const char *policy)
{
	char path[340], buf[64];
	long added = 0, lines = 0;
	unsigned long phys0;
	struct slot_case c;
	int err = 0;

	ksft_set_plan(2 + SLOT_TESTS + 1);
	set_policy(policy);
	snprintf(path, sizeof(path), "%s/phys_start", dir);
	phys0 = pt_read_str(path, buf, sizeof(buf)) ? 0 : strtoul(buf, NULL, 0);
	if (fill_badblocks(&added, &lines, &err))
		ksft_test_result_fail("no /sys/block/%s/badblocks to fill\n", disk);
	else
		ksft_test_result(err == -ENOSPC && added > 0,
				 "bad block table of %s full: %ld entries added, then a write refused (%s); the file shows %ld lines\n",
				 disk, added, err ? strerror(-err) : "none refused", lines);
	c = (struct slot_case){ .thp = 0, .page = 200, .seed = 200, .phys0 = phys0,
				.lenient = true };
	slot_pass("full table", &c);
	show_stats(knob_stats);
	fresh_round_trip("full table");
	write_file(knob_inplace, "read");
}

/* --- unbind ---------------------------------------------------------------- */

#define VICTIM_SIZE	(64 * PT_MIB)
#define VICTIM_PAGES	(VICTIM_SIZE / PT_PAGE_SIZE)
#define VICTIM_TOUCH	(16 * PT_MIB)
#define VICTIM_SEED	6464
/* the THP whose fault waits in the inplace_map window during the unbind */
#define VICTIM_RACE_PAGE	(40 * PT_MIB / PT_PAGE_SIZE)

struct victim_ready {
	long swap_pmd_kb, inplace_kb, touch_bad;
	unsigned long off_min, off_max;	/* swap offsets of the region */
};

struct victim_report {
	long inplace_kb;		/* PmswapInPlace before reading */
	long inplace_after;		/* and after */
	long ok, bus, marker, other;
	long first_marker, first_other, first_bus;
	int code;			/* si_code of the first SIGBUS */
	long nasync;
};

/* Read all @len bytes from @fd within @secs seconds; 0 on success. */
static int read_timeout(int fd, void *buf, size_t len, int secs)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		if (poll(&p, 1, secs * 1000) <= 0)
			return -1;
		n = read(fd, (char *)buf + got, len - got);
		if (n <= 0)
			return -1;
		got += n;
	}
	return 0;
}

static void victim_read(char *mem, struct victim_report *r)
{
	long i;

	memset(r, 0, sizeof(*r));
	r->first_marker = r->first_other = r->first_bus = -1;
	r->code = -1;
	r->inplace_kb = pt_smaps_kb(mem, "PmswapInPlace");
	alarm(600);
	for (i = 0; i < (long)VICTIM_PAGES; i++) {
		switch (read_page(mem, i * PT_PAGE_SIZE, VICTIM_SEED)) {
		case RP_OK:
			r->ok++;
			break;
		case RP_BUS:
			if (!r->bus++) {
				r->first_bus = i;
				r->code = sig_code;
			}
			break;
		case RP_MARKER:
			if (!r->marker++)
				r->first_marker = i;
			break;
		default:
			if (!r->other++)
				r->first_other = i;
			break;
		}
	}
	alarm(0);
	r->inplace_after = pt_smaps_kb(mem, "PmswapInPlace");
	r->nasync = n_async;
}

static int victim(int in, int out)
{
	struct victim_ready rd = { -1, -1, -1, ULONG_MAX, 0 };
	struct victim_report rep;
	char *mem = pt_alloc_thp(VICTIM_SIZE);
	int fd = pt_pagemap_open();
	char go;
	long i;

	if (!mem || fd < 0)
		return 10;
	catch_sigbus();
	pt_fill(mem, VICTIM_SIZE, VICTIM_SEED);
	pt_pageout(mem, VICTIM_SIZE);
	rd.swap_pmd_kb = pt_smaps_kb(mem, "SwapPmdMapped");
	for (i = 0; i < (long)VICTIM_PAGES; i += PT_PMD_PAGES) {
		uint64_t e = pt_pagemap_entry(fd, mem + i * PT_PAGE_SIZE);

		if (!(e & PT_PM_SWAP))
			continue;
		if (PT_PM_SWP_OFFSET(e) < rd.off_min)
			rd.off_min = PT_PM_SWP_OFFSET(e);
		if (PT_PM_SWP_OFFSET(e) + PT_PMD_PAGES - 1 > rd.off_max)
			rd.off_max = PT_PM_SWP_OFFSET(e) + PT_PMD_PAGES - 1;
	}
	/* map the first 16 MiB in place (policy read) before the removal */
	rd.touch_bad = 0;
	for (i = 0; i < (long)(VICTIM_TOUCH / PT_PAGE_SIZE); i++)
		rd.touch_bad += read_page(mem, i * PT_PAGE_SIZE, VICTIM_SEED) != RP_OK;
	rd.inplace_kb = pt_smaps_kb(mem, "PmswapInPlace");
	if (write(out, &rd, sizeof(rd)) != sizeof(rd))
		return 11;
	if (read(in, &go, 1) != 1)
		return 12;
	if (go == 'r') {
		/* a fault that waits in the inplace_map window */
		int r = read_page(mem, VICTIM_RACE_PAGE * PT_PAGE_SIZE,
				  VICTIM_SEED);

		if (write(out, &r, sizeof(r)) != sizeof(r))
			return 16;
		if (read(in, &go, 1) != 1)
			return 12;
	}
	victim_read(mem, &rep);
	if (write(out, &rep, sizeof(rep)) != sizeof(rep))
		return 13;
	if (read(in, &go, 1) != 1)
		return 14;
	victim_read(mem, &rep);
	if (write(out, &rep, sizeof(rep)) != sizeof(rep))
		return 15;
	return 0;
}

/*
 * Write @val to @path in a child, so that a write stuck in the kernel
 * does not take the test with it. 0, -errno, or -ETIMEDOUT.
 */
static int write_file_timeout(const char *path, const char *val, int secs)
{
	int fd[2], err = -ETIMEDOUT;
	pid_t pid;

	if (pipe(fd))
		return -errno;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		close(fd[0]);
		err = write_file(path, val);
		_exit(write(fd[1], &err, sizeof(err)) == sizeof(err) ? 0 : 1);
	}
	close(fd[1]);
	if (read_timeout(fd[0], &err, sizeof(err), secs)) {
		err = -ETIMEDOUT;
		kill(pid, SIGKILL);
	}
	close(fd[0]);
	waitpid(pid, NULL, 0);
	return err;
}

/* swapoff in a child (it gives up on a fatal signal): 0, -errno, -ETIMEDOUT */
static int swapoff_timeout(const char *path, int secs)
{
	int fd[2], err = -ETIMEDOUT;
	pid_t pid;

	if (pipe(fd))
		return -errno;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		close(fd[0]);
		err = swapoff(path) ? -errno : 0;
		_exit(write(fd[1], &err, sizeof(err)) == sizeof(err) ? 0 : 1);
	}
	close(fd[1]);
	if (read_timeout(fd[0], &err, sizeof(err), secs)) {
		err = -ETIMEDOUT;
		kill(pid, SIGKILL);
	}
	close(fd[0]);
	waitpid(pid, NULL, 0);
	return err;
}

/* basename of the symlink at @path into @buf; 0 on success */
static int link_name(const char *path, char *buf, size_t len)
{
	char tgt[PATH_MAX];
	ssize_t n = readlink(path, tgt, sizeof(tgt) - 1);
	char *b;

	if (n <= 0)
		return -1;
	tgt[n] = 0;
	b = strrchr(tgt, '/');
	b = b ? b + 1 : tgt;
	if (strlen(b) >= len)
		return -1;
	memcpy(buf, b, strlen(b) + 1);
	return 0;
}

/* The first /dev/daxX.Y, its size and physical start. */
static int find_devdax(char *dev, size_t len, unsigned long *size,
		       unsigned long *start)
{
	char path[PATH_MAX], buf[64];
	glob_t g;
	const char *name;

	if (glob("/sys/bus/dax/devices/dax*", 0, NULL, &g) || !g.gl_pathc) {
		globfree(&g);
		return -1;
	}
	name = strrchr(g.gl_pathv[0], '/') + 1;
	snprintf(dev, len, "/dev/%s", name);
	snprintf(path, sizeof(path), "%s/size", g.gl_pathv[0]);
	*size = pt_read_str(path, buf, sizeof(buf)) ? 0 : strtoul(buf, NULL, 0);
	snprintf(path, sizeof(path), "%s/resource", g.gl_pathv[0]);
	*start = pt_read_str(path, buf, sizeof(buf)) ? 0 : strtoul(buf, NULL, 0);
	globfree(&g);
	return 0;
}

static void fill_marker(char *p, size_t size)
{
	size_t off;

	memset(p, MARKBYTE, size);
	for (off = 0; off < size; off += 512)
		*(uint64_t *)(p + off) = MAGIC;
}

/*
 * The freed namespace as devdax (or the freed device-dax instance @ns
 * bound to device_dax again, @devdax), filled with the marker; its range.
 */
static int write_marker(const char *ns, bool devdax, unsigned long *start,
			unsigned long *size)
{
	char cmd[256], dev[128];
	void *p;
	int fd;

	if (devdax) {
		int err = write_file(DAX_DRV "/device_dax/bind", ns);

		ksft_print_msg("echo %s > %s/device_dax/bind: %s\n", ns,
			       DAX_DRV, err ? strerror(-err) : "done");
	} else {
		snprintf(cmd, sizeof(cmd),
			 "timeout 300 ndctl create-namespace -f -e %s -m devdax 2>&1",
			 ns);
		run_cmd(cmd);
	}
	run_cmd("ls -l /dev/dax* /sys/bus/dax/devices/ 2>&1");
	if (find_devdax(dev, sizeof(dev), size, start) || !*size) {
		ksft_print_msg("no devdax device after reconfiguration\n");
		return -1;
	}
	fd = open(dev, O_RDWR);
	if (fd < 0) {
		ksft_print_msg("open %s: %s\n", dev, strerror(errno));
		return -1;
	}
	p = mmap(NULL, *size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		ksft_print_msg("mmap %s (%lu bytes): %s\n", dev, *size,
			       strerror(errno));
		close(fd);
		return -1;
	}
	ksft_print_msg("filling %s (%lu MiB at %#lx) with the marker\n", dev,
		       *size >> 20, *start);
	fill_marker(p, *size);
	munmap(p, *size);
	close(fd);
	return 0;
}

static void victim_result(const char *what, const struct victim_report *r,
			  bool got)
{
	ksft_print_msg("%s: %ld pages intact, %ld SIGBUS (first at page %ld, si_code %d %s), %ld marker (first %ld), %ld other wrong (first %ld), %ld async SIGBUS; PmswapInPlace %ld kB before reading, %ld kB after\n",
		       what, r->ok, r->bus, r->first_bus, r->code,
		       bus_code_name(r->code), r->marker, r->first_marker,
		       r->other, r->first_other, r->nasync, r->inplace_kb,
		       r->inplace_after);
	ksft_test_result(got && r->marker == 0,
			 "%s: no page shows the new owner's marker (%ld of %lu)\n",
			 what, got ? r->marker : -1, VICTIM_PAGES);
	ksft_test_result(got && r->other == 0 &&
			 r->ok + r->bus == (long)VICTIM_PAGES,
			 "%s: every page its own data or SIGBUS: %ld intact + %ld SIGBUS, %ld other wrong data\n",
			 what, r->ok, r->bus, got ? r->other : -1);
}

static void do_unbind(void)
{
	char path[PATH_MAX], pfn[64], ns[64], buf[128], sbuf[64];
	char cmd[PATH_MAX + 32];
	struct victim_report rep;
	struct victim_ready rd;
	unsigned long start = 0, size = 0, phys0;
	int to_v[2], from_v[2], err, st = -1, i, racer = -1;
	bool got, races, raced = false, devdax;
	const char *drv, *drv_name;
	long hits0 = 0;
	struct stat sb;
	dev_t rdev = 0;
	pid_t pid;

	ksft_set_plan(13);
	/*
	 * the namespace's pfn device (fsdax) that nd_pmem drives, or the
	 * device-dax instance that dax_swap drives
	 */
	snprintf(path, sizeof(path), "/sys/block/%s/device", disk);
	if (link_name(path, pfn, sizeof(pfn)))
		ksft_exit_fail_msg("no %s link\n", path);
	devdax = !strncmp(pfn, "dax", 3);
	drv = devdax ? DAX_DRV "/dax_swap" : ND_PMEM;
	drv_name = strrchr(drv, '/') + 1;
	snprintf(path, sizeof(path), "/sys/bus/nd/devices/%s/namespace", pfn);
	if (devdax)
		snprintf(ns, sizeof(ns), "%s", pfn);
	else if (pt_read_str(path, ns, sizeof(ns)) || !ns[0])
		snprintf(ns, sizeof(ns), "namespace0.0");
	snprintf(path, sizeof(path), "%s/phys_start", dir);
	phys0 = pt_read_str(path, buf, sizeof(buf)) ? 0 : strtoul(buf, NULL, 0);
	snprintf(path, sizeof(path), "/dev/%s", disk);
	if (!stat(path, &sb))
		rdev = sb.st_rdev;
	ksft_print_msg("%s: driven by %s (%s), %s %s, dev %u:%u, phys_start %#lx\n",
		       disk, pfn, drv_name, devdax ? "instance" : "namespace",
		       ns, major(rdev), minor(rdev), phys0);
	if (write_file(knob_inplace, "read"))
		ksft_print_msg("cannot set the in-place policy to read\n");
	snprintf(cmd, sizeof(cmd), "ls /sys/bus/nd/devices/ %s/ 2>&1", drv);
	run_cmd(cmd);
	run_cmd("ndctl list -N 2>&1");

	if (pipe(to_v) || pipe(from_v))
		ksft_exit_fail_perror("pipe");
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		ksft_exit_fail_perror("fork");
	if (!pid) {
		close(to_v[1]);
		close(from_v[0]);
		_exit(victim(to_v[0], from_v[1]));
	}
	close(to_v[0]);
	close(from_v[1]);
	memset(&rd, 0, sizeof(rd));
	if (read_timeout(from_v[0], &rd, sizeof(rd), 600))
		ksft_exit_fail_msg("victim did not get ready\n");
	ksft_print_msg("victim: swap offsets %lu-%lu, pmem %#lx-%#lx\n",
		       rd.off_min, rd.off_max, phys0 + rd.off_min * PT_PAGE_SIZE,
		       phys0 + (rd.off_max + 1) * PT_PAGE_SIZE - 1);
	ksft_test_result(rd.swap_pmd_kb == (long)(VICTIM_SIZE >> 10),
			 "victim: 64 MiB of THPs in huge swap entries (SwapPmdMapped %ld kB)\n",
			 rd.swap_pmd_kb);
	ksft_test_result(rd.inplace_kb == (long)(VICTIM_TOUCH >> 10) && !rd.touch_bad,
			 "victim: first 16 MiB mapped in place before the removal (PmswapInPlace %ld kB), %ld pages wrong\n",
			 rd.inplace_kb, rd.touch_bad);
	show_file("swaps", "/proc/swaps");

	/* a fault of the victim waits in the inplace_map window */
	races = pt_race_available();
	if (races) {
		hits0 = pt_race_hits("inplace_map");
		/* longer than the unbind may take; only the victim's fault */
		atexit(race_release);
		races = !pt_race_arm("inplace_map", 400000, pid) &&
			write(to_v[1], "r", 1) == 1;
		if (!races)
			pt_race_release("inplace_map");
		raced = races && pt_race_wait("inplace_map", hits0, 120);
	}

	/* remove the namespace under the swap device */
	snprintf(path, sizeof(path), "%s/unbind", drv);
	ksft_print_msg("echo %s > %s\n", pfn, path);
	err = write_file_timeout(path, pfn, 300);
	ksft_test_result(!err, "unbind %s from %s: %s\n", pfn, drv_name,
			 err ? strerror(-err) : "done");
	if (races) {
		long hits1 = pt_race_hits("inplace_map");
		struct pollfd pf = { .fd = from_v[0], .events = POLLIN };
		/* no answer yet: the fault was in the window all along */
		bool held = poll(&pf, 1, 0) == 0;

		/* let the fault go on, on a dead device */
		pt_race_release("inplace_map");
		if (read_timeout(from_v[0], &racer, sizeof(racer), 300))
			racer = -1;
		ksft_print_msg("racing fault: %s the inplace_map window %s the unbind (hits %ld -> %ld), then read page %ld: %s\n",
			       raced ? "waited in" : "NEVER reached",
			       held ? "until after" : "but NOT until after", hits0,
			       hits1, (long)VICTIM_RACE_PAGE,
			       racer == RP_OK ? "its data" :
			       racer == RP_BUS ? "SIGBUS" :
			       racer < 0 ? "no answer" : "WRONG data");
		/*
		 * Nothing can read the removed device: the fault must end in
		 * SIGBUS. Its data would mean that it mapped the released
		 * pmem (before the marker is written there).
		 */
		ksft_test_result(raced && held && hits1 == hits0 + 1 &&
				 racer == RP_BUS,
				 "a fault held between its checks and the PMD lock across the unbind gets SIGBUS\n");
	} else {
		ksft_test_result_skip("a fault held between its checks and the PMD lock across the unbind gets SIGBUS: kernel without race windows (CONFIG_PMSWAP_RACE_WINDOWS)\n");
	}
	snprintf(path, sizeof(path), "/sys/block/%s", disk);
	ksft_print_msg("after unbind: %s %s, %s %s\n", path,
		       pt_path_exists(path) ? "still there" : "gone", dir,
		       pt_path_exists(dir) ? "still there" : "gone");
	if (pt_path_exists(dir)) {
		show_stats(knob_stats);
		if (!pt_read_str(knob_io, buf, sizeof(buf)))
			ksft_print_msg("io after unbind: %s\n", buf);
	}

	/* the dead device must not go back to DAX */
	err = write_file(knob_io, "dax");
	if (pt_read_str(knob_io, buf, sizeof(buf)))
		snprintf(buf, sizeof(buf), "(unreadable: %s)", strerror(errno));
	ksft_test_result(err && strcmp(buf, "dax"),
			 "io cannot be set back to dax after the removal (write: %s; io reads %s)\n",
			 err ? strerror(-err) : "accepted", buf);

	/* someone else gets the pmem, and writes to all of it */
	err = write_marker(ns, devdax, &start, &size);
	ksft_test_result(!err && start <= phys0 + rd.off_min * PT_PAGE_SIZE &&
			 start + size > phys0 + (rd.off_max + 1) * PT_PAGE_SIZE - 1,
			 "freed %s %s %s and filled with a marker (%#lx, %lu MiB), covering the victim's slots\n",
			 devdax ? "instance" : "namespace", ns,
			 devdax ? "bound to device_dax again" :
				  "reconfigured as devdax",
			 start, size >> 20);

	/* the victim reads its data */
	got = write(to_v[1], "g", 1) == 1 &&
	      !read_timeout(from_v[0], &rep, sizeof(rep), 900);
	if (!got)
		memset(&rep, 0, sizeof(rep));
	ksft_test_result(got && rep.inplace_kb == 0 && rep.inplace_after == 0,
			 "victim after the removal: nothing mapped in place (PmswapInPlace %ld kB before reading, %ld kB after)\n",
			 rep.inplace_kb, rep.inplace_after);
	victim_result("victim after the removal", &rep, got);

	/* what became of swap; swapoff of the dead device */
	show_file("swaps", "/proc/swaps");
	if (pt_path_exists(dir))
		show_stats(knob_stats);
	snprintf(path, sizeof(path), "/dev/%s", disk);
	err = swapoff_timeout(path, 300);
	ksft_print_msg("swapoff %s: %s\n", path, err ? strerror(-err) : "done");
	if (err && err != -ETIMEDOUT && rdev) {
		/* the node went with the disk: try one with the old number */
		snprintf(path, sizeof(path), "/tmp/%s-dead", disk);
		unlink(path);
		if (mknod(path, S_IFBLK | 0600, rdev))
			ksft_print_msg("mknod %s: %s\n", path, strerror(errno));
		else {
			err = swapoff_timeout(path, 300);
			ksft_print_msg("swapoff %s (%u:%u): %s\n", path,
				       major(rdev), minor(rdev),
				       err ? strerror(-err) : "done");
		}
	}
	ksft_test_result(err != -ETIMEDOUT,
			 "swapoff of the dead device returned (%s) and the kernel is alive\n",
			 err ? strerror(-err) : "done");
	show_file("swaps", "/proc/swaps");

	/* the victim reads again, after the swapoff attempt */
	got = write(to_v[1], "h", 1) == 1 &&
	      !read_timeout(from_v[0], &rep, sizeof(rep), 900);
	if (!got)
		memset(&rep, 0, sizeof(rep));
	victim_result("victim after swapoff", &rep, got);

	close(to_v[1]);
	for (i = 0; i < 300; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			break;
		sleep(1);
	}
	if (i == 300) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	ksft_test_result(WIFEXITED(st) ? WEXITSTATUS(st) == 0 :
			 WTERMSIG(st) == SIGBUS,
			 "victim ended normally (SIGBUS handled) or by SIGBUS: %s\n",
			 status_str(st, sbuf, sizeof(sbuf)));
	close(from_v[0]);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	const char *policy = argc > 2 ? argv[2] : "read";

	ksft_print_header();
	if (strcmp(mode, "badslot") && strcmp(mode, "fullbb") && strcmp(mode, "unbind"))
		ksft_exit_fail_msg("usage: pmem_failure badslot|fullbb never|read|always | unbind\n");
	if (strcmp(mode, "unbind") && strcmp(policy, "never") &&
	    strcmp(policy, "read") && strcmp(policy, "always"))
		ksft_exit_fail_msg("policy must be never, read or always\n");
	if (find_dev())
		ksft_exit_skip("swap is not on a pmem device with DAX (%s)\n",
			       pt_swap_on_pmem() ? "pmem, but no pmswap pmem device" :
			       "not on pmem");
	if (!pt_path_exists(knob_inplace))
		ksft_exit_skip("%s has no map in place\n", dir);
	if (pt_huge_swap_mode() != 1)
		ksft_exit_skip("huge swap entries are off\n");
	if (strcmp(mode, "unbind") && !pt_path_exists(POISON)) {
		if (!pt_path_exists("/sys/kernel/debug/hwpoison"))
			mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
		if (!pt_path_exists(POISON))
			ksft_exit_skip("no hwpoison-inject (%s)\n", POISON);
	}
	if (!strcmp(mode, "badslot"))
		do_badslot(policy);
	else if (!strcmp(mode, "fullbb"))
		do_fullbb(policy);
	else
		do_unbind();
	ksft_finished();
}
