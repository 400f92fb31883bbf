/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers for the pmswap guest tests: THP-aligned memory, reclaim
 * triggers, readers for pagemap/smaps/vmstat/THP stats, data patterns and
 * process helpers. Tests print TAP through the kernel's kselftest.h.
 */
#ifndef PMSWAP_TEST_H
#define PMSWAP_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PT_PAGE_SIZE	4096UL
#define PT_PMD_SIZE	(2UL << 20)
#define PT_PMD_PAGES	(PT_PMD_SIZE / PT_PAGE_SIZE)
#define PT_MIB		(1UL << 20)

/* --- memory --- */
/* Anonymous private mapping of @size bytes aligned to 2 MiB, MADV_HUGEPAGE. */
void *pt_alloc_thp(size_t size);
void pt_free_thp(void *p, size_t size);
/* Touch every 4 KiB page for writing (populates THPs on a THP VMA). */
void pt_touch_write(void *p, size_t size);
/* Read one byte of every 4 KiB page; returns a checksum so it is not elided. */
uint64_t pt_touch_read(const void *p, size_t size);
int pt_pageout(void *p, size_t size);
/* pin to one CPU, so that MADV_PAGEOUT finds every 4 KiB page: the CPU */
int pt_pin_cpu(void);
/*
 * A region of 4 KiB pages only: MADV_NOHUGEPAGE, and a PROT_NONE guard
 * page after it so that it never merges with the next mapping (smaps
 * counts whole VMAs). NULL on failure.
 */
void *pt_alloc_small(size_t size);
void pt_free_small(void *p, size_t size);
/*
 * Fill @p with @seed's pattern and swap it out: a THP region as huge swap
 * entries (pt_alloc_thp()), a pt_alloc_small() region page by page, asking
 * again for pages MADV_PAGEOUT could not isolate yet (still in a per-CPU
 * LRU batch). Return: the kB now in swap entries ("Swap" in smaps), or -1
 * if MADV_PAGEOUT failed.
 */
long pt_swap_out_filled(void *p, size_t size, uint64_t seed);

/*
 * The two levels of mapping in place: a THP's 2 MiB extent by one PMD,
 * 4 KiB slots by PTEs. What a test reads and allocates differs by level.
 */
struct pt_level {
	const char *name;	/* "PMD", "PTE" */
	size_t unit;		/* bytes per map, promote or revert event */
	const char *map;	/* vmstat events */
	const char *promote;
	const char *revert;
	const char *now;	/* stats/ file: units mapped in place now */
	const char *swapped;	/* smaps: what a swapped-out region is in */
	const char *dram;	/* smaps: what it is in once back in DRAM */
	bool exact;		/* vmstat deltas exact, or lower bounds (other
				 * processes' small pages move too) */
};
extern const struct pt_level pt_level_pmd, pt_level_pte;
/* pt_alloc_thp() or pt_alloc_small(), by level; NULL on failure */
void *pt_level_alloc(const struct pt_level *l, size_t size);
void pt_level_free(const struct pt_level *l, void *p, size_t size);
/*
 * A region at level @l filled with @seed's pattern and swapped out
 * (pt_swap_out_filled()); says so on stdout, as a TAP comment, when not
 * all of it went to @l->swapped. NULL if mmap or MADV_PAGEOUT failed.
 */
void *pt_level_swapped(const struct pt_level *l, size_t size, uint64_t seed);
/* kB of @p's VMA mapped in place (smaps PmswapInPlace) */
long pt_inplace_kb(const void *p);

/* --- data patterns --- */
void pt_fill(void *p, size_t size, uint64_t seed);
/* Number of 4 KiB pages whose content differs from pt_fill(seed). */
size_t pt_verify(const void *p, size_t size, uint64_t seed);
/* The same for [base + off, base + off + len) of a region filled at base. */
size_t pt_verify_range(const void *base, size_t off, size_t len, uint64_t seed);
/*
 * Every 64-bit word of every page (a full-page check): pt_verify() and
 * pt_verify_range() accept what pt_fill_full() wrote, not the reverse.
 */
