/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmswap tool: what its commands share (pmswap.c: setup, status, off;
 * run.c: run; persist.c: setup/off --persist).
 */
#ifndef PMSWAP_TOOL_H
#define PMSWAP_TOOL_H

#include <stdbool.h>
#include <stddef.h>

enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,		/* an operation failed (libndctl, mkswap, swapon, swapoff, cgroup) */
	EXIT_USAGE = 2,		/* wrong arguments */
	EXIT_NOTFOUND = 3,	/* no such region, namespace or device; nothing to do */
	EXIT_REFUSED = 4,	/* target busy or holds data; see --force */
	EXIT_PERM = 5,		/* not root */
};

#define SYS_PMEM	"/sys/kernel/mm/pmswap/pmem"

void __attribute__((format(printf, 1, 2))) err(const char *fmt, ...);
/* the file's content, trailing white space cut; 0, or -1 if unreadable */
int read_file(const char *path, char *buf, size_t len);
/* the value of "key N" in a key-value file such as /proc/vmstat; -1 if absent */
long kv_get(const char *path, const char *key);
/* "512M", "1G", "4096": bytes; 0, or -1 if not a size (0 is not one) */
int parse_size(const char *s, unsigned long long *out);
/* a map-in-place policy name (never, read, always)? If not, says so */
bool policy_ok(const char *policy);

/* the vmstat counters status and run report, in that order */
extern const char *const pmswap_vm_keys[];
extern const size_t pmswap_nr_vm_keys;

int cmd_run(int argc, char **argv);

/* persist.c: write and enable, or remove, pmswap.service */
int persist_write(const char *id, int prio, const char *policy);
int persist_remove(void);

#endif
