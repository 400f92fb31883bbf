// SPDX-License-Identifier: GPL-2.0
/*
 * Regression tests for bugs found in huge swap entries, MADV_WILLNEED and
 * map in place. Each test point names the bug it catches:
 *
 *  1a-1h  MADV_WILLNEED reads a huge swap entry into the swap cache as one
 *         PMD-size folio that is not anonymous yet. When the entry is then
 *         split into PTE swap entries (partial mprotect, partial munmap,
 *         mremap of an unaligned part, MADV_NOHUGEPAGE, huge_swap = 0,
 *         userfaultfd, a fork child's split; swapoff), a 4 KiB fault (or
 *         swapoff's unuse_pte()) meets that folio: do_swap_page() WARNs,
 *         folio_add_new_anon_rmap() BUGs.
 *  1i     After MADV_WILLNEED a plain read brings the THPs back whole.
 *  2      A fault whose swapcache_prepare() fails because MADV_WILLNEED
 *         claimed the slots takes WILLNEED's folio for a diverged swap
 *         cache and splits the entry (MADV_WILLNEED and a reader started
 *         together on each THP, with a swept offset).
 *  3a-3b  After fork, parent and child each read the shared slots into a
 *         private 2 MiB copy; stock Linux reads them once, through the swap
 *         cache: the same PFNs, memory.current grows by 16 MiB, not 32.
 *  4a-4b  Map in place: a read fault that races another thread's map in
 *         place finds a present in-place PMD and promotes it (or, in a
 *         tight memcg, splits the entry): 4 threads read the same THPs.
 *  5a-5b  Map in place: MADV_WILLNEED is ignored on extents that would be
 *         (or are) mapped in place; it must read them into DRAM as THPs.
 *  6a-6b  Map in place: PmswapInPlace and stats/inplace_mapped_now count
 *         mappings, as Rss does (Documentation/admin-guide/mm/pmswap.rst,
 *         "Counters"): after fork, the same 8 MiB mapped by both processes
 *         counts twice, exactly, and once again after one of them exits.
 *  8      A THP that MADV_WILLNEED read into the swap cache is mapped whole
 *         by the next fault and stays in the swap cache, its slots holding
 *         the old data. After a write, MADV_FREE cleared its dirty bit but
 *         could not make it lazyfree (it is in the swap cache): reclaim
 *         then dropped it as a clean swap-cache folio, and the next read
 *         brought the old data back from the slots. Found by the fuzzer
 *         (seed 2, policy read). MADV_FREE must free the slots first, as
 *         it does for 4 KiB pages: after it, a page reads its last write
 *         or zeros, never an older write.
 *
 * Run it under each policy (inplace-policy.sh never / read / always) and
 * with swap on zram. It reads the policy itself: cases 4-6 apply only to
 * a pmem device under "read" or "always" and say so when they skip. Each
 * case fills a 4 MiB THP region (two THPs) unless stated, swaps it out with
 * MADV_PAGEOUT, checks that huge swap entries hold it (when they are on),
 * runs its case, verifies the data and checks that no swap count leaked.
 * A WARNING, BUG, Oops or "Bad page" line in the kernel log (/dev/kmsg)
 * while a case runs fails that case: some of the bugs only show there.
 * The races (2, 4) repeat in passes until they see the bug or reach a
 * pass or time limit (8 s for case 2, 8 s + 5 s for case 4); their windows
 * are microseconds wide, see "Races" below for the rates measured.
 *
 * Case 1 runs last and case 2 before it: on a kernel with the first bug
 * they may panic the guest, and the other cases have reported by then.
 * PMSWAP_REGRESS_ONLY="1a,3" (ids or prefixes, comma-separated) runs only
 * those test points, the others are reported as skipped: for debugging
 * one case per boot.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/swap.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "kselftest.h"
#include "pmswap_test.h"

#define SIZE		(4 * PT_MIB)
#define NR_PAGES	(SIZE / PT_PAGE_SIZE)
#define SHARE_SIZE	(16 * PT_MIB)
#define SHARE_THPS	(SHARE_SIZE / PT_PMD_SIZE)
#define KNOBS		"/sys/kernel/mm/pmswap/inplace/"
#define CG_SHARE	"pmswap-regress"
#define CG_TIGHT	"pmswap-regress-tight"

static int huge;	/* huge swap entries are on */
/* map-in-place policy: -1 no pmem device with map in place, 0 never, ... */
static int inplace;
static struct pt_inplace_dev dev;
static const char * const policy_names[] = { "never", "read", "always" };
static char skip_why[512];
static double wait_max = 5.0;	/* how long to wait for WILLNEED's read */

#define FAIL(...) do { ksft_print_msg(__VA_ARGS__); ret = -1; } while (0)
#define SKIP(...) do {							\
	snprintf(skip_why, sizeof(skip_why), __VA_ARGS__);		\
	return KSFT_SKIP;						\
} while (0)

static const char *policy_name(void)
{
	return inplace < 0 ? "no map in place" : policy_names[inplace];
}

/* Cases 4-6 need THPs mapped in place: pmem, policy read or always. */
static bool inplace_on(void)
{
	return huge && inplace > 0;
}

static const char *why_not_inplace(void)
{
	if (!huge)
		return "huge swap entries are off: no THP is mapped in place";
	if (inplace < 0)
		return "swap is not on a pmem device with map in place";
	return "policy never: nothing is mapped in place";
}

/* --- the kernel log: a case fails on any complaint logged meanwhile --- */

static int kmsg_fd = -1;

/* what fails a case when the kernel logs it while the case runs */
static const char * const kmsg_bad[] = {
	"WARNING:", "BUG:", "Oops", "Bad page", "kernel BUG",
	"Bad rss-counter", NULL
};

/* --- regions --- */

/* A THP region filled with @seed's pattern and swapped out whole. */
static char *swapped_region(size_t size, uint64_t seed)
{
	char *mem = pt_alloc_thp(size);
	long kb;

	if (!mem) {
		ksft_print_msg("mmap %zu bytes: %s\n", size, strerror(errno));
		return NULL;
	}
	pt_fill(mem, size, seed);
	kb = pt_smaps_kb(mem, "AnonHugePages");
	if (kb != (long)(size >> 10)) {
		ksft_print_msg("only %ld of %zu kB populated as THPs\n", kb, size >> 10);
		goto fail;
	}
	if (pt_pageout(mem, size)) {
		ksft_print_msg("MADV_PAGEOUT: %s\n", strerror(errno));
		goto fail;
	}
	kb = pt_smaps_kb(mem, huge ? "SwapPmdMapped" : "Swap");
	if (kb != (long)(size >> 10)) {
		ksft_print_msg("%s %ld kB after MADV_PAGEOUT, want %zu\n",
			       huge ? "SwapPmdMapped" : "Swap", kb, size >> 10);
		goto fail;
	}
	return mem;
fail:
	pt_free_thp(mem, size);
	return NULL;
}

static size_t resident_pages(const void *mem, size_t size)
{
	unsigned char vec[SHARE_SIZE / PT_PAGE_SIZE];
	size_t i, n = 0, nr = size / PT_PAGE_SIZE;

	if (nr > sizeof(vec) || mincore((void *)mem, size, vec))
		return 0;
	for (i = 0; i < nr; i++)
		n += vec[i] & 1;
	return n;
}

