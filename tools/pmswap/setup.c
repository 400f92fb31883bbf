// SPDX-License-Identifier: GPL-2.0
/*
 * pmswap setup: use (or create) an fsdax namespace with 2 MiB alignment on
 * persistent memory, or hand a device-dax instance to the dax_swap driver
 * (--dax, dax.c), write a swap signature on it (util-linux mkswap) and
 * enable it as swap (swapon(2)); optionally set its map-in-place policy
 * and record all of it for the next boot (persist.c).
 *
 * Copyright (C) 2026 pmswap developers
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/swap.h>

#include <ndctl/libndctl.h>
#include <uuid/uuid.h>

#include "pmswap.h"

/* from <ndctl/ndctl.h>, which Debian's libndctl-dev cannot include alone */
#ifndef ND_DEVICE_REGION_PMEM
#define ND_DEVICE_REGION_PMEM	2
#endif

struct setup_args {
	const char *region, *ns, *dax, *policy;
	unsigned long long size;
	int prio, wait;
	bool force, persist;
};

struct target {
	struct ndctl_namespace *ndns;	/* NULL for a device-dax instance */
	struct ndctl_region *region;
	char blk[64];		/* "pmem0", "daxswap0.0" */
	char name[64];		/* "namespace0.0", "dax0.0" */
	char region_name[64];	/* "region0" */
};

/* Is the target in use: mounted (always refused), swap or holding a filesystem? */
static int check_busy(struct target *t, bool force, bool *was_swap)
{
	char dev[80];
	const char *fs;

	snprintf(dev, sizeof(dev), "/dev/%s", t->blk);
	*was_swap = false;
	if (is_mounted(dev)) {
		err("%s (%s) is mounted; unmount it first, pmswap will not overwrite a mounted filesystem\n",
		    dev, t->name);
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
		    dev, t->name, fs);
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

/* Set the map-in-place policy of pmem swap device @blk ("pmem0"). */
static int setup_policy(const char *blk, const char *policy)
{
	char path[160];

	snprintf(path, sizeof(path), SYS_PMEM "/%s/inplace", blk);
	if (write_str(path, policy)) {
		err("cannot set the map-in-place policy %s to %s: %s\n", path,
		    policy, strerror(errno));
		return EXIT_FAIL;
	}
	printf("/dev/%s: map-in-place policy %s\n", blk, policy);
	return EXIT_OK;
}

/* The namespace the user named: it must be fsdax with 2 MiB alignment. */
static int target_named(struct ndctl_ctx *ctx, const char *name, struct target *t)
{
	const char *why;

	t->ndns = ns_find(ctx, name);
	if (!t->ndns) {
		err("no namespace, pmem device or namespace UUID '%s' (see 'ndctl list -N')\n",
		    name);
		return EXIT_NOTFOUND;
	}
	t->region = ndctl_namespace_get_region(t->ndns);
	why = ns_unsuitable(t->ndns);
	if (why && ndctl_namespace_get_dax(t->ndns)) {
		err("%s is a devdax namespace; swap on it with 'pmswap setup --dax %s'\n",
		    ndctl_namespace_get_devname(t->ndns),
		    ndctl_namespace_get_devname(t->ndns));
		return EXIT_REFUSED;
	}
	if (why) {
		err("%s is not usable as pmem swap: %s (mode %s); recreate it with 'ndctl create-namespace -f -e %s -m fsdax --align 2M'\n",
		    ndctl_namespace_get_devname(t->ndns), why,
		    ns_mode_name(t->ndns), ndctl_namespace_get_devname(t->ndns));
		return EXIT_REFUSED;
	}
	snprintf(t->blk, sizeof(t->blk), "%s", ns_blockdev(t->ndns));
	return EXIT_OK;
}

/* An idle fsdax namespace that pmswap made before, or a new one. */
static int target_pick(struct ndctl_ctx *ctx, const struct setup_args *a,
		       struct target *t)
{
	struct ndctl_region *region = NULL, *r, *pick = NULL;
	struct ndctl_namespace *ndns;
	struct ndctl_bus *bus;
	char dev[80];

	if (a->region) {
		region = region_find(ctx, a->region);
		if (!region) {
			err("no region named '%s' (see 'ndctl list -R')\n", a->region);
			return EXIT_NOTFOUND;
		}
	}
	ndctl_bus_foreach(ctx, bus)
		ndctl_region_foreach(bus, r) {
			if (region && r != region)
				continue;
			ndctl_namespace_foreach(r, ndns) {
				const char *alt = ndctl_namespace_get_alt_name(ndns);
				const char *b;

				if (!alt || strcmp(alt, "pmswap") || ns_unsuitable(ndns))
					continue;
				if (a->size && ndctl_namespace_get_size(ndns) < a->size)
					continue;
				b = ns_blockdev(ndns);
				snprintf(dev, sizeof(dev), "/dev/%s", b);
				if (is_active_swap(dev) || is_mounted(dev))
					continue;
				t->ndns = ndns;
				t->region = r;
				snprintf(t->blk, sizeof(t->blk), "%s", b);
				return EXIT_OK;
			}
		}
	ndctl_bus_foreach(ctx, bus)
		ndctl_region_foreach(bus, r) {
			if (region && r != region)
				continue;
			if (ndctl_region_get_type(r) != ND_DEVICE_REGION_PMEM ||
			    !ndctl_region_is_enabled(r))
				continue;
			if (!pick && ndctl_region_get_max_available_extent(r) >=
			    (a->size ? a->size : SZ_2M))
				pick = r;
		}
	if (!pick) {
		err("no pmem region with %s free space%s%s (see 'ndctl list -R')\n",
		    a->size ? "enough" : "any", region ? " in " : "",
		    region ? ndctl_region_get_devname(region) : "");
		return EXIT_NOTFOUND;
	}
	return create_ns(pick, a->size, t);
}

/* setup --wait: a fresh libndctl context per look, it reads sysfs once */
static struct ndctl_ctx *wait_for(struct ndctl_ctx *ctx, const char *name,
				   bool dax, int secs)
{
	struct timespec t0, now;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (dax ? !dax_present(name) : !ns_present(ctx, name)) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - t0.tv_sec) * 1000LL +
		    (now.tv_nsec - t0.tv_nsec) / 1000000 >= secs * 1000LL)
			break;	/* setup says what is missing */
		ndctl_unref(ctx);
		usleep(250000);
		if (ndctl_new(&ctx)) {
			err("cannot open libndctl\n");
			return NULL;
		}
	}
	return ctx;
}