void pt_fill_full(void *p, size_t size, uint64_t seed);
/*
 * Like pt_fill_full() in the first half of each page, zeros in the second
 * (but for pt_fill()'s words): data that compresses about 2:1 (zram with
 * lz4 or zstd), not the near-zero pages of pt_fill(). pt_verify() accepts it.
 */
void pt_fill_compressible(void *p, size_t size, uint64_t seed);
size_t pt_verify_full(const void *p, size_t size, uint64_t seed);

/* --- /proc and /sys readers; -1 when the value cannot be read --- */
long pt_vmstat(const char *name);
long pt_meminfo_kb(const char *name);
/*
 * Field @name (in kB) of the one VMA that contains @p, from smaps; -1 when
 * no VMA contains @p or it has no such field (e.g. SwapPmdMapped on stock).
 * Callers that need a range spanning several VMAs sum the VMAs themselves.
 */
long pt_smaps_kb(const void *p, const char *name);
long pt_thp_size_stat(unsigned long size_kb, const char *name);
int pt_read_str(const char *path, char *buf, size_t len);
long pt_read_long(const char *path);
int pt_write_str(const char *path, const char *val);
bool pt_path_exists(const char *path);
/* The number in the one-value file @dir/@key (a stats/ directory), -1 if none. */
long pt_stat_key(const char *dir, const char *key);
/* CLOCK_MONOTONIC, in seconds. */
double pt_now(void);

/* --- pagemap --- */
#define PT_PM_PRESENT		(1ULL << 63)
#define PT_PM_SWAP		(1ULL << 62)
#define PT_PM_FILE		(1ULL << 61)
#define PT_PM_EXCLUSIVE		(1ULL << 56)
#define PT_PM_SOFT_DIRTY	(1ULL << 55)
#define PT_PM_PFN_MASK		((1ULL << 55) - 1)
#define PT_PM_SWP_TYPE(e)	((e) & 0x1f)
#define PT_PM_SWP_OFFSET(e)	(((e) & PT_PM_PFN_MASK) >> 5)
int pt_pagemap_open(void);
uint64_t pt_pagemap_entry(int fd, const void *addr);
/* Read @n consecutive entries starting at @addr into @out; 0 on success. */
int pt_pagemap_range(int fd, const void *addr, size_t n, uint64_t *out);

/* --- fault counts of this process --- */
struct pt_faults {
	long minor;
	long major;
};
void pt_faults_now(struct pt_faults *f);
long pt_faults_since(const struct pt_faults *before, long *major);

/* --- memcg v2 --- */
/* Create /sys/fs/cgroup/@name with the memory controller; 0 on success. */
int pt_memcg_create(const char *name);
int pt_memcg_set(const char *name, const char *file, const char *val);
long pt_memcg_read_long(const char *name, const char *file);
/* Read key @key from a flat-keyed file such as memory.stat. */
long pt_memcg_stat(const char *name, const char *file, const char *key);
int pt_memcg_enter(const char *name);
int pt_memcg_destroy(const char *name);

/* --- processes and threads --- */
/* Run @fn in a child; returns its exit status, or -1. */
int pt_fork_run(int (*fn)(void *arg), void *arg);
/*
 * Run @fn(@arg, fd) in a child that may write a report of up to @len bytes
 * to fd before it exits or is killed (the child's memory is its own). The
 * parent reads it into @report (all bytes 0xff when the child wrote less)
 * and returns the child's wait status, or -1.
 */
int pt_fork_report(int (*fn)(void *arg, int fd), void *arg, void *report,
		   size_t len);
/* Run @fn in @n threads at once (released together); 0 when all return 0. */
int pt_threads_run(int n, int (*fn)(int idx, void *arg), void *arg);