/*
 * MADV_WILLNEED, then wait until mincore() shows the whole range resident
 * (in the swap cache, or mapped). pmem and zram read synchronously; the
 * wait is a margin. Once a wait has run out, later ones are short: the
 * program must stay within its time.
 */
static size_t willneed_wait(char *mem, size_t size, double *waited)
{
	double t0 = pt_now();
	size_t n;

	if (madvise(mem, size, MADV_WILLNEED)) {
		ksft_print_msg("MADV_WILLNEED: %s\n", strerror(errno));
		return 0;
	}
	while ((n = resident_pages(mem, size)) < size / PT_PAGE_SIZE &&
	       pt_now() - t0 < wait_max)
		usleep(10000);
	*waited = pt_now() - t0;
	if (n < size / PT_PAGE_SIZE)
		wait_max = 0.5;
	return n;
}

/* A swapped 4 MiB region that MADV_WILLNEED has read back into memory. */
static char *willneed_region(uint64_t seed)
{
	char *mem = swapped_region(SIZE, seed);
	double waited;
	size_t n;

	if (!mem)
		return NULL;
	n = willneed_wait(mem, SIZE, &waited);
	if (n != NR_PAGES) {
		ksft_print_msg("MADV_WILLNEED read %zu of %lu pages ahead within %.1f s (policy %s): the state under test was not set up\n",
			       n, NR_PAGES, waited, policy_name());
		pt_free_thp(mem, SIZE);
		return NULL;
	}
	return mem;
}

static bool swap_held_ok(long held0, const char *what)
{
	long now = pt_swap_held_kb();

	if (now <= held0 + pt_swap_slot_cache_kb())
		return true;
	ksft_print_msg("%s: %ld kB of swap still held, %ld before: slots leaked\n",
		       what, now, held0);
	return false;
}

/* Sum of smaps field @name over the VMAs in [@p, @p + @size), in kB. */
static long smaps_range_kb(const void *p, size_t size, const char *name)
{
	uintptr_t a = (uintptr_t)p, start, end;
	size_t nlen = strlen(name);
	char line[512];
	bool in = false;
	long sum = 0;
	FILE *f;

	f = fopen("/proc/self/smaps", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			in = start < a + size && end > a;
			continue;
		}
		if (in && !strncmp(line, name, nlen) && line[nlen] == ':')
			sum += strtol(line + nlen + 1, NULL, 10);
	}
	fclose(f);
	return sum;
}

static int first_swap(char *dev_path, size_t len)
{
	char line[512], fmt[16];
	FILE *f = fopen("/proc/swaps", "r");
	int ret = -1;

	if (!f)
		return -1;
	snprintf(fmt, sizeof(fmt), "%%%zus", len - 1);
	if (fgets(line, sizeof(line), f) && fgets(line, sizeof(line), f) &&
	    sscanf(line, fmt, dev_path) == 1)
		ret = 0;
	fclose(f);
	return ret;
}

/*
 * A child that runs @fn(@arg, @report), sends the report, and then keeps
 * running (its mappings alive) until held_release(). The parent gets the
 * report (all bytes 0xff when the child died first).
 */
struct held_child {
	pid_t pid;
	int go;		/* closing it releases the child */
};