static int setup(struct ndctl_ctx *ctx, const struct setup_args *a)
{
	struct target t = { 0 };
	char dev[80], sys[160], prev[64] = "";
	bool was_swap;
	int rc, flags = 0;

	if (a->dax) {
		rc = dax_resolve(a->dax, t.name, sizeof(t.name), false);
		if (rc)
			return rc;
		rc = dax_to_swap(t.name, t.blk, sizeof(t.blk), prev,
				 sizeof(prev));
		if (rc)
			return rc;
		dax_region(t.name, t.region_name, sizeof(t.region_name));
	} else {
		rc = a->ns ? target_named(ctx, a->ns, &t) :
			     target_pick(ctx, a, &t);
		if (rc)
			return rc;
		snprintf(t.name, sizeof(t.name), "%s",
			 ndctl_namespace_get_devname(t.ndns));
		snprintf(t.region_name, sizeof(t.region_name), "%s",
			 ndctl_region_get_devname(t.region));
	}
	rc = check_busy(&t, a->force, &was_swap);
	if (rc) {
		/* leave an instance with the driver it had */
		if (a->dax)
			dax_give_back(t.name, prev);
		return rc;
	}
	snprintf(dev, sizeof(dev), "/dev/%s", t.blk);
	if (was_swap && swapoff(dev)) {
		err("swapoff %s: %s\n", dev, strerror(errno));
		return EXIT_FAIL;
	}
	{
		char *argv[] = { "mkswap", "-L", "pmswap", dev, NULL };

		rc = run_quiet(argv);
		if (rc) {
			err("mkswap %s failed (exit %d)\n", dev, rc);
			goto fail;
		}
	}
	if (a->prio >= 0)
		flags = SWAP_FLAG_PREFER |
			((a->prio << SWAP_FLAG_PRIO_SHIFT) & SWAP_FLAG_PRIO_MASK);
	if (swapon(dev, flags)) {
		err("swapon %s: %s\n", dev, strerror(errno));
		goto fail;
	}
	snprintf(sys, sizeof(sys), SYS_PMEM "/%s", t.blk);
	if (!access(sys, F_OK))
		printf("%s (%s, %s) is pmem swap: data moves through the DAX mapping, 2 MiB-aligned extents\n",
		       dev, t.name, t.region_name);
	else if (!access(SYS_PMEM, F_OK))
		printf("%s (%s) is swap through the block layer: the kernel did not take it as pmem swap (its console says why)\n",
		       dev, t.name);
	else
		printf("%s (%s) is swap through the block layer: this kernel has no pmswap pmem backend\n",
		       dev, t.name);
	if (a->policy) {
		rc = setup_policy(t.blk, a->policy);
		if (rc)
			return rc;
	}
	if (a->persist && a->dax) {
		char ns[64], uu[37];
		struct ndctl_namespace *ndns;

		/* an NVDIMM devdax namespace by its UUID, else the instance */
		ndns = dax_namespace(t.name, ns, sizeof(ns)) ?
		       ns_find(ctx, ns) : NULL;
		if (ndns && ns_uuid(ndns, false, uu))
			return persist_write(uu, true, a->prio, a->policy);
		printf("%s belongs to no namespace with a UUID: the unit names it by its instance name\n",
		       t.name);
		return persist_write(t.name, true, a->prio, a->policy);
	}
	if (a->persist) {
		char uu[37];

		/*
		 * A namespace without labels (memmap=, e820 pmem, an NVDIMM
		 * without a label area) has no UUID: its name stays the
		 * same as long as the regions do.
		 */
		if (ns_uuid(t.ndns, false, uu))
			return persist_write(uu, false, a->prio, a->policy);
		printf("%s has no UUID (no labels): the unit names it by its device name\n",
		       ndctl_namespace_get_devname(t.ndns));
		return persist_write(ndctl_namespace_get_devname(t.ndns), false,
				     a->prio, a->policy);
	}
	return EXIT_OK;
fail:
	/* an instance that is not swap goes back to the driver it had */
	if (a->dax)
		dax_give_back(t.name, prev);
	return EXIT_FAIL;
}

