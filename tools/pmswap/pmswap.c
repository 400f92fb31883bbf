// SPDX-License-Identifier: GPL-2.0
/*
 * pmswap - set up, inspect and turn off swap on persistent memory.
 *
 *   pmswap setup [--region R | --namespace N] [--size S] [--priority P] [--force]
 *   pmswap status [--json]
 *   pmswap off [DEVICE]
 *
 * Namespaces are found and created with libndctl; the swap area is made
 * by util-linux mkswap and enabled with swapon(2). The kernel side
 * (CONFIG_PMSWAP_PMEM) reports each pmem swap device under
 * /sys/kernel/mm/pmswap/pmem/<disk>/.
 *
 * Exit codes: see EXIT_* below and pmswap(8).
 *
 * Copyright (C) 2026 pmswap developers
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/wait.h>

#include <ndctl/libndctl.h>
#include <uuid/uuid.h>

#include "pmswap.h"

#define PMSWAP_VERSION	"0.2"


#define SZ_2M		(2UL << 20)
/* from <ndctl/ndctl.h>, which Debian's libndctl-dev cannot include alone */
#ifndef ND_DEVICE_REGION_PMEM
#define ND_DEVICE_REGION_PMEM	2
#endif

static const char *prog = "pmswap";

void err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: pmswap setup [--region REGION | --namespace NAMESPACE] [--size SIZE]\n"
"                    [--priority PRIO] [--policy never|read|always] [--force]\n"
"                    [--wait SECS] [--persist]\n"
"       pmswap status [--json | --prometheus]\n"
"       pmswap off [DEVICE | NAMESPACE] [--persist]\n"
"       pmswap run --memory-max SIZE [--swap-max SIZE] [--policy P]\n"
"                  [--interval SECS] [--json] -- CMD [ARG...]\n"
"       pmswap --help | --version\n"
"\n"
"setup   use (or create) an fsdax namespace with 2 MiB alignment on persistent\n"
"        memory, write a swap signature on it and enable it as swap. Without\n"
"        --namespace an unused fsdax namespace named \"pmswap\" is reused, else\n"
"        one is created in REGION (default: the first pmem region with room).\n"
"        SIZE takes K, M, G suffixes (default: the largest free extent).\n"
"        Refuses a namespace that is active swap or holds a filesystem unless\n"
"        --force; never touches a mounted one. NAMESPACE may be a name,\n"
"        a pmem device or the UUID of the namespace. --policy sets the\n"
"        device's map-in-place policy. --persist also writes and enables\n"
"        a systemd unit, pmswap.service, that does the same setup at boot\n"
"        (the namespace by UUID, with the same priority and policy).\n"
"        --wait: with --namespace, wait up to SECS seconds for it and its\n"
"        block device to appear (the boot unit uses it).\n"
"status  list pmem swap devices: size, use, huge extents, I/O path, counters.\n"
"off     swapoff DEVICE or NAMESPACE (default: every pmem swap device);\n"
"        --persist also removes pmswap.service.\n"
"run     run CMD in a new memory cgroup with these limits, show its memory\n"
"        while it runs, and report peak, swap, OOM kills and THPs at its exit;\n"
"        --policy sets every pmem swap device's map-in-place policy for the run.\n"
"        Exits with CMD's status (128 + N if signal N killed it).\n"
"\n"
"exit codes: 0 ok, 1 operation failed, 2 usage, 3 not found,\n"
"            4 refused (busy or holds data), 5 not root\n");
}

/* --- small helpers --- */

int read_file(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		buf[--n] = 0;
	return 0;
}

bool policy_ok(const char *policy)
{
	if (!strcmp(policy, "never") || !strcmp(policy, "read") ||
	    !strcmp(policy, "always"))
		return true;
	err("bad --policy '%s' (never, read or always)\n", policy);
	return false;
}

/* Value of "key N" in a key-value file such as /proc/vmstat; -1 if absent. */
long kv_get(const char *path, const char *key)
{
	char line[256];
	size_t n = strlen(key);
	long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ' ') {
			v = atol(line + n + 1);
			break;
		}
	fclose(f);
	return v;
}

int parse_size(const char *s, unsigned long long *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *s == '-')
		return -1;
	switch (toupper((unsigned char)*end)) {
	case 'G': v <<= 30; end++; break;
	case 'M': v <<= 20; end++; break;
	case 'K': v <<= 10; end++; break;
	case 0: break;
	default: return -1;
	}
	if (*end == 'i' || *end == 'B')
		end++;
	if (*end == 'B')
		end++;
	if (*end || !v)
		return -1;
	*out = v;
	return 0;
}

struct swapent {
	char dev[256];
	unsigned long long size_kb, used_kb;
	int prio;
};

/* Active swap areas from /proc/swaps; returns how many (max @max). */
static int read_swaps(struct swapent *s, int max)
{
	char line[512];
	int n = 0;
	FILE *f = fopen("/proc/swaps", "r");

	if (!f)
		return 0;
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return 0;
	}
	while (n < max && fgets(line, sizeof(line), f)) {
		char type[32];

		if (sscanf(line, "%255s %31s %llu %llu %d", s[n].dev, type,
			   &s[n].size_kb, &s[n].used_kb, &s[n].prio) == 5)
			n++;
	}
	fclose(f);
	return n;
}

static bool is_active_swap(const char *devpath)
{
	struct swapent s[32];
	int i, n = read_swaps(s, 32);

	for (i = 0; i < n; i++)
		if (!strcmp(s[i].dev, devpath))
			return true;
	return false;
}