static int held_fork(struct held_child *c, int (*fn)(void *arg, void *report),
		     void *arg, void *report, size_t len)
{
	int rep[2], go[2];
	char *buf = report;
	size_t got = 0;
	ssize_t n;

	memset(report, 0xff, len);
	c->pid = -1;
	c->go = -1;
	if (pipe(rep))
		return -1;
	if (pipe(go)) {
		close(rep[0]);
		close(rep[1]);
		return -1;
	}
	fflush(stdout);
	c->pid = fork();
	if (c->pid < 0) {
		close(rep[0]);
		close(rep[1]);
		close(go[0]);
		close(go[1]);
		return -1;
	}
	if (!c->pid) {
		char b;

		close(rep[0]);
		close(go[1]);
		memset(report, 0, len);
		if (fn(arg, report))
			_exit(1);
		if (write(rep[1], report, len) != (ssize_t)len)
			_exit(2);
		while (read(go[0], &b, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(rep[1]);
	close(go[0]);
	c->go = go[1];
	while (got < len && (n = read(rep[0], buf + got, len - got)) > 0)
		got += n;
	close(rep[0]);
	if (got != len)
		memset(report, 0xff, len);
	return got == len ? 0 : -1;
}

/* Release the child; its exit status, or -1. */
static int held_release(struct held_child *c)
{
	int status;

	if (c->pid < 0)
		return -1;
	close(c->go);
	if (waitpid(c->pid, &status, 0) != c->pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* The pagemap entry of each 2 MiB of @mem: present PFN or swap entry. */
static int pagemap_thps(const char *mem, size_t nr, uint64_t *out)
{
	int fd = pt_pagemap_open();
	size_t i;

	if (fd < 0)
		return -1;
	for (i = 0; i < nr; i++)
		out[i] = pt_pagemap_entry(fd, mem + i * PT_PMD_SIZE);
	close(fd);
	return 0;
}

/* --- Case 1: MADV_WILLNEED's PMD-size folio meets a 4 KiB fault after a split --- */

#define SEED1	101

static int case_1a_mprotect(void)
{
	long held0 = pt_swap_held_kb();
	char *mem = willneed_region(SEED1);
	size_t bad;
	int ret = 0;

	if (!mem)
		return -1;
	if (mprotect(mem + PT_PAGE_SIZE, PT_PAGE_SIZE, PROT_READ))
		FAIL("mprotect: %s\n", strerror(errno));
	bad = pt_verify(mem, SIZE, SEED1);
	if (bad)
		FAIL("%zu pages wrong after a partial mprotect\n", bad);
	pt_free_thp(mem, SIZE);
	if (!swap_held_ok(held0, "partial mprotect"))
		ret = -1;
	return ret;
}

static int case_1b_munmap(void)
{
	long held0 = pt_swap_held_kb();
	char *mem = willneed_region(SEED1 + 1);
	size_t bad;
	int ret = 0;

	if (!mem)
		return -1;
	if (munmap(mem + PT_PAGE_SIZE, PT_PAGE_SIZE))
		FAIL("munmap: %s\n", strerror(errno));
	bad = pt_verify_range(mem, 0, PT_PAGE_SIZE, SEED1 + 1) +
	      pt_verify_range(mem, 2 * PT_PAGE_SIZE, SIZE - 2 * PT_PAGE_SIZE,
			      SEED1 + 1);
	if (bad)
		FAIL("%zu pages wrong around the unmapped page\n", bad);
	pt_free_thp(mem, SIZE);
	if (!swap_held_ok(held0, "partial munmap"))
		ret = -1;
	return ret;
}

static int case_1c_mremap(void)
{
	uint64_t seed = SEED1 + 2;
	long held0 = pt_swap_held_kb();
	char *mem, *area, *dst, *moved;
	size_t bad;
	int ret = 0;

	/* a free 8 MiB to move into, at 2 MiB + 4 KiB (unaligned) */
	area = mmap(NULL, 4 * PT_PMD_SIZE, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED)
		return -1;
	mem = willneed_region(seed);
	if (!mem) {
		munmap(area, 4 * PT_PMD_SIZE);
		return -1;
	}
	dst = (char *)(((uintptr_t)area + PT_PMD_SIZE - 1) & ~(PT_PMD_SIZE - 1)) +
	      PT_PAGE_SIZE;
	/* [1 MiB, 3 MiB): half of each THP, to an unaligned address */
	moved = mremap(mem + PT_MIB, PT_PMD_SIZE, PT_PMD_SIZE,
		       MREMAP_MAYMOVE | MREMAP_FIXED, dst);
	if (moved == MAP_FAILED) {
		FAIL("mremap: %s\n", strerror(errno));
		pt_free_thp(mem, SIZE);
		munmap(area, 4 * PT_PMD_SIZE);
		return ret;
	}
	bad = pt_verify_range(mem, 0, PT_MIB, seed) +
	      pt_verify_range(mem, 3 * PT_MIB, PT_MIB, seed) +
	      pt_verify_range(moved - PT_MIB, PT_MIB, PT_PMD_SIZE, seed);
	if (bad)
		FAIL("%zu pages wrong after moving an unaligned part\n", bad);
	pt_free_thp(mem, SIZE);
	munmap(area, 4 * PT_PMD_SIZE);
	if (!swap_held_ok(held0, "mremap"))
		ret = -1;
	return ret;
}

static int case_1d_nohugepage(void)
{
	long held0 = pt_swap_held_kb();
	char *mem = willneed_region(SEED1 + 3);
	size_t bad;
	int ret = 0;

	if (!mem)
		return -1;
	if (madvise(mem, SIZE, MADV_NOHUGEPAGE))
		FAIL("MADV_NOHUGEPAGE: %s\n", strerror(errno));
	bad = pt_verify(mem, SIZE, SEED1 + 3);
	if (bad)
		FAIL("%zu pages wrong after MADV_NOHUGEPAGE\n", bad);
	pt_free_thp(mem, SIZE);
	if (!swap_held_ok(held0, "MADV_NOHUGEPAGE"))
		ret = -1;
	return ret;
}

static int case_1e_knob_off(void)
{
	long held0 = pt_swap_held_kb();
	char *mem;
	size_t bad;
	int old, ret = 0;

	if (pt_huge_swap_mode() < 0)
		SKIP("no %s in this kernel", PT_HUGE_SWAP_KNOB);
	mem = willneed_region(SEED1 + 4);
	if (!mem)
		return -1;
	old = pt_huge_swap_set(0);
	if (old < 0)
		FAIL("cannot write %s\n", PT_HUGE_SWAP_KNOB);
	bad = pt_verify(mem, SIZE, SEED1 + 4);
	if (old >= 0 && pt_huge_swap_set(old) < 0)
		ksft_exit_fail_msg("cannot restore %s to %d\n", PT_HUGE_SWAP_KNOB, old);
	if (bad)
		FAIL("%zu pages wrong with huge_swap switched off\n", bad);
	pt_free_thp(mem, SIZE);
	if (!swap_held_ok(held0, "huge_swap off"))
		ret = -1;
	return ret;
}

static sigjmp_buf uffd_jmp;

static void uffd_sigbus(int sig)
{
	siglongjmp(uffd_jmp, 1);
}

static int case_1f_userfaultfd(void)
{
	struct uffdio_api api = { .api = UFFD_API, .features = UFFD_FEATURE_SIGBUS };
	struct uffdio_register reg = { 0 };
	struct sigaction sa = { .sa_handler = uffd_sigbus }, old_sa;
	long held0 = pt_swap_held_kb();
	volatile size_t bad = 0;
	char *mem;
	int uffd, ret = 0;

	uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0)
		SKIP("no userfaultfd: %s", strerror(errno));
	if (ioctl(uffd, UFFDIO_API, &api)) {
		close(uffd);
		SKIP("UFFDIO_API with UFFD_FEATURE_SIGBUS: %s", strerror(errno));
	}
	mem = willneed_region(SEED1 + 5);
	if (!mem) {
		close(uffd);
		return -1;
	}
	reg.range.start = (uintptr_t)mem;
	reg.range.len = SIZE;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg)) {
		FAIL("UFFDIO_REGISTER: %s\n", strerror(errno));
	} else {
		/*
		 * The PTEs are swap entries, not none: reading them raises no
		 * userfault. SIGBUS (UFFD_FEATURE_SIGBUS) would mean a page
		 * was taken for missing: its data lost.
		 */
		sigaction(SIGBUS, &sa, &old_sa);
		if (sigsetjmp(uffd_jmp, 1))
			FAIL("a read raised a userfault: a swapped page was treated as missing\n");
		else
			bad = pt_verify(mem, SIZE, SEED1 + 5);
		sigaction(SIGBUS, &old_sa, NULL);
		if (bad)
			FAIL("%zu pages wrong with userfaultfd registered\n", bad);
	}
	close(uffd);
	pt_free_thp(mem, SIZE);
	if (!swap_held_ok(held0, "userfaultfd"))
		ret = -1;
	return ret;
}

static char *fork_mem;

static int child_splits_and_reads(void *arg)
{
	if (mprotect(fork_mem + PT_PAGE_SIZE, PT_PAGE_SIZE, PROT_READ))
		return 2;
	return pt_verify(fork_mem, SIZE, *(uint64_t *)arg) ? 1 : 0;
}

static int case_1g_fork(void)
{
	uint64_t seed = SEED1 + 6;
	long held0 = pt_swap_held_kb();
	size_t bad;
	int rc, ret = 0;

	fork_mem = willneed_region(seed);
	if (!fork_mem)
		return -1;
	rc = pt_fork_run(child_splits_and_reads, &seed);
	if (rc)
		FAIL("child: %s (%d)\n", rc == 2 ? "mprotect failed" :
		     rc == 1 ? "data wrong after its split" : "died", rc);
	bad = pt_verify(fork_mem, SIZE, seed);
	if (bad)
		FAIL("parent: %zu pages wrong after the child's split and read\n", bad);
	pt_free_thp(fork_mem, SIZE);
	if (!swap_held_ok(held0, "fork"))
		ret = -1;
	return ret;
}

/*
 * swapoff meets both forms: the first THP's entry split by a partial
 * mprotect (unuse_pte() finds WILLNEED's folio for a PTE), the second a
 * huge entry with its folio in the swap cache.
 */
static int case_1h_swapoff(void)
{
	uint64_t seed = SEED1 + 7;
	char path[256];
	char *mem;
	size_t bad;
	long kb;
	int err, ret = 0;

	if (geteuid())
		SKIP("swapoff needs root");
	if (first_swap(path, sizeof(path)))
		SKIP("no swap device in /proc/swaps");
	mem = willneed_region(seed);
	if (!mem)
		return -1;
	if (mprotect(mem + PT_PAGE_SIZE, PT_PAGE_SIZE, PROT_READ))
		FAIL("mprotect: %s\n", strerror(errno));
	if (swapoff(path)) {
		err = errno;
		bad = pt_verify(mem, SIZE, seed);
		pt_free_thp(mem, SIZE);
		if (bad || ret) {
			ksft_print_msg("swapoff %s failed (%s), %zu pages wrong\n",
				       path, strerror(err), bad);
			return -1;
		}
		SKIP("swapoff %s not possible here: %s", path, strerror(err));
	}
	kb = smaps_range_kb(mem, SIZE, "Swap");
	if (kb)
		FAIL("%ld kB still in swap after swapoff\n", kb);
	bad = pt_verify(mem, SIZE, seed);
	if (bad)
		FAIL("%zu pages wrong after swapoff\n", bad);
	if (swapon(path, 0))
		ksft_exit_fail_msg("swapon %s again: %s\n", path, strerror(errno));
	/* the same device again: its sysfs directory is back */
	if (inplace >= 0 && pt_inplace_dev_find(&dev))
		FAIL("no in-place device after swapon %s\n", path);
	pt_free_thp(mem, SIZE);
	return ret;
}

static int case_1i_whole(void)
{
	long held0 = pt_swap_held_kb(), split0, anon, inpl;
	char *mem;
	size_t bad;
	int ret = 0;

	if (!huge)
		SKIP("huge swap entries are off: the THPs come back as 4 KiB pages by design");
	mem = willneed_region(SEED1 + 8);
	if (!mem)
		return -1;
	split0 = pt_vmstat("thp_split_swap_pmd");
	bad = pt_verify(mem, SIZE, SEED1 + 8);
	anon = pt_smaps_kb(mem, "AnonHugePages");
	inpl = pt_smaps_kb(mem, "PmswapInPlace");
	if (inpl < 0)
		inpl = 0;
	if (bad)
		FAIL("%zu pages wrong\n", bad);
	if (pt_vmstat("thp_split_swap_pmd") != split0)
		FAIL("the read split %ld huge swap entries\n",
		     pt_vmstat("thp_split_swap_pmd") - split0);
	/*
	 * Under never, or off pmem, the read-ahead THPs must be mapped as
	 * THPs. Under read/always a THP may be whole in place instead;
	 * case 5a asserts that WILLNEED leaves them in DRAM.
	 */
	if (inplace <= 0 && anon != (long)(SIZE >> 10))
		FAIL("AnonHugePages %ld kB after the read, want %lu\n", anon, SIZE >> 10);
	if (inplace > 0 && anon + inpl != (long)(SIZE >> 10))
		FAIL("AnonHugePages %ld + PmswapInPlace %ld kB after the read, want %lu\n",
		     anon, inpl, SIZE >> 10);
	pt_free_thp(mem, SIZE);
	if (!swap_held_ok(held0, "read after WILLNEED"))
		ret = -1;
	return ret;
}

/* --- Races: passes over one region, with threads that stay --- */

/*
 * The races of cases 2 and 4 have windows of microseconds, and the timing
 * under TCG depends on the host's load. Measured on f287e58 (2 vCPUs, busy
 * host): case 2 hit after 8 to 144 THP tries (about 25 ms each), case 4
 * after 0.2 to 3.5 s of passes (4b: 0.3 to 2.4 s). So each case repeats
 * its race in passes over one region - MADV_PAGEOUT, race, verify - until
 * it sees the bug, or until a pass limit or a time limit: a correct kernel
 * runs all of them.
 */
struct passes {
	char *mem;
	size_t size;
	uint64_t seed;
	int max, done;
	double deadline;
	pthread_barrier_t bar;
	/* thread 0 decides at the start of each pass */
	volatile int stop;
	long split0, prom0;
	const char *why;
	/* hand-shake of the two pinned threads of case 2 */
	volatile int ready, go;
	int bad;
};

static int ncpus;
static double loops_per_us;

/* Pin to the @n-th CPU this task may run on (threads 0 and 1 of a race). */
static void pin_nth_cpu(int n)
{
	cpu_set_t set;
	int cpu;

	if (ncpus < 2 || sched_getaffinity(0, sizeof(set), &set))
		return;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &set) || n--)
			continue;
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
		return;
	}
}