/* --- swap devices --- */
/* Sum of "Used" in /proc/swaps, in kB. */
long pt_swap_used_kb(void);
/*
 * Swap held by swap counts, in kB: used minus the slots that only the swap
 * cache holds (SwapCached), which reclaim frees later. A leaked swap count
 * shows here; a folio left in the swap cache does not.
 */
long pt_swap_held_kb(void);
/*
 * What the per-CPU swap slot caches can hold (64 slots a CPU): /proc/swaps
 * counts those as used, so a count may differ by up to this much without
 * a leak.
 */
long pt_swap_slot_cache_kb(void);
bool pt_swap_active(void);
/* Swap is active on /dev/pmem* or /dev/daxswap* (per /proc/swaps). */
bool pt_swap_on_pmem(void);

/* A snapshot of the vmstat counters that swap tests look at. */
struct pt_swapstat {
	long pswpin, pswpout;
	long thp_swpout, thp_swpout_fallback;
	long thp_split_pmd, thp_split_page, thp_fault_alloc;
	long pgmajfault;
};
void pt_swapstat_now(struct pt_swapstat *s);
void pt_swapstat_delta(const struct pt_swapstat *a, const struct pt_swapstat *b,
		       struct pt_swapstat *d);
void pt_swapstat_print(const char *what, const struct pt_swapstat *d);

/* --- pmswap switches --- */
#define PT_HUGE_SWAP_KNOB "/sys/kernel/mm/pmswap/huge_swap"
/* -1 on a kernel without huge swap entries (stock), else the knob 0/1. */
int pt_huge_swap_mode(void);
/* Set the knob; returns the previous value, or -1. */
int pt_huge_swap_set(int on);

/*
 * Map-in-place policy of the (first) pmem swap device: 0 never, 1 read,
 * 2 always; -1 when swap is not on a pmem device with map in place.
 */
int pt_inplace_policy(void);

/* The (first) pmem swap device with map in place, and its sysfs files. */
struct pt_inplace_dev {
	char dir[300];		/* /sys/kernel/mm/pmswap/pmem/<disk> */
	char dev[64];		/* /dev/<disk> */
	char policy[320];	/* <dir>/inplace */
	char stats[340];	/* <dir>/stats/: one counter per file */
};
/* 0 when found; -1 when swap is not on a pmem device with map in place. */
int pt_inplace_dev_find(struct pt_inplace_dev *d);

/*
 * The kernel log from now on (/dev/kmsg, non-blocking): an fd, or -1.
 * pt_kmsg_grep() reads the records written since the open or the last
 * call, counts those containing any of the NULL-terminated @pat, and
 * prints the first @show of them. pt_kmsg_skip() drops what is pending.
 */
int pt_kmsg_open(void);
int pt_kmsg_grep(int fd, const char *const *pat, int show);
void pt_kmsg_skip(int fd);

/*
 * Race windows (CONFIG_PMSWAP_RACE_WINDOWS, mm/pmswap/pmswap.c): a named point
 * where a kernel path sleeps when armed, so that a test can run the
 * racing path inside the window every time. Root only.
 */
#define PT_RACE_DIR "/sys/kernel/debug/pmswap/race"
/* Mounts debugfs if needed; false on a kernel without race windows. */
bool pt_race_available(void);
/* The number of passes of window @name that slept so far; -1 on error. */
long pt_race_hits(const char *name);
/*
 * Hold the next pass through @name of a task of process @tgid (0: any)
 * for up to @delay_ms; 0 on success.
 */
int pt_race_arm(const char *name, unsigned int delay_ms, int tgid);
/* Wait up to @secs for a pass to sleep in @name (hits above @hits0). */
bool pt_race_wait(const char *name, long hits0, double secs);
/* Disarm @name and end a sleep in it. */
void pt_race_release(const char *name);

#endif /* PMSWAP_TEST_H */