int cmd_setup(const struct command *cmd, int argc, char **argv)
{
	struct setup_args a = { .prio = -1 };
	struct ndctl_ctx *ctx;
	char *end;
	int c, rc;
	long v;

	while ((c = cmd_getopt(cmd, argc, argv)) != -1) {
		switch (c) {
		case 'r': a.region = optarg; break;
		case 'n': a.ns = optarg; break;
		case 'd': a.dax = optarg; break;
		case 's':
			if (parse_size(optarg, &a.size)) {
				err("bad size '%s' (examples: 512M, 1G)\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'p':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || v < 0 ||
			    v > SWAP_FLAG_PRIO_MASK) {
				err("bad priority '%s' (0 to %d)\n", optarg,
				    SWAP_FLAG_PRIO_MASK);
				return EXIT_USAGE;
			}
			a.prio = v;
			break;
		case 'o':
			if (!policy_ok(optarg))
				return EXIT_USAGE;
			a.policy = optarg;
			break;
		case 'f': a.force = true; break;
		case 'w':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || v < 0 || v > 3600) {
				err("bad --wait '%s' (0 to 3600 seconds)\n", optarg);
				return EXIT_USAGE;
			}
			a.wait = v;
			break;
		case 'k': a.persist = true; break;
		case 'h': return EXIT_OK;
		default: return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		err("unexpected argument '%s'\n", argv[optind]);
		return EXIT_USAGE;
	}
	if (!!a.region + !!a.ns + !!a.dax > 1) {
		err("give one of --region, --namespace and --dax\n");
		return EXIT_USAGE;
	}
	if (a.dax && a.size) {
		err("--size is for a new namespace; --dax uses the whole instance\n");
		return EXIT_USAGE;
	}
	if (a.wait && !a.ns && !a.dax) {
		err("--wait is for 'setup --namespace' and 'setup --dax'\n");
		return EXIT_USAGE;
	}
	if (geteuid() != 0) {
		err("setup needs root (it changes namespaces and swap)\n");
		return EXIT_PERM;
	}
	rc = ndctl_new(&ctx);
	if (rc) {
		err("cannot open libndctl: %s\n", strerror(-rc));
		return EXIT_FAIL;
	}
	if (a.wait) {
		ctx = wait_for(ctx, a.dax ? a.dax : a.ns, a.dax, a.wait);
		if (!ctx)
			return EXIT_FAIL;
	}
	rc = setup(ctx, &a);
	ndctl_unref(ctx);
	return rc;
}