static void spin_until(volatile int *v, int want)
{
	while (__atomic_load_n(v, __ATOMIC_ACQUIRE) != want)
		if (ncpus < 2)
			sched_yield();
}

static void spin_us(double us)
{
	long i, n = us * loops_per_us;

	for (i = 0; i < n; i++)
		__asm__ __volatile__("" ::: "memory");
}

static void calibrate_spin(void)
{
	long i, n = 2000000;
	double t = pt_now();

	for (i = 0; i < n; i++)
		__asm__ __volatile__("" ::: "memory");
	t = pt_now() - t;
	loops_per_us = t > 0 ? n / (t * 1e6) : 100;
}

/*
 * Start of pass @pass, for every thread: thread 0 swaps the region out
 * again (from the second pass on) and decides whether to go on. Returns
 * false when the race is over.
 */
static bool pass_begin(struct passes *ps, int idx, int pass)
{
	if (idx == 0) {
		ps->done = pass;
		if (pt_vmstat("thp_split_swap_pmd") != ps->split0 ||
		    (ps->prom0 >= 0 &&
		     pt_stat_key(dev.stats, "inplace_promotions") != ps->prom0) ||
		    __atomic_load_n(&ps->bad, __ATOMIC_RELAXED)) {
			ps->why = "bug seen";
			ps->stop = 1;
		} else if (pass >= ps->max || pt_now() > ps->deadline) {
			ps->stop = 1;
		} else if (pass) {
			pt_pageout(ps->mem, ps->size);
			if (huge && pt_smaps_kb(ps->mem, "SwapPmdMapped") !=
				    (long)(ps->size >> 10))
				pt_pageout(ps->mem, ps->size);
			if (huge && pt_smaps_kb(ps->mem, "SwapPmdMapped") !=
				    (long)(ps->size >> 10)) {
				ps->why = "MADV_PAGEOUT did not make huge swap entries again";
				ps->stop = 1;
			}
		}
	}
	pthread_barrier_wait(&ps->bar);
	return !ps->stop;
}

static void pass_end(struct passes *ps)
{
	if (pt_verify(ps->mem, ps->size, ps->seed))
		__atomic_store_n(&ps->bad, 1, __ATOMIC_RELAXED);
	pthread_barrier_wait(&ps->bar);
}

/* --- Case 2: MADV_WILLNEED racing faults on the same entries --- */

#define SEED2		202
#define SIZE2		(16 * PT_MIB)
#define RACE2_ROUNDS	5
#define RACE2_PASSES	8
#define RACE2_SECONDS	8.0

/*
 * Per THP, thread 0 (MADV_WILLNEED) and thread 1 (reads every page),
 * pinned to the two CPUs, start together from a spin hand-shake, one of
 * them delayed by an offset swept over +-40 us: the fault's swap cache
 * lookup and its claim of the slots must enclose WILLNEED's claim. Threads
 * 2 and 3 read and verify every page at the end of each pass (on 2 vCPUs
 * they would only take the CPUs from the racing pair).
 */