static bool is_mounted(const char *devpath)
{
	char line[1024], src[512];
	bool found = false;
	FILE *f = fopen("/proc/mounts", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%511s", src) == 1 && !strcmp(src, devpath))
			found = true;
	fclose(f);
	return found;
}

/* Name of a filesystem whose signature is on @devpath, or NULL. */
static const char *fs_signature(const char *devpath)
{
	static unsigned char buf[0x10048];
	int fd = open(devpath, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return NULL;
	n = pread(fd, buf, sizeof(buf), 0);
	close(fd);
	if (n < 0x440)
		return NULL;
	if (buf[0x438] == 0x53 && buf[0x439] == 0xef)
		return "ext2/3/4";
	if (!memcmp(buf, "XFSB", 4))
		return "xfs";
	if (n >= (ssize_t)sizeof(buf) && !memcmp(buf + 0x10040, "_BHRfS_M", 8))
		return "btrfs";
	if (!memcmp(buf + 3, "NTFS    ", 8))
		return "ntfs";
	if (!memcmp(buf + 0x52, "FAT32   ", 8) || !memcmp(buf + 0x36, "FAT", 3))
		return "vfat";
	return NULL;
}

static int run(char *const argv[])
{
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0)
			dup2(fd, STDOUT_FILENO);
		execvp(argv[0], argv);
		fprintf(stderr, "%s: cannot run %s: %s\n", prog, argv[0],
			strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* --- libndctl --- */

struct target {
	struct ndctl_namespace *ndns;
	struct ndctl_region *region;
	char blk[64];		/* "pmem0" */
};

static const char *mode_name(enum ndctl_namespace_mode m)
{
	switch (m) {
	case NDCTL_NS_MODE_FSDAX: return "fsdax";
	case NDCTL_NS_MODE_SECTOR: return "sector";
	case NDCTL_NS_MODE_RAW: return "raw";
	case NDCTL_NS_MODE_DEVDAX: return "devdax";
	default: return "unknown";
	}
}

/* The block device of @ndns ("pmem0"), or NULL if it has none. */
static const char *ns_blockdev(struct ndctl_namespace *ndns)
{
	struct ndctl_pfn *pfn = ndctl_namespace_get_pfn(ndns);
	struct ndctl_btt *btt = ndctl_namespace_get_btt(ndns);

	if (pfn)
		return ndctl_pfn_get_block_device(pfn);
	if (btt)
		return ndctl_btt_get_block_device(btt);
	if (ndctl_namespace_get_dax(ndns))
		return NULL;
	return ndctl_namespace_get_block_device(ndns);
}

/*
 * The UUID "ndctl list" shows for @ndns, in @out: that of its fsdax (pfn)
 * device, written in the pfn info block on the media, or else the one in
 * the namespace's label (@raw: always the label's). False if it has none
 * (a namespace without labels).
 */
static bool ns_uuid(struct ndctl_namespace *ndns, bool raw, char out[37])
{
	struct ndctl_pfn *pfn = ndctl_namespace_get_pfn(ndns);
	uuid_t uu;

	if (pfn && !raw)
		ndctl_pfn_get_uuid(pfn, uu);
	else
		ndctl_namespace_get_uuid(ndns, uu);
	if (uuid_is_null(uu))
		return false;
	uuid_unparse_lower(uu, out);
	return true;
}

/* Does @name name @ndns: its device name, block device or either UUID? */
static bool ns_named(struct ndctl_namespace *ndns, const char *name)
{
	const char *b = ns_blockdev(ndns);
	char uu[37];

	if (!strncmp(name, "/dev/", 5))
		name += 5;
	return !strcmp(ndctl_namespace_get_devname(ndns), name) ||
	       (b && !strcmp(b, name)) ||
	       (ns_uuid(ndns, false, uu) && !strcasecmp(uu, name)) ||
	       (ns_uuid(ndns, true, uu) && !strcasecmp(uu, name));
}

/*
 * Is namespace @name there, with its block device node? At boot, nd_pmem
 * may still be probing when pmswap.service starts: setup --wait polls
 * for it rather than waiting for every device (systemd-udev-settle).
 */
static bool ns_present(struct ndctl_ctx *ctx, const char *name)
{
	struct ndctl_namespace *ndns;
	struct ndctl_region *region;
	struct ndctl_bus *bus;
	char dev[80];

	ndctl_bus_foreach(ctx, bus)
		ndctl_region_foreach(bus, region)
			ndctl_namespace_foreach(region, ndns) {
				const char *b;

				if (!ns_named(ndns, name))
					continue;
				b = ns_blockdev(ndns);
				snprintf(dev, sizeof(dev), "/dev/%s", b ? b : "");
				return b && !access(dev, F_OK);
			}
	return false;
}

static struct ndctl_namespace *find_ns_by_blockdev(struct ndctl_ctx *ctx,
						   const char *blk)
{
	struct ndctl_bus *bus;
	struct ndctl_region *region;
	struct ndctl_namespace *ndns;

	ndctl_bus_foreach(ctx, bus)
		ndctl_region_foreach(bus, region)
			ndctl_namespace_foreach(region, ndns) {
				const char *b = ns_blockdev(ndns);

				if (b && !strcmp(b, blk))
					return ndns;
			}
	return NULL;
}

/* Why @ndns cannot be pmem swap as it is configured; NULL if it can. */
static const char *ns_unsuitable(struct ndctl_namespace *ndns)
{
	struct ndctl_pfn *pfn;

	/* a namespace claimed by its fsdax (pfn) device is active, not enabled */
	if (!ndctl_namespace_is_active(ndns))
		return "it is disabled";
	if (ndctl_namespace_get_mode(ndns) != NDCTL_NS_MODE_FSDAX)
		return "it is not in fsdax mode";
	pfn = ndctl_namespace_get_pfn(ndns);
	if (!pfn || ndctl_pfn_get_align(pfn) % SZ_2M)
		return "its alignment is not 2 MiB";
	if (!ns_blockdev(ndns))
		return "it has no block device";
	return NULL;
}

/* Is @ndns in use: mounted (always refused), swap or holding a filesystem? */
static int check_busy(struct target *t, bool force, bool *was_swap)
{
	char dev[80];
	const char *fs;

	snprintf(dev, sizeof(dev), "/dev/%s", t->blk);
	*was_swap = false;
	if (is_mounted(dev)) {
		err("%s (%s) is mounted; unmount it first, pmswap will not overwrite a mounted filesystem\n",
		    dev, ndctl_namespace_get_devname(t->ndns));
		return EXIT_REFUSED;
	}
	if (is_active_swap(dev)) {
		if (!force) {
			err("%s is already active swap; use --force to recreate it, or 'pmswap off %s'\n",
			    dev, dev);
			return EXIT_REFUSED;
		}
		*was_swap = true;
	}
	fs = fs_signature(dev);
	if (fs && !force) {
		err("%s (%s) holds a %s filesystem; use --force to overwrite it\n",
		    dev, ndctl_namespace_get_devname(t->ndns), fs);
		return EXIT_REFUSED;
	}
	return EXIT_OK;
}

static int create_ns(struct ndctl_region *region, unsigned long long size,
		     struct target *t)
{
	unsigned long long avail = ndctl_region_get_max_available_extent(region);
	unsigned long align = ndctl_region_get_align(region);
	struct ndctl_namespace *ndns;
	struct ndctl_pfn *pfn;
	uuid_t uu;
	int rc;

	if (align < SZ_2M)
		align = SZ_2M;
	if (!size)
		size = avail;
	size -= size % align;
	if (!size || size > avail) {
		err("%s has %llu MiB free in one extent, not enough for %llu MiB\n",
		    ndctl_region_get_devname(region), avail >> 20, size >> 20);
		return EXIT_NOTFOUND;
	}
	ndns = ndctl_region_get_namespace_seed(region);
	if (!ndns) {
		err("%s cannot take a new namespace (no label space? try 'ndctl init-labels')\n",
		    ndctl_region_get_devname(region));
		return EXIT_FAIL;
	}
	uuid_generate(uu);
	rc = ndctl_namespace_set_uuid(ndns, uu);
	if (!rc)
		rc = ndctl_namespace_set_alt_name(ndns, "pmswap");
	if (!rc)
		rc = ndctl_namespace_set_size(ndns, size);
	if (!rc)
		rc = ndctl_namespace_set_enforce_mode(ndns, NDCTL_NS_MODE_FSDAX);
	if (rc) {
		err("cannot configure %s on %s: %s\n",
		    ndctl_namespace_get_devname(ndns),
		    ndctl_region_get_devname(region), strerror(-rc));
		ndctl_namespace_delete(ndns);
		return EXIT_FAIL;
	}
	pfn = ndctl_region_get_pfn_seed(region);
	if (!pfn) {
		err("%s has no pfn seed: fsdax mode is not available\n",
		    ndctl_region_get_devname(region));
		ndctl_namespace_delete(ndns);
		return EXIT_FAIL;
	}
	uuid_generate(uu);
	rc = ndctl_pfn_set_uuid(pfn, uu);
	if (!rc)
		rc = ndctl_pfn_set_location(pfn, NDCTL_PFN_LOC_PMEM);
	if (!rc)
		rc = ndctl_pfn_set_align(pfn, SZ_2M);
	if (!rc)
		rc = ndctl_pfn_set_namespace(pfn, ndns);
	if (!rc)
		rc = ndctl_pfn_enable(pfn);
	if (rc) {
		err("cannot enable fsdax on %s: %s\n",
		    ndctl_namespace_get_devname(ndns), strerror(-rc));
		ndctl_pfn_set_namespace(pfn, NULL);
		ndctl_namespace_delete(ndns);
		return EXIT_FAIL;
	}
	t->ndns = ndns;
	t->region = region;
	snprintf(t->blk, sizeof(t->blk), "%s", ndctl_pfn_get_block_device(pfn));
	printf("created %s: fsdax, 2 MiB aligned, %llu MiB on %s (/dev/%s)\n",
	       ndctl_namespace_get_devname(ndns), size >> 20,
	       ndctl_region_get_devname(region), t->blk);
	return EXIT_OK;
}

static struct ndctl_region *find_region(struct ndctl_ctx *ctx, const char *name)
{
	struct ndctl_bus *bus;
	struct ndctl_region *region;

	ndctl_bus_foreach(ctx, bus)
		ndctl_region_foreach(bus, region)
			if (!strcmp(ndctl_region_get_devname(region), name))
				return region;
	return NULL;
}

/* Set the map-in-place policy of pmem swap device @blk ("pmem0"). */
static int setup_policy(const char *blk, const char *policy)
{
	char path[160];
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof(path), SYS_PMEM "/%s/inplace", blk);
	fd = open(path, O_WRONLY);
	if (fd >= 0) {
		n = write(fd, policy, strlen(policy));
		if (close(fd))
			n = -1;
	}
	if (n != (ssize_t)strlen(policy)) {
		err("cannot set the map-in-place policy %s to %s: %s\n", path,
		    policy, strerror(errno));
		return EXIT_FAIL;
	}
	printf("/dev/%s: map-in-place policy %s\n", blk, policy);
	return EXIT_OK;
}

static int cmd_setup(struct ndctl_ctx *ctx, const char *region_name,
		     const char *ns_name, unsigned long long size, int prio,
		     bool force, const char *policy, bool persist)
{
	struct ndctl_region *region = NULL;
	struct ndctl_namespace *ndns;
	struct ndctl_bus *bus;
	struct target t = { 0 };
	char dev[80], sys[160];
	const char *why;
	bool was_swap;
	int rc, flags = 0;

	if (ns_name) {
		ndctl_bus_foreach(ctx, bus)
			ndctl_region_foreach(bus, region)
				ndctl_namespace_foreach(region, ndns) {
					if (!ns_named(ndns, ns_name))
						continue;
					t.ndns = ndns;
					t.region = region;
				}
		if (!t.ndns) {
			err("no namespace, pmem device or namespace UUID '%s' (see 'ndctl list -N')\n",
			    ns_name);
			return EXIT_NOTFOUND;
		}
		why = ns_unsuitable(t.ndns);
		if (why) {
			err("%s is not usable as pmem swap: %s (mode %s); recreate it with 'ndctl create-namespace -f -e %s -m fsdax --align 2M'\n",
			    ndctl_namespace_get_devname(t.ndns), why,
			    mode_name(ndctl_namespace_get_mode(t.ndns)),
			    ndctl_namespace_get_devname(t.ndns));
			return EXIT_REFUSED;
		}
		snprintf(t.blk, sizeof(t.blk), "%s", ns_blockdev(t.ndns));
	} else {
		if (region_name) {
			region = find_region(ctx, region_name);
			if (!region) {
				err("no region named '%s' (see 'ndctl list -R')\n",
				    region_name);
				return EXIT_NOTFOUND;
			}
		}
		/* reuse an idle fsdax namespace that pmswap made before */
		ndctl_bus_foreach(ctx, bus) {
			struct ndctl_region *r;

			ndctl_region_foreach(bus, r) {
				if (region && r != region)
					continue;
				ndctl_namespace_foreach(r, ndns) {
					const char *alt = ndctl_namespace_get_alt_name(ndns);
					const char *b;

					if (t.ndns || !alt || strcmp(alt, "pmswap") ||
					    ns_unsuitable(ndns))
						continue;
					if (size && ndctl_namespace_get_size(ndns) < size)
						continue;
					b = ns_blockdev(ndns);
					snprintf(dev, sizeof(dev), "/dev/%s", b);
					if (is_active_swap(dev) || is_mounted(dev))
						continue;
					t.ndns = ndns;
					t.region = r;
					snprintf(t.blk, sizeof(t.blk), "%s", b);
				}
			}
		}
		if (!t.ndns) {
			struct ndctl_region *r, *pick = NULL;

			ndctl_bus_foreach(ctx, bus)
				ndctl_region_foreach(bus, r) {
					if (region && r != region)
						continue;
					if (ndctl_region_get_type(r) != ND_DEVICE_REGION_PMEM ||
					    !ndctl_region_is_enabled(r))
						continue;
					if (!pick && ndctl_region_get_max_available_extent(r) >=
					    (size ? size : SZ_2M))
						pick = r;
				}
			if (!pick) {
				err("no pmem region with %s free space%s%s (see 'ndctl list -R')\n",
				    size ? "enough" : "any",
				    region ? " in " : "",
				    region ? ndctl_region_get_devname(region) : "");
				return EXIT_NOTFOUND;
			}
			rc = create_ns(pick, size, &t);
			if (rc)
				return rc;
		}
	}

	rc = check_busy(&t, force, &was_swap);
	if (rc)
		return rc;
	snprintf(dev, sizeof(dev), "/dev/%s", t.blk);
	if (was_swap && swapoff(dev)) {
		err("swapoff %s: %s\n", dev, strerror(errno));
		return EXIT_FAIL;
	}
	{
		char *argv[] = { "mkswap", "-L", "pmswap", dev, NULL };

		rc = run(argv);
		if (rc) {
			err("mkswap %s failed (exit %d)\n", dev, rc);
			return EXIT_FAIL;
		}
	}
	if (prio >= 0)
		flags = SWAP_FLAG_PREFER |
			((prio << SWAP_FLAG_PRIO_SHIFT) & SWAP_FLAG_PRIO_MASK);
	if (swapon(dev, flags)) {
		err("swapon %s: %s\n", dev, strerror(errno));
		return EXIT_FAIL;
	}
	snprintf(sys, sizeof(sys), SYS_PMEM "/%s", t.blk);
	if (!access(sys, F_OK))
		printf("%s (%s, %s) is pmem swap: data moves through the DAX mapping, 2 MiB-aligned extents\n",
		       dev, ndctl_namespace_get_devname(t.ndns),
		       ndctl_region_get_devname(t.region));
	else if (!access(SYS_PMEM, F_OK))
		printf("%s (%s) is swap through the block layer: the kernel did not take it as pmem swap (its console says why)\n",
		       dev, ndctl_namespace_get_devname(t.ndns));
	else
		printf("%s (%s) is swap through the block layer: this kernel has no pmswap pmem backend\n",
		       dev, ndctl_namespace_get_devname(t.ndns));
	if (policy) {
		rc = setup_policy(t.blk, policy);
		if (rc)
			return rc;
	}
	if (persist) {
		char uu[37];

		/*
		 * A namespace without labels (memmap=, e820 pmem, an NVDIMM
		 * without a label area) has no UUID: its name stays the
		 * same as long as the regions do.
		 */
		if (ns_uuid(t.ndns, false, uu))
			return persist_write(uu, prio, policy);
		printf("%s has no UUID (no labels): the unit names it by its device name\n",
		       ndctl_namespace_get_devname(t.ndns));
		return persist_write(ndctl_namespace_get_devname(t.ndns), prio,
				     policy);
	}
	return EXIT_OK;
}

/* --- status --- */

struct devstat {
	struct swapent sw;
	const char *blk;	/* "pmem0" */
	const char *ns, *region, *mode;
	bool dax;
	char io[16];
	long v[9];
	char inplace[16];	/* map-in-place policy, "" if none */
	long ip[8];
};

/* THPs (extents), bytes, then 4 KiB pages */
static const char *const inplace_keys[8] = {
	"mapped_now", "maps", "promotions", "copy_avoided_bytes",
	"pte_mapped_now", "pte_maps", "pte_promotions", "pte_maps_around",
};

static const char *const stat_keys[9] = {
	"extents_total", "extents_free", "extents_huge", "pages_written",
	"pages_read", "read_errors", "write_fallbacks", "poison_notices",
	"bad_pages",
};

const char *const pmswap_vm_keys[] = {
	"thp_swpout", "thp_swpout_pmd", "thp_swpout_pmd_fallback",
	"thp_swpout_fallback", "thp_swpin_pmd", "thp_swpin_pmd_fallback",
	"thp_split_swap_pmd", "pswpin", "pswpout", "pmswap_inplace_map",
	"pmswap_inplace_revert", "pmswap_inplace_promote",
	"pmswap_inplace_pte_map", "pmswap_inplace_pte_revert",
	"pmswap_inplace_pte_promote",
};
const size_t pmswap_nr_vm_keys = sizeof(pmswap_vm_keys) / sizeof(pmswap_vm_keys[0]);

/* "never [read] always" -> "read" */
static void read_policy(const char *path, char *out, size_t len)
{
	char buf[64], *a, *b;

	out[0] = 0;
	if (read_file(path, buf, sizeof(buf)))
		return;
	a = strchr(buf, '[');
	b = a ? strchr(a, ']') : NULL;
	if (a && b && (size_t)(b - a - 1) < len) {
		memcpy(out, a + 1, b - a - 1);
		out[b - a - 1] = 0;
	}
}

enum status_fmt { FMT_TEXT, FMT_JSON, FMT_PROM };

/* a Prometheus label value: backslash, double quote and newline escaped */
static void prom_label(const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			printf("\\%c", *s);
		else if (*s == '\n')
			printf("\\n");
		else
			putchar(*s);
	}
}

static void prom_head(const char *name, const char *type, const char *help)
{
	printf("# HELP pmswap_%s %s\n# TYPE pmswap_%s %s\n", name, help, name, type);
}

static void prom_dev(const char *name, const struct devstat *d, long long v)
{
	if (v < 0)	/* not reported by this kernel */
		return;
	printf("pmswap_%s{device=\"", name);
	prom_label(d->sw.dev);
	printf("\"} %lld\n", v);
}

/*
 * node_exporter's textfile collector format: one HELP and TYPE line per
 * metric, then its samples, labelled by swap device.
 */
static void status_prometheus(const struct devstat *d, int n)
{
	static const struct { int i; const char *name, *type, *help; } st[] = {
		{ 3, "pages_written_total", "counter", "4 KiB pages copied to pmem through DAX" },
		{ 4, "pages_read_total", "counter", "4 KiB pages copied from pmem through DAX" },
		{ 5, "read_errors_total", "counter", "reads from pmem that failed (poison, bad blocks)" },
		{ 6, "write_fallbacks_total", "counter", "writes that fell back from DAX to the block layer" },
		{ 7, "poison_notices_total", "counter", "memory-failure notices on the swap area" },
		{ 8, "bad_pages", "gauge", "known bad 4 KiB pages kept out of use" },
	};
	static const struct { int i; long mul; const char *name, *type, *help; } ip[] = {
		{ 0, 2L << 20, "inplace_mapped_bytes", "gauge", "THP extents mapped in place now, in bytes (counted per mapping)" },
		{ 1, 1, "inplace_maps_total", "counter", "THP extents mapped in place" },
		{ 2, 1, "inplace_promotions_total", "counter", "THP extents promoted back to DRAM" },
		{ 3, 1, "inplace_copy_avoided_bytes_total", "counter", "bytes not copied because they were mapped in place" },
		{ 4, 4096, "inplace_pte_mapped_bytes", "gauge", "4 KiB pages mapped in place now, in bytes" },
		{ 5, 1, "inplace_pte_maps_total", "counter", "4 KiB pages mapped in place" },
		{ 6, 1, "inplace_pte_promotions_total", "counter", "4 KiB pages promoted back to DRAM" },
		{ 7, 1, "inplace_pte_maps_around_total", "counter", "4 KiB pages mapped in place around a faulting page" },
	};
	static const char *const ext_state[3] = { "total", "free", "huge" };
	size_t k;
	int i, j;

	prom_head("devices", "gauge", "active swap devices on pmem");
	printf("pmswap_devices %d\n", n);
	prom_head("swap_info", "gauge", "a pmem swap device: namespace, region, mode, I/O path, policy");
	for (i = 0; i < n; i++) {
		printf("pmswap_swap_info{device=\"");
		prom_label(d[i].sw.dev);
		printf("\",namespace=\"");
		prom_label(d[i].ns);
		printf("\",region=\"");
		prom_label(d[i].region);
		printf("\",mode=\"");
		prom_label(d[i].mode);
		printf("\",io=\"");
		prom_label(d[i].dax ? d[i].io : "block");
		printf("\",inplace=\"");
		prom_label(d[i].inplace[0] ? d[i].inplace : "none");
		printf("\"} 1\n");
	}
	prom_head("swap_size_bytes", "gauge", "size of the swap area");
	for (i = 0; i < n; i++)
		prom_dev("swap_size_bytes", &d[i], (long long)d[i].sw.size_kb << 10);
	prom_head("swap_used_bytes", "gauge", "swap in use");
	for (i = 0; i < n; i++)
		prom_dev("swap_used_bytes", &d[i], (long long)d[i].sw.used_kb << 10);
	prom_head("swap_priority", "gauge", "swap priority");
	for (i = 0; i < n; i++)
		prom_dev("swap_priority", &d[i], d[i].sw.prio);
	prom_head("extents", "gauge", "2 MiB extents of the swap area: total, free, in use by whole THPs");
	for (i = 0; i < n; i++)
		for (j = 0; j < 3; j++) {
			if (!d[i].dax || d[i].v[j] < 0)
				continue;
			printf("pmswap_extents{device=\"");
			prom_label(d[i].sw.dev);
			printf("\",state=\"%s\"} %ld\n", ext_state[j], d[i].v[j]);
		}
	for (k = 0; k < sizeof(st) / sizeof(st[0]); k++) {
		prom_head(st[k].name, st[k].type, st[k].help);
		for (i = 0; i < n; i++)
			if (d[i].dax)
				prom_dev(st[k].name, &d[i], d[i].v[st[k].i]);
	}
	for (k = 0; k < sizeof(ip) / sizeof(ip[0]); k++) {
		prom_head(ip[k].name, ip[k].type, ip[k].help);
		for (i = 0; i < n; i++)
			if (d[i].inplace[0] && d[i].ip[ip[k].i] >= 0)
				prom_dev(ip[k].name, &d[i], (long long)d[i].ip[ip[k].i] * ip[k].mul);
	}
	prom_head("vm_events_total", "counter", "host-wide swap and map-in-place events from /proc/vmstat");
	for (k = 0; k < pmswap_nr_vm_keys; k++) {
		long v = kv_get("/proc/vmstat", pmswap_vm_keys[k]);

		if (v >= 0)	/* counter not in this kernel: no sample */
			printf("pmswap_vm_events_total{event=\"%s\"} %ld\n",
			       pmswap_vm_keys[k], v);
	}
}

/* A counter of a pmem swap device: the one-value file stats/PREFIXKEY. */
static long dev_stat(const char *blk, const char *prefix, const char *key)
{
	char path[320], buf[64], *end;
	long v;

	snprintf(path, sizeof(path), SYS_PMEM "/%.64s/stats/%s%s", blk, prefix,
		 key);
	if (read_file(path, buf, sizeof(buf)))
		return -1;
	v = strtol(buf, &end, 10);
	return end == buf ? -1 : v;
}

static int cmd_status(struct ndctl_ctx *ctx, enum status_fmt fmt)
{
	bool json = fmt == FMT_JSON;

	struct swapent sw[32];
	struct devstat d[32];
	int i, j, n = 0, nsw = read_swaps(sw, 32);
	size_t k;

	for (i = 0; i < nsw; i++) {
		const char *blk = strrchr(sw[i].dev, '/');
		struct ndctl_namespace *ndns;
		char path[320];

		blk = blk ? blk + 1 : sw[i].dev;
		if (strncmp(blk, "pmem", 4))
			continue;
		memset(&d[n], 0, sizeof(d[n]));
		d[n].sw = sw[i];
		d[n].blk = blk;
		ndns = ctx ? find_ns_by_blockdev(ctx, blk) : NULL;
		d[n].ns = ndns ? ndctl_namespace_get_devname(ndns) : "?";
		d[n].region = ndns ?
			ndctl_region_get_devname(ndctl_namespace_get_region(ndns)) : "?";
		d[n].mode = ndns ? mode_name(ndctl_namespace_get_mode(ndns)) : "?";
		snprintf(path, sizeof(path), SYS_PMEM "/%.64s/io", blk);
		d[n].dax = !read_file(path, d[n].io, sizeof(d[n].io));
		for (j = 0; j < 9; j++)
			d[n].v[j] = d[n].dax ? dev_stat(blk, "", stat_keys[j]) : -1;
		snprintf(path, sizeof(path), SYS_PMEM "/%.64s/inplace", blk);
		read_policy(path, d[n].inplace, sizeof(d[n].inplace));
		for (j = 0; j < 8; j++)
			d[n].ip[j] = d[n].inplace[0] ?
				     dev_stat(blk, "inplace_", inplace_keys[j]) : -1;
		n++;
	}

	if (fmt == FMT_PROM) {
		status_prometheus(d, n);
		return EXIT_OK;
	}
	if (json) {
		printf("{\n  \"devices\": [");
		for (i = 0; i < n; i++) {
			printf("%s\n    {\"device\": \"%s\", \"namespace\": \"%s\", \"region\": \"%s\", \"mode\": \"%s\",\n",
			       i ? "," : "", d[i].sw.dev, d[i].ns, d[i].region, d[i].mode);
			printf("     \"size_kb\": %llu, \"used_kb\": %llu, \"priority\": %d, \"pmem_swap\": %s, \"io\": \"%s\"",
			       d[i].sw.size_kb, d[i].sw.used_kb, d[i].sw.prio,
			       d[i].dax ? "true" : "false", d[i].dax ? d[i].io : "block");
			if (d[i].dax)
				for (j = 0; j < 9; j++)
					printf(",%s\"%s\": %ld", j % 3 ? " " : "\n     ",
					       stat_keys[j], d[i].v[j]);
			if (d[i].inplace[0]) {
				printf(",\n     \"inplace\": \"%s\"", d[i].inplace);
				for (j = 0; j < 8; j++)
					printf(", \"inplace_%s\": %ld", inplace_keys[j],
					       d[i].ip[j]);
			} else if (d[i].dax) {
				printf(",\n     \"inplace\": null");
			}
			printf("}");
		}
		printf("%s],\n  \"counters\": {", n ? "\n  " : "");
		for (k = 0; k < pmswap_nr_vm_keys; k++) {
			long v = kv_get("/proc/vmstat", pmswap_vm_keys[k]);

			if (v < 0)	/* counter not in this kernel */
				printf("%s\"%s\": null", k ? ", " : "", pmswap_vm_keys[k]);
			else
				printf("%s\"%s\": %ld", k ? ", " : "", pmswap_vm_keys[k], v);
		}
		printf("}\n}\n");
		return EXIT_OK;
	}

	if (!n)
		printf("no pmem swap device is active\n");
	for (i = 0; i < n; i++) {
		printf("%s  %s on %s, mode %s\n", d[i].sw.dev, d[i].ns, d[i].region,
		       d[i].mode);
		printf("  size %llu MiB, used %llu MiB, priority %d\n",
		       d[i].sw.size_kb >> 10, d[i].sw.used_kb >> 10, d[i].sw.prio);
		if (!d[i].dax) {
			printf("  I/O through the block layer (not a pmem swap device)\n");
			continue;
		}
		printf("  I/O path %s; huge extents %ld in use by THPs, %ld free of %ld\n",
		       d[i].io, d[i].v[2], d[i].v[1], d[i].v[0]);
		printf("  pages copied: %ld written, %ld read; read errors %ld, write fallbacks %ld\n",
		       d[i].v[3], d[i].v[4], d[i].v[5], d[i].v[6]);
		printf("  poison: %ld memory-failure notices, %ld bad pages kept out at swapon\n",
		       d[i].v[7], d[i].v[8]);
		if (!d[i].inplace[0])
			continue;
		printf("  map in place: policy %s; %ld MiB of copies avoided\n",
		       d[i].inplace, d[i].ip[3] >> 20);
		printf("    THPs: %ld MiB mapped in place now, %ld maps, %ld promotions to DRAM\n",
		       d[i].ip[0] * 2, d[i].ip[1], d[i].ip[2]);
		if (d[i].ip[4] >= 0)
			printf("    4 KiB pages: %ld kB mapped in place now, %ld maps, %ld promotions to DRAM\n",
			       d[i].ip[4] * 4, d[i].ip[5], d[i].ip[6]);
		if (d[i].ip[7] >= 0)
			printf("      of the maps, %ld around a faulting page (fault-around)\n",
			       d[i].ip[7]);
	}
	printf("counters:");
	for (k = 0; k < pmswap_nr_vm_keys; k++) {
		long v = kv_get("/proc/vmstat", pmswap_vm_keys[k]);

		printf("%s%s ", k % 4 ? ", " : "\n  ", pmswap_vm_keys[k]);
		if (v < 0)
			printf("n/a");
		else
			printf("%ld", v);
	}
	printf("\n");
	return EXIT_OK;
}

static int cmd_off(struct ndctl_ctx *ctx, const char *which, bool persist)
{
	struct swapent sw[32];
	int i, n = read_swaps(sw, 32), done = 0, rc = EXIT_OK;
	char want[300] = "";

	if (persist) {
		rc = persist_remove();
		if (rc == EXIT_FAIL)
			return rc;
		/* nothing persisted and nothing to swap off: say both */
		if (rc == EXIT_NOTFOUND)
			persist = false;
		rc = EXIT_OK;
	}
	if (which) {
		struct ndctl_namespace *ndns = NULL, *it;
		struct ndctl_region *region;
		struct ndctl_bus *bus;

		/* a namespace (name or UUID) stands for its block device */
		if (ctx)
			ndctl_bus_foreach(ctx, bus)
				ndctl_region_foreach(bus, region)
					ndctl_namespace_foreach(region, it)
						if (ns_named(it, which))
							ndns = it;
		if (ndns && ns_blockdev(ndns))
			snprintf(want, sizeof(want), "/dev/%s", ns_blockdev(ndns));
		else
			snprintf(want, sizeof(want), "%s%s",
				 strncmp(which, "/dev/", 5) ? "/dev/" : "", which);
	}
	for (i = 0; i < n; i++) {
		const char *blk = strrchr(sw[i].dev, '/');

		blk = blk ? blk + 1 : sw[i].dev;
		if (which ? strcmp(sw[i].dev, want) : strncmp(blk, "pmem", 4))
			continue;
		done++;
		if (swapoff(sw[i].dev)) {
			err("swapoff %s: %s\n", sw[i].dev, strerror(errno));
			rc = EXIT_FAIL;
		} else {
			printf("%s: swap off, %llu MiB brought back\n", sw[i].dev,
			       sw[i].used_kb >> 10);
		}
	}
	if (!done) {
		/* off --persist with the swap already off did its job */
		if (persist && !which)
			return EXIT_OK;
		if (which)
			err("%s is not active swap\n", want);
		else
			err("no pmem swap device is active\n");
		return EXIT_NOTFOUND;
	}
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "region", required_argument, NULL, 'r' },
		{ "namespace", required_argument, NULL, 'n' },
		{ "size", required_argument, NULL, 's' },
		{ "priority", required_argument, NULL, 'p' },
		{ "force", no_argument, NULL, 'f' },
		{ "policy", required_argument, NULL, 'o' },
		{ "persist", no_argument, NULL, 'k' },
		{ "wait", required_argument, NULL, 'w' },
		{ "json", no_argument, NULL, 'j' },
		{ "prometheus", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = NULL, *region = NULL, *ns = NULL, *policy = NULL;
	unsigned long long size = 0;
	bool force = false, json = false, prom = false, persist = false;
	struct ndctl_ctx *ctx = NULL;
	int c, prio = -1, wait = 0, rc;
	char *end;

	/* run takes its own options, and CMD's after "--" */
	if (argc > 1 && !strcmp(argv[1], "run"))
		return cmd_run(argc - 1, argv + 1);
	while ((c = getopt_long(argc, argv, "r:n:s:p:fo:kw:jPhV", opts, NULL)) != -1) {
		switch (c) {
		case 'r': region = optarg; break;
		case 'n': ns = optarg; break;
		case 's':
			if (parse_size(optarg, &size)) {
				err("bad size '%s' (examples: 512M, 1G)\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'p':
			errno = 0;
			prio = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || prio < 0 ||
			    prio > SWAP_FLAG_PRIO_MASK) {
				err("bad priority '%s' (0 to %d)\n", optarg,
				    SWAP_FLAG_PRIO_MASK);
				return EXIT_USAGE;
			}
			break;
		case 'f': force = true; break;
		case 'o':
			if (!policy_ok(optarg))
				return EXIT_USAGE;
			policy = optarg;
			break;
		case 'k': persist = true; break;
		case 'w':
			errno = 0;
			wait = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || wait < 0 ||
			    wait > 3600) {
				err("bad --wait '%s' (0 to 3600 seconds)\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'j': json = true; break;
		case 'P': prom = true; break;
		case 'h': usage(stdout); return EXIT_OK;
		case 'V': printf("pmswap %s\n", PMSWAP_VERSION); return EXIT_OK;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind < argc)
		cmd = argv[optind++];
	if (!cmd) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(cmd, "setup") && strcmp(cmd, "status") && strcmp(cmd, "off")) {
		err("unknown command '%s'\n", cmd);
		usage(stderr);
		return EXIT_USAGE;
	}
	if ((strcmp(cmd, "off") && optind < argc) || argc - optind > 1) {
		err("unexpected argument '%s'\n", argv[optind]);
		return EXIT_USAGE;
	}
	if (strcmp(cmd, "setup") && (region || ns || size || prio >= 0 || force ||
				     policy)) {
		err("--region, --namespace, --size, --priority, --force and --policy are for 'setup'\n");
		return EXIT_USAGE;
	}
	if (wait && (strcmp(cmd, "setup") || !ns)) {
		err("--wait is for 'setup --namespace'\n");
		return EXIT_USAGE;
	}
	if (persist && !strcmp(cmd, "status")) {
		err("--persist is for 'setup' and 'off'\n");
		return EXIT_USAGE;
	}
	if (strcmp(cmd, "status") && (json || prom)) {
		err("--json and --prometheus are for 'status'\n");
		return EXIT_USAGE;
	}
	if (json && prom) {
		err("give --json or --prometheus, not both\n");
		return EXIT_USAGE;
	}
	if (region && ns) {
		err("give --region or --namespace, not both\n");
		return EXIT_USAGE;
	}
	if (strcmp(cmd, "status") && geteuid() != 0) {
		err("%s needs root (it changes namespaces and swap)\n", cmd);
		return EXIT_PERM;
	}

	/* off needs libndctl only to turn a namespace name or UUID into a device */
	if (strcmp(cmd, "off") || optind < argc) {
		rc = ndctl_new(&ctx);
		if (rc) {
			err("cannot open libndctl: %s\n", strerror(-rc));
			if (!strcmp(cmd, "setup"))
				return EXIT_FAIL;
			ctx = NULL;	/* status still works from /proc and sysfs */
		}
	}
	/* a fresh libndctl context per look: it reads sysfs once */
	if (ctx && wait) {
		struct timespec t0, now;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		while (!ns_present(ctx, ns)) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			if ((now.tv_sec - t0.tv_sec) * 1000LL +
			    (now.tv_nsec - t0.tv_nsec) / 1000000 >= wait * 1000LL)
				break;	/* setup says what is missing */
			ndctl_unref(ctx);
			ctx = NULL;
			usleep(250000);
			if (ndctl_new(&ctx)) {
				err("cannot open libndctl\n");
				return EXIT_FAIL;
			}
		}
	}
	if (!strcmp(cmd, "setup"))
		rc = cmd_setup(ctx, region, ns, size, prio, force, policy, persist);
	else if (!strcmp(cmd, "status"))
		rc = cmd_status(ctx, json ? FMT_JSON : prom ? FMT_PROM : FMT_TEXT);
	else
		rc = cmd_off(ctx, optind < argc ? argv[optind] : NULL, persist);
	if (ctx)
		ndctl_unref(ctx);
	return rc;
}
