// SPDX-License-Identifier: GPL-2.0
/*
 * pmswap off: swapoff one device (or the block device of a namespace,
 * named or by UUID, or of a device-dax instance), or every swap device on
 * pmem; --persist also removes the boot unit (persist.c). An instance
 * stays with dax_swap: "swapon /dev/daxswapN.M" takes it back.
 *
 * Copyright (C) 2026 pmswap developers
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/swap.h>

#include <ndctl/libndctl.h>

#include "pmswap.h"

/*
 * "/dev/pmemN" for @which: a device, or a namespace's block device;
 * "/dev/daxswapN.M" for a device-dax instance or its devdax namespace
 */
static void off_target(const char *which, char *want, size_t len)
{
	struct ndctl_namespace *ndns = NULL;
	struct ndctl_ctx *ctx;
	char inst[64];
	int rc;

	if (!dax_resolve(which, inst, sizeof(inst), true)) {
		snprintf(want, len, "/dev/daxswap%s", inst + 3);
		return;
	}
	/* libndctl only to turn a namespace name or UUID into a device */
	rc = ndctl_new(&ctx);

	if (rc)
		err("cannot open libndctl: %s\n", strerror(-rc));
	if (!rc) {
		ndns = ns_find(ctx, which);
		if (ndns && ns_blockdev(ndns)) {
			snprintf(want, len, "/dev/%s", ns_blockdev(ndns));
			ndctl_unref(ctx);
			return;
		}
		ndctl_unref(ctx);
	}
	snprintf(want, len, "%s%s", strncmp(which, "/dev/", 5) ? "/dev/" : "", which);
}

int cmd_off(const struct command *cmd, int argc, char **argv)
{
	struct swapent sw[MAX_SWAPS];
	int c, i, n, done = 0, rc = EXIT_OK;
	const char *which = NULL;
	bool persist = false;
	char want[300] = "";

	while ((c = cmd_getopt(cmd, argc, argv)) != -1) {
		switch (c) {
		case 'k': persist = true; break;
		case 'h': return EXIT_OK;
		default: return EXIT_USAGE;
		}
	}
	if (optind < argc)
		which = argv[optind++];
	if (optind < argc) {
		err("unexpected argument '%s'\n", argv[optind]);
		return EXIT_USAGE;
	}
	if (geteuid() != 0) {
		err("off needs root (it changes namespaces and swap)\n");
		return EXIT_PERM;
	}
	if (persist) {
		rc = persist_remove();
		if (rc == EXIT_FAIL)
			return rc;
		/* nothing persisted and nothing to swap off: say both */
		if (rc == EXIT_NOTFOUND)
			persist = false;
		rc = EXIT_OK;
	}
	if (which)
		off_target(which, want, sizeof(want));
	n = read_swaps(sw, MAX_SWAPS);
	for (i = 0; i < n; i++) {
		const char *blk = strrchr(sw[i].dev, '/');

		blk = blk ? blk + 1 : sw[i].dev;
		if (which ? strcmp(sw[i].dev, want) :
			    strncmp(sw[i].dev, "/dev/", 5) || !is_swap_blk(blk))
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