static int willneed_race_thread(int idx, void *p)
{
	struct passes *ps = p;
	int pass, k, g, t = 0;
	double off;
	char *thp;

	if (idx < 2)
		pin_nth_cpu(idx);
	for (pass = 0; pass_begin(ps, idx, pass); pass++) {
		for (k = 0; idx < 2 && k < (int)(ps->size / PT_PMD_SIZE); k++, t++) {
			thp = ps->mem + k * PT_PMD_SIZE;
			off = -40.0 + (t * 7919 % 41) * 2.0;
			g = pass * 1000 + k + 1;
			if (idx == 1) {
				__atomic_store_n(&ps->ready, g, __ATOMIC_RELEASE);
				spin_until(&ps->go, g);
				if (off < 0)
					spin_us(-off);
				pt_touch_read(thp, PT_PMD_SIZE);
			} else {
				spin_until(&ps->ready, g);
				__atomic_store_n(&ps->go, g, __ATOMIC_RELEASE);
				if (off > 0)
					spin_us(off);
				madvise(thp, PT_PMD_SIZE, MADV_WILLNEED);
			}
		}
		/* threads 2 and 3 read only after the race */
		pthread_barrier_wait(&ps->bar);
		pass_end(ps);
	}
	return 0;
}

static int case_2_race(void)
{
	long held0 = pt_swap_held_kb(), fb0, splits;
	struct passes ps = { .size = SIZE2 };
	double t0 = pt_now();
	int i, tries = 0, ret = 0;

	ps.split0 = pt_vmstat("thp_split_swap_pmd");
	ps.prom0 = -1;
	fb0 = pt_vmstat("thp_swpin_pmd_fallback");
	ps.deadline = t0 + RACE2_SECONDS;
	for (i = 0; i < RACE2_ROUNDS && !ps.why && pt_now() < ps.deadline; i++) {
		ps.seed = SEED2 + i;
		ps.mem = swapped_region(ps.size, ps.seed);
		if (!ps.mem)
			return -1;
		ps.max = RACE2_PASSES;
		ps.stop = 0;
		ps.ready = 0;
		ps.go = 0;
		pthread_barrier_init(&ps.bar, NULL, 4);
		pt_threads_run(4, willneed_race_thread, &ps);
		pthread_barrier_destroy(&ps.bar);
		tries += ps.done * (ps.size / PT_PMD_SIZE);
		if (ps.bad || pt_verify(ps.mem, ps.size, ps.seed))
			FAIL("region %d: data wrong\n", i);
		pt_free_thp(ps.mem, ps.size);
		if (ret)
			break;
	}
	splits = pt_vmstat("thp_split_swap_pmd") - ps.split0;
	ksft_print_msg("WILLNEED vs faults: %d regions, %d THP tries in %.1f s: thp_split_swap_pmd +%ld, thp_swpin_pmd_fallback +%ld\n",
		       i, tries, pt_now() - t0, splits,
		       pt_vmstat("thp_swpin_pmd_fallback") - fb0);
	/* a fault may map in place while WILLNEED reads: never only */
	if (huge && inplace <= 0 && splits)
		FAIL("%ld huge swap entries split: a fault took WILLNEED's folio for a diverged swap cache\n",
		     splits);
	if (ps.why && strcmp(ps.why, "bug seen"))
		FAIL("%s\n", ps.why);
	if (!swap_held_ok(held0, "WILLNEED race"))
		ret = -1;
	return ret;
}

/* --- Case 3: after fork, the shared slots are read once --- */

#define SEED3	303

struct share_report {
	long bad, anon_kb, inplace_kb;
	uint64_t pm[SHARE_THPS];
};

static char *share_mem;

static int share_child(void *arg, void *report)
{
	struct share_report *r = report;

	r->bad = pt_verify(share_mem, SHARE_SIZE, SEED3);
	r->anon_kb = pt_smaps_kb(share_mem, "AnonHugePages");
	r->inplace_kb = pt_smaps_kb(share_mem, "PmswapInPlace");
	/* pagemap last: it turns an in-place mapping back into swap */
	return pagemap_thps(share_mem, SHARE_THPS, r->pm);
}

/* results of 3a and 3b, from one run; -2: not run yet */
static int share_ret[2] = { -2, -2 };

/*
 * Do parent and child map the same memory for each THP? The same present
 * PFN: one copy in DRAM. Under read/always both map the pmem in place, and
 * pagemap, which turns the mapping back into its swap entry, reports the
 * same swap entry for both: one copy on pmem (checked with smaps first).
 */
static bool same_copy(const struct share_report *c, const struct share_report *p,
		      int k)
{
	uint64_t a = c->pm[k], b = p->pm[k];

	if ((a & PT_PM_PRESENT) && (b & PT_PM_PRESENT))
		return (a & PT_PM_PFN_MASK) == (b & PT_PM_PFN_MASK) &&
		       (a & PT_PM_PFN_MASK);
	if ((a & PT_PM_SWAP) && (b & PT_PM_SWAP))
		return (a & PT_PM_PFN_MASK) == (b & PT_PM_PFN_MASK) &&
		       c->inplace_kb == (long)(SHARE_SIZE >> 10) &&
		       p->inplace_kb == (long)(SHARE_SIZE >> 10);
	return false;
}

static void case_3_run(void)
{
	struct share_report c, p = { 0 };
	struct held_child child;
	long held0, cur0 = -1, cur1 = -1;
	bool created, memcg, root = !geteuid();
	int k, rc, same = 0;

	share_ret[0] = -1;
	share_ret[1] = -1;
	created = !pt_memcg_create(CG_SHARE);
	memcg = created && !pt_memcg_enter(CG_SHARE);
	if (!memcg)
		ksft_print_msg("cannot create and enter memcg %s\n", CG_SHARE);
	held0 = pt_swap_held_kb();
	/* filled in the memcg: the swap-ins are charged to it */
	share_mem = swapped_region(SHARE_SIZE, SEED3);
	if (!share_mem)
		goto out;
	cur0 = pt_memcg_read_long(CG_SHARE, "memory.current");
	if (held_fork(&child, share_child, NULL, &c, sizeof(c))) {
		ksft_print_msg("child failed before its report\n");
		held_release(&child);
		pt_free_thp(share_mem, SHARE_SIZE);
		goto out;
	}
	/* the child still maps its copy */
	p.bad = pt_verify(share_mem, SHARE_SIZE, SEED3);
	p.anon_kb = pt_smaps_kb(share_mem, "AnonHugePages");
	p.inplace_kb = pt_smaps_kb(share_mem, "PmswapInPlace");
	cur1 = pt_memcg_read_long(CG_SHARE, "memory.current");
	pagemap_thps(share_mem, SHARE_THPS, p.pm);
	rc = held_release(&child);
	for (k = 0; k < (int)SHARE_THPS; k++)
		same += same_copy(&c, &p, k);
	ksft_print_msg("fork: child %ld bad, AnonHugePages %ld kB, in place %ld kB; parent %ld bad, %ld kB, %ld kB\n",
		       c.bad, c.anon_kb, c.inplace_kb, p.bad, p.anon_kb, p.inplace_kb);
	ksft_print_msg("first pages: child %#llx/%#llx, parent %#llx/%#llx; %d of %lu THPs one copy\n",
		       (unsigned long long)c.pm[0], (unsigned long long)c.pm[1],
		       (unsigned long long)p.pm[0], (unsigned long long)p.pm[1],
		       same, SHARE_THPS);
	if (memcg)
		ksft_print_msg("memcg: memory.current %ld -> %ld kB (+%ld kB, limit %lu kB)\n",
			       cur0 >> 10, cur1 >> 10, (cur1 - cur0) >> 10,
			       (SHARE_SIZE + SHARE_SIZE / 4) >> 10);
	pt_free_thp(share_mem, SHARE_SIZE);
	if (rc || c.bad || p.bad) {
		ksft_print_msg("data: child rc %d, %ld bad; parent %ld bad\n",
			       rc, c.bad, p.bad);
		goto out;
	}
	/* 3a: one copy per THP */
	share_ret[0] = !root ? KSFT_SKIP : same == (int)SHARE_THPS ? 0 : -1;
	/* 3b: memory.current grew by one copy (plus 1/4 slack), not two */
	share_ret[1] = !memcg ? -1 :
		       cur1 - cur0 <= (long)(SHARE_SIZE + SHARE_SIZE / 4) ? 0 : -1;
	if (!swap_held_ok(held0, "fork sharing")) {
		share_ret[0] = -1;
		share_ret[1] = -1;
	}
out:
	if (created)
		pt_memcg_destroy(CG_SHARE);
}

