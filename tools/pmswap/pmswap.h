/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmswap tool: what its commands share. One file per command (setup.c,
 * status.c, off.c, run.c), each with its own option table; pmswap.c holds
 * the command table and the option parser, util.c and namespace.c the
 * helpers, persist.c the boot unit of setup/off --persist.
 */
#ifndef PMSWAP_TOOL_H
#define PMSWAP_TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,		/* an operation failed (libndctl, mkswap, swapon, swapoff, cgroup) */
	EXIT_USAGE = 2,		/* wrong arguments */
	EXIT_NOTFOUND = 3,	/* no such region, namespace or device; nothing to do */
	EXIT_REFUSED = 4,	/* target busy or holds data; see --force */
	EXIT_PERM = 5,		/* not root */
};

#define SYS_PMEM	"/sys/kernel/mm/pmswap/pmem"
#define SZ_2M		(2UL << 20)

struct json_object;
struct ndctl_ctx;
struct ndctl_namespace;
struct ndctl_region;

/* --- commands and their options (pmswap.c) --- */

/* One option of a command, as "pmswap CMD --help" lists it. */
struct cmd_option {
	const char *name;	/* long name, without "--" */
	int val;		/* what cmd_getopt() returns for it */
	const char *arg;	/* name of its argument; NULL: takes none */
	const char *help;
};

struct command {
	const char *name;
	const char *synopsis;	/* the arguments, after "pmswap NAME" */
	const char *summary;	/* one line */
	const char *description;
	const struct cmd_option *opts;	/* ends with { NULL } */
	bool options_first;	/* options end at the first operand (run's CMD) */
	int (*fn)(const struct command *cmd, int argc, char **argv);
};

/*
 * getopt_long() over @cmd's option table, from argv[1]: returns an
 * option's val (optarg set), 'h' after printing the help, -1 at the first
 * operand or "--", or '?' after a usage message.
 */
int cmd_getopt(const struct command *cmd, int argc, char **argv);
void cmd_usage(const struct command *cmd, FILE *f);

int cmd_setup(const struct command *cmd, int argc, char **argv);
int cmd_status(const struct command *cmd, int argc, char **argv);
int cmd_off(const struct command *cmd, int argc, char **argv);
int cmd_run(const struct command *cmd, int argc, char **argv);

/* --- util.c --- */

void __attribute__((format(printf, 1, 2))) err(const char *fmt, ...);
/* the file's content, trailing white space cut; 0, or -1 if unreadable */
int read_file(const char *path, char *buf, size_t len);
/* a file holding one decimal number (a sysfs one-value file); -1 if not */
long long read_num(const char *path);
/* @val into @path; 0, or -1 with errno */
int write_str(const char *path, const char *val);
/* the value of "key N" in a key-value file such as /proc/vmstat; -1 if absent */
long kv_get(const char *path, const char *key);
/* "512M", "1G", "4096": bytes; 0, or -1 if not a size (0 is not one) */
int parse_size(const char *s, unsigned long long *out);
/* a map-in-place policy name (never, read, always)? If not, says so */
bool policy_ok(const char *policy);
/* "never [read] always" in @path -> "read"; "" if absent */
void read_policy(const char *path, char *out, size_t len);
/* @argv with stdout to /dev/null; its exit status, or -1 */
int run_quiet(char *const argv[]);

/* an active swap area, from /proc/swaps */
struct swapent {
	char dev[256];
	unsigned long long size_kb, used_kb;
	int prio;
};

#define MAX_SWAPS	32
int read_swaps(struct swapent *s, int max);
bool is_active_swap(const char *devpath);
bool is_mounted(const char *devpath);
/* name of a filesystem whose signature is on @devpath, or NULL */
const char *fs_signature(const char *devpath);

/* the vmstat counters status and run report, in that order */
extern const char *const pmswap_vm_keys[];
extern const size_t pmswap_nr_vm_keys;
/* each of pmswap_vm_keys from /proc/vmstat (null if this kernel has none) */
struct json_object *vmstat_json(void);
/* print @obj the way "ndctl list" does */
void json_print(struct json_object *obj);
/* a member of a JSON object as a number; -1 if absent or null */
long long json_num(struct json_object *obj, const char *key);

/* --- namespace.c: libndctl --- */

const char *ns_mode_name(struct ndctl_namespace *ndns);
/* the block device of @ndns ("pmem0"), or NULL if it has none */
const char *ns_blockdev(struct ndctl_namespace *ndns);
/* the UUID "ndctl list" shows for @ndns (@raw: the label's); false if none */
bool ns_uuid(struct ndctl_namespace *ndns, bool raw, char out[37]);
/* does @name name @ndns: its device name, block device or either UUID? */
bool ns_named(struct ndctl_namespace *ndns, const char *name);
/* is namespace @name there, with its block device node? */
bool ns_present(struct ndctl_ctx *ctx, const char *name);
struct ndctl_namespace *ns_find(struct ndctl_ctx *ctx, const char *name);
struct ndctl_namespace *ns_find_blockdev(struct ndctl_ctx *ctx, const char *blk);
/* why @ndns cannot be pmem swap as it is configured; NULL if it can */
const char *ns_unsuitable(struct ndctl_namespace *ndns);
struct ndctl_region *region_find(struct ndctl_ctx *ctx, const char *name);

/* --- dax.c: device-dax instances through the dax_swap driver --- */

/* "daxN.M"? */
bool dax_name_ok(const char *name);
/* "daxswapN.M" -> "daxN.M"; false for another name */
bool dax_blk_instance(const char *blk, char *inst, size_t len);
/* a block device pmswap swaps on: pmemN or daxswapN.M */
bool is_swap_blk(const char *blk);
/* the NVDIMM namespace an instance belongs to; false if none */
bool dax_namespace(const char *inst, char *ns, size_t len);
/* the region an instance is in ("region0"; "?" if unknown) */
void dax_region(const char *inst, char *region, size_t len);
/* an instance, its /dev/daxswapN.M, or a devdax namespace -> "daxN.M" */
int dax_resolve(const char *name, char *inst, size_t len, bool quiet);
/* is the instance (or namespace) there yet? for setup --dax --wait */
bool dax_present(const char *name);
/* hand an instance to dax_swap; @prev: the driver it had */
int dax_to_swap(const char *inst, char *blk, size_t len, char *prev,
		size_t plen);
/* give it back to that driver */
void dax_give_back(const char *inst, const char *prev);

/* --- persist.c: write and enable, or remove, pmswap.service --- */
/* @id: a namespace (setup --namespace ID) or, @dax, an instance (--dax) */
int persist_write(const char *id, bool dax, int prio, const char *policy);
int persist_remove(void);

#endif