static int case_3a_pfns(void)
{
	case_3_run();
	if (share_ret[0] == KSFT_SKIP)
		SKIP("PFNs in /proc/self/pagemap need root (CAP_SYS_ADMIN)");
	return share_ret[0];
}

static int case_3b_memcg(void)
{
	/* measured by the run of 3a; run here when 3a was not selected */
	if (share_ret[1] == -2)
		case_3_run();
	return share_ret[1];
}

/* --- Case 4: racing reads of THPs mapped in place do not promote them --- */

#define SEED4		404
#define SIZE4		(16 * PT_MIB)
#define RACE4_PASSES	5000
#define RACE4_SECONDS	8.0
#define TIGHT_PASSES	5000
#define TIGHT_SECONDS	5.0

/*
 * All threads read every page from the start: they fault on the same THPs
 * together, and the ones that come second must find the mapping, or wait
 * for it, not promote it. MADV_PAGEOUT turns the in-place THPs back into
 * huge swap entries between passes, without I/O.
 */
static int inplace_race_thread(int idx, void *p)
{
	struct passes *ps = p;
	int pass;

	for (pass = 0; pass_begin(ps, idx, pass); pass++) {
		pt_touch_read(ps->mem, ps->size);
		pass_end(ps);
	}
	return 0;
}

static int inplace_race(struct passes *ps, int max, double seconds,
			const char *where)
{
	long inpl, prom, splits;
	double t0 = pt_now();
	int ret = 0;

	ps->split0 = pt_vmstat("thp_split_swap_pmd");
	ps->prom0 = pt_stat_key(dev.stats, "inplace_promotions");
	if (ps->prom0 < 0) {
		ksft_print_msg("no promotions in %s\n", dev.stats);
		return -1;
	}
	ps->max = max;
	ps->deadline = pt_now() + seconds;
	/* the first pass maps in place: nothing here, or nothing tested */
	pt_touch_read(ps->mem, PT_PAGE_SIZE);
	inpl = pt_smaps_kb(ps->mem, "PmswapInPlace");
	pt_pageout(ps->mem, ps->size);
	if (inpl <= 0) {
		ksft_print_msg("%s: a read does not map in place (PmswapInPlace %ld kB): the case tests nothing\n",
			       where, inpl);
		return -1;
	}
	pthread_barrier_init(&ps->bar, NULL, 4);
	pt_threads_run(4, inplace_race_thread, ps);
	pthread_barrier_destroy(&ps->bar);
	prom = pt_stat_key(dev.stats, "inplace_promotions") - ps->prom0;
	splits = pt_vmstat("thp_split_swap_pmd") - ps->split0;
	ksft_print_msg("%s: %d passes of 4 readers over %zu MiB in %.1f s: promotions +%ld, thp_split_swap_pmd +%ld\n",
		       where, ps->done, ps->size >> 20, pt_now() - t0, prom, splits);
	if (ps->bad || pt_verify(ps->mem, ps->size, ps->seed))
		FAIL("%s: data wrong\n", where);
	if (prom || splits)
		FAIL("%s: racing reads promoted %ld and split %ld THPs mapped in place\n",
		     where, prom, splits);
	if (ps->why && strcmp(ps->why, "bug seen"))
		FAIL("%s: %s\n", where, ps->why);
	return ret;
}

static int case_4a_race(void)
{
	struct passes ps = { .size = SIZE4, .seed = SEED4 };
	long held0 = pt_swap_held_kb();
	int ret;

	if (!inplace_on())
		SKIP("%s", why_not_inplace());
	ps.mem = swapped_region(ps.size, ps.seed);
	if (!ps.mem)
		return -1;
	ret = inplace_race(&ps, RACE4_PASSES, RACE4_SECONDS, "in place");
	pt_free_thp(ps.mem, ps.size);
	if (!swap_held_ok(held0, "in-place race"))
		ret = -1;
	return ret;
}

static int case_4b_tight(void)
{
	struct passes ps = { .size = SIZE4, .seed = SEED4 + 1 };
	long held0 = pt_swap_held_kb(), cur;
	char high[32];
	int ret = 0;

	if (!inplace_on())
		SKIP("%s", why_not_inplace());
	/* filled outside: its charge is not the tight memcg's */
	ps.mem = swapped_region(ps.size, ps.seed);
	if (!ps.mem)
		return -1;
	if (pt_memcg_create(CG_TIGHT) || pt_memcg_enter(CG_TIGHT)) {
		ksft_print_msg("cannot create and enter memcg %s\n", CG_TIGHT);
		pt_memcg_destroy(CG_TIGHT);
		pt_free_thp(ps.mem, ps.size);
		return -1;
	}
	cur = pt_memcg_read_long(CG_TIGHT, "memory.current");
	snprintf(high, sizeof(high), "%ld", cur + (long)PT_MIB);
	if (cur < 0 || pt_memcg_set(CG_TIGHT, "memory.high", high)) {
		FAIL("cannot set memory.high to %s\n", high);
	} else {
		ksft_print_msg("memcg %s: memory.high %ld kB\n", CG_TIGHT,
			       (cur + (long)PT_MIB) >> 10);
		ret = inplace_race(&ps, TIGHT_PASSES, TIGHT_SECONDS, "tight memcg");
	}
	pt_memcg_destroy(CG_TIGHT);
	pt_free_thp(ps.mem, ps.size);
	if (!swap_held_ok(held0, "in-place race, tight memcg"))
		ret = -1;
	return ret;
}

/* --- Case 5: MADV_WILLNEED on extents that would be, or are, mapped in place --- */

#define SEED5	505

static int case_5a_willneed(void)
{
	long held0 = pt_swap_held_kb(), split0, anon, inpl;
	double waited;
	char *mem;
	size_t n;
	int ret = 0;

	if (!inplace_on())
		SKIP("%s", why_not_inplace());
	mem = swapped_region(SIZE, SEED5);
	if (!mem)
		return -1;
	split0 = pt_vmstat("thp_split_swap_pmd");
	n = willneed_wait(mem, SIZE, &waited);
	if (n != NR_PAGES)
		FAIL("MADV_WILLNEED: %zu of %lu pages resident within %.1f s\n",
		     n, NR_PAGES, waited);
	if (pt_verify(mem, SIZE, SEED5))
		FAIL("data wrong\n");
	anon = pt_smaps_kb(mem, "AnonHugePages");
	inpl = pt_smaps_kb(mem, "PmswapInPlace");
	ksft_print_msg("WILLNEED, read: AnonHugePages %ld kB, PmswapInPlace %ld kB\n",
		       anon, inpl);
	if (anon != (long)(SIZE >> 10) || inpl != 0)
		FAIL("read ahead THPs not in DRAM\n");
	if (pt_vmstat("thp_split_swap_pmd") != split0)
		FAIL("%ld entries split\n", pt_vmstat("thp_split_swap_pmd") - split0);
	pt_free_thp(mem, SIZE);
	if (!swap_held_ok(held0, "WILLNEED in place"))
		ret = -1;
	return ret;
}

static int case_5b_willneed_mapped(void)
{
	long held0 = pt_swap_held_kb(), anon, inpl;
	char *mem;
	int ret = 0;

	if (!inplace_on())
		SKIP("%s", why_not_inplace());
	mem = swapped_region(SIZE, SEED5 + 1);
	if (!mem)
		return -1;
	pt_touch_read(mem, SIZE);
	inpl = pt_smaps_kb(mem, "PmswapInPlace");
	if (inpl != (long)(SIZE >> 10)) {
		FAIL("PmswapInPlace %ld kB after the first read: not mapped in place\n", inpl);
		pt_free_thp(mem, SIZE);
		return ret;
	}
	if (madvise(mem, SIZE, MADV_WILLNEED))
		FAIL("MADV_WILLNEED: %s\n", strerror(errno));
	if (pt_verify(mem, SIZE, SEED5 + 1))
		FAIL("data wrong\n");
	anon = pt_smaps_kb(mem, "AnonHugePages");
	inpl = pt_smaps_kb(mem, "PmswapInPlace");
	ksft_print_msg("read, WILLNEED, read: AnonHugePages %ld kB, PmswapInPlace %ld kB\n",
		       anon, inpl);
	if (anon != (long)(SIZE >> 10) || inpl != 0)
		FAIL("WILLNEED left the in-place THPs where they were\n");
	pt_free_thp(mem, SIZE);
	if (!swap_held_ok(held0, "WILLNEED on in-place THPs"))
		ret = -1;
	return ret;
}

/*
 * --- Case 6: in-place accounting counts mappings, exactly ---
 * The documented meaning (per mapping, like Rss): two processes mapping the
 * same 8 MiB count 16 MiB; the review found the counts undocumented, and
 * this pins what the documentation now says.
 */

#define SEED6	606
#define SIZE6	(8 * PT_MIB)

struct inplace_report {
	long bad, inplace_kb;
};

static char *acct_mem;

static int acct_child(void *arg, void *report)
{
	struct inplace_report *r = report;

	r->bad = pt_verify(acct_mem, SIZE6, SEED6);
	r->inplace_kb = pt_smaps_kb(acct_mem, "PmswapInPlace");
	return 0;
}

/* results of 6a and 6b, from one run; -2: not run yet */
static int acct_ret[2] = { -2, -2 };

static void case_6_run(void)
{
	struct inplace_report c;
	struct held_child child;
	long held0 = pt_swap_held_kb(), m0, n0, m1, n1, m2, n2, inpl, bad;
	int rc;

	acct_ret[0] = -1;
	acct_ret[1] = -1;
	acct_mem = swapped_region(SIZE6, SEED6);
	if (!acct_mem)
		return;
	m0 = pt_meminfo_kb("PmswapInPlace");
	n0 = pt_stat_key(dev.stats, "inplace_mapped_now");
	if (held_fork(&child, acct_child, NULL, &c, sizeof(c))) {
		ksft_print_msg("child failed before its report\n");
		held_release(&child);
		pt_free_thp(acct_mem, SIZE6);
		return;
	}
	bad = pt_verify(acct_mem, SIZE6, SEED6);
	inpl = pt_smaps_kb(acct_mem, "PmswapInPlace");
	m1 = pt_meminfo_kb("PmswapInPlace");
	n1 = pt_stat_key(dev.stats, "inplace_mapped_now");
	rc = held_release(&child);
	/* the child is gone: only the parent's mappings count */
	m2 = pt_meminfo_kb("PmswapInPlace");
	n2 = pt_stat_key(dev.stats, "inplace_mapped_now");
	pt_free_thp(acct_mem, SIZE6);
	ksft_print_msg("child: %ld bad, %ld kB in place; parent: %ld bad, %ld kB in place; meminfo PmswapInPlace +%ld kB, mapped_now +%ld; after the child: +%ld kB, +%ld\n",
		       c.bad, c.inplace_kb, bad, inpl, m1 - m0, n1 - n0,
		       m2 - m0, n2 - n0);
	if (rc || c.bad || bad) {
		ksft_print_msg("data wrong or child failed (rc %d)\n", rc);
		return;
	}
	if (c.inplace_kb != (long)(SIZE6 >> 10) || inpl != (long)(SIZE6 >> 10)) {
		ksft_print_msg("not all mapped in place in both: the case tests nothing\n");
		return;
	}
	acct_ret[0] = m1 - m0 == 2 * (long)(SIZE6 >> 10) &&
		      m2 - m0 == (long)(SIZE6 >> 10) ? 0 : -1;
	acct_ret[1] = n1 - n0 == 2 * (long)(SIZE6 / PT_PMD_SIZE) &&
		      n2 - n0 == (long)(SIZE6 / PT_PMD_SIZE) ? 0 : -1;
	if (!swap_held_ok(held0, "in-place accounting")) {
		acct_ret[0] = -1;
		acct_ret[1] = -1;
	}
}

static int case_6a_meminfo(void)
{
	if (!inplace_on())
		SKIP("%s", why_not_inplace());
	case_6_run();
	return acct_ret[0];
}

static int case_6b_mapped_now(void)
{
	if (!inplace_on())
		SKIP("%s", why_not_inplace());
	if (acct_ret[1] == -2)
		case_6_run();
	return acct_ret[1];
}

/*
 * --- Case 8: MADV_FREE of a THP in the swap cache ---
 */

#define SEED8	808

static int case_8_free_swapcache(void)
{
	long held0 = pt_swap_held_kb(), cached0, cached1, anon;
	size_t off, old = 0, zero = 0, new = 0, other = 0;
	char *mem = willneed_region(SEED8);
	int ret = 0;

	if (!mem)
		return -1;
	/* the read fault maps WILLNEED's folio, which stays in the swap cache */
	cached0 = pt_meminfo_kb("SwapCached");
	pt_touch_read(mem, SIZE);
	anon = pt_smaps_kb(mem, "AnonHugePages");
	cached1 = pt_meminfo_kb("SwapCached");
	pt_fill(mem, SIZE, SEED8 + 1);
	if (madvise(mem, SIZE, MADV_FREE))
		FAIL("MADV_FREE: %s\n", strerror(errno));
	if (pt_pageout(mem, SIZE))
		FAIL("MADV_PAGEOUT: %s\n", strerror(errno));
	for (off = 0; off < SIZE; off += PT_PAGE_SIZE) {
		const uint64_t *w = (const uint64_t *)(mem + off);

		if (!pt_verify_range(mem, off, PT_PAGE_SIZE, SEED8 + 1))
			new++;
		else if (!pt_verify_range(mem, off, PT_PAGE_SIZE, SEED8))
			old++;
		else if (w[0] == 0 && w[64] == 0)
			zero++;
		else
			other++;
	}
	ksft_print_msg("WILLNEED, read (AnonHugePages %ld kB, SwapCached %ld -> %ld kB), write, MADV_FREE, MADV_PAGEOUT: %zu pages new, %zu zero, %zu old, %zu other\n",
		       anon, cached0, cached1, new, zero, old, other);
	if (old || other)
		FAIL("%zu pages read an older write (%zu other): MADV_FREE left a clean folio in the swap cache\n",
		     old, other);
	pt_free_thp(mem, SIZE);
	if (!swap_held_ok(held0, "MADV_FREE of a swap-cache THP"))
		ret = -1;
	return ret;
}

/* ====================================================================== */

static const struct {
	const char *id;
	const char *name;
	int (*fn)(void);
} cases[] = {
	{ "3a", "fork: parent and child read the shared slots into one copy (same PFNs)",
	  case_3a_pfns },
	{ "3b", "fork: memory.current grows by one copy of 16 MiB (<= 20 MiB), not two",
	  case_3b_memcg },
	{ "4a", "4 threads read THPs mapped in place, passes for 8 s: 0 promotions, 0 splits",
	  case_4a_race },
	{ "4b", "the same in a memcg with memory.high = current + 1 MiB, 5 s: 0 promotions, 0 splits",
	  case_4b_tight },
	{ "5a", "MADV_WILLNEED on pmem in place: read ahead, then THPs in DRAM",
	  case_5a_willneed },
	{ "5b", "MADV_WILLNEED on THPs mapped in place: THPs in DRAM after the next read",
	  case_5b_willneed_mapped },
	{ "6a", "fork, both map 8 MiB in place: meminfo PmswapInPlace counts per mapping (+16 MiB, +8 MiB after the child)",
	  case_6a_meminfo },
	{ "6b", "fork, both map 8 MiB in place: stats/inplace_mapped_now counts per mapping (+8, +4 after the child)",
	  case_6b_mapped_now },
	{ "8", "WILLNEED, read, write, MADV_FREE, MADV_PAGEOUT: pages read the last write or zeros, never an older one",
	  case_8_free_swapcache },
	{ "2", "MADV_WILLNEED racing faults on 5 regions, passes for 8 s: data intact, no split",
	  case_2_race },
	{ "1a", "WILLNEED, partial mprotect, read: data intact",
	  case_1a_mprotect },
	{ "1b", "WILLNEED, munmap of one 4 KiB page, read the rest: data intact",
	  case_1b_munmap },
	{ "1c", "WILLNEED, mremap of an unaligned part to an unaligned address: data intact",
	  case_1c_mremap },
	{ "1d", "WILLNEED, MADV_NOHUGEPAGE, read: data intact",
	  case_1d_nohugepage },
	{ "1e", "WILLNEED, huge_swap = 0, read: data intact",
	  case_1e_knob_off },
	{ "1f", "WILLNEED, userfaultfd MISSING registered, read: data intact, no userfault",
	  case_1f_userfaultfd },
	{ "1g", "WILLNEED, fork, child splits and reads, then parent reads: data intact",
	  case_1g_fork },
	{ "1h", "WILLNEED, partial mprotect of one THP, swapoff, swapon: data intact",
	  case_1h_swapoff },
	{ "1i", "WILLNEED, then a plain read: THPs back whole, no split",
	  case_1i_whole },
};

static bool selected(const char *id)
{
	const char *only = getenv("PMSWAP_REGRESS_ONLY");
	char buf[256], *tok, *save;

	if (!only || !*only)
		return true;
	snprintf(buf, sizeof(buf), "%s", only);
	for (tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save))
		if (!strncmp(id, tok, strlen(tok)))
			return true;
	return false;
}

static long threshold0 = -1;

static void restore_knobs(void)
{
	char buf[32];

	if (threshold0 > 0) {
		snprintf(buf, sizeof(buf), "%ld", threshold0);
		pt_write_str(KNOBS "promote_threshold", buf);
	}
}

int main(void)
{
	char what[64];
	int mode, ret;
	size_t i;

	ksft_print_header();
	pt_now();	/* fault the vDSO data page in now, not in a case */
	if (!pt_swap_active())
		ksft_exit_fail_msg("no swap device is active\n");
	mode = pt_huge_swap_mode();
	huge = mode > 0;
	inplace = pt_inplace_policy();
	if (inplace >= 0 && pt_inplace_dev_find(&dev))
		inplace = -1;
	if (inplace < 0 && pt_swap_on_pmem() && mode >= 0)
		ksft_print_msg("swap is on pmem, but no map-in-place device found\n");
	ksft_print_msg("huge swap entries: %s, swap on %s, map in place: %s\n",
		       mode < 0 ? "not in this kernel" : huge ? "on" : "off",
		       pt_swap_on_pmem() ? "pmem" : "another device", policy_name());
	/*
	 * The scanner promotes an in-place extent it finds accessed in
	 * promote_threshold scans in a row: keep it out of cases 4-6, which
	 * count promotions of their own.
	 */
	if (inplace >= 0) {
		threshold0 = pt_read_long(KNOBS "promote_threshold");
		if (threshold0 > 0 && !pt_write_str(KNOBS "promote_threshold", "255"))
			atexit(restore_knobs);
		else
			threshold0 = -1;
	}
	ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	calibrate_spin();
	kmsg_fd = pt_kmsg_open();
	if (kmsg_fd < 0)
		ksft_print_msg("no /dev/kmsg (%s): kernel warnings go unseen here\n",
			       strerror(errno));

	ksft_set_plan(ARRAY_SIZE(cases));
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		if (!selected(cases[i].id)) {
			ksft_test_result_skip("%s: %s (not in PMSWAP_REGRESS_ONLY)\n",
					      cases[i].id, cases[i].name);
			continue;
		}
		skip_why[0] = 0;
		pt_kmsg_skip(kmsg_fd);
		ret = cases[i].fn();
		if (pt_kmsg_grep(kmsg_fd, kmsg_bad, 4)) {
			ksft_print_msg("%s: the kernel complained (above)\n", cases[i].id);
			ret = -1;
		}
		snprintf(what, sizeof(what), "%s entries, %s", huge ? "huge" : "PTE",
			 policy_name());
		if (ret == KSFT_SKIP)
			ksft_test_result_skip("%s: %s (%s): %s\n", cases[i].id,
					      cases[i].name, what, skip_why);
		else
			ksft_test_result(ret == 0, "%s: %s (%s)\n", cases[i].id,
					 cases[i].name, what);
	}
	ksft_finished();
}
