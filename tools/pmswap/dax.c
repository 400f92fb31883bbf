// SPDX-License-Identifier: GPL-2.0
/*
 * pmswap tool: device-dax instances as swap (setup --dax, off, status).
 *
 * A device-dax instance (daxN.M: an NVDIMM namespace in devdax mode, a CXL
 * or soft-reserved range) has no block device. The kernel's dax_swap
 * driver (CONFIG_PMSWAP_DAX) makes one, /dev/daxswapN.M, for an instance
 * handed to it through the DAX bus: unbound from device_dax, named to
 * dax_swap through new_id. Nothing here goes through libdaxctl: the DAX
 * bus's sysfs files are the interface, and libndctl only turns an NVDIMM
 * namespace (name or UUID) into its instance.
 *
 * Copyright (C) 2026 pmswap developers
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include <ndctl/libndctl.h>

#include "pmswap.h"

#define SYS_DAX		"/sys/bus/dax"
#define DAX_SWAP	SYS_DAX "/drivers/dax_swap"
#define DEVICE_DAX	SYS_DAX "/drivers/device_dax"

/* exactly "dax%u.%u" as the kernel prints it (no sign, space or 0 pad) */
bool dax_name_ok(const char *name)
{
	unsigned int region, id;
	char canon[64];

	if (strlen(name) >= sizeof(canon) ||
	    sscanf(name, "dax%u.%u", &region, &id) != 2)
		return false;
	snprintf(canon, sizeof(canon), "dax%u.%u", region, id);
	return !strcmp(canon, name);
}

bool dax_blk_instance(const char *blk, char *inst, size_t len)
{
	char name[64];

	if (strncmp(blk, "daxswap", 7))
		return false;
	snprintf(name, sizeof(name), "dax%s", blk + 7);
	if (!dax_name_ok(name))
		return false;
	snprintf(inst, len, "%s", name);
	return true;
}

bool is_swap_blk(const char *blk)
{
	char inst[64];

	return !strncmp(blk, "pmem", 4) || dax_blk_instance(blk, inst, sizeof(inst));
}

/* the driver bound to @inst ("device_dax", "kmem", "dax_swap"), "" if none */
static void dax_driver(const char *inst, char *buf, size_t len)
{
	char path[PATH_MAX], tgt[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), SYS_DAX "/devices/%s/driver", inst);
	n = readlink(path, tgt, sizeof(tgt) - 1);
	buf[0] = 0;
	if (n > 0) {
		tgt[n] = 0;
		snprintf(buf, len, "%.63s", strrchr(tgt, '/') ? strrchr(tgt, '/') + 1 : tgt);
	}
}

/*
 * The NVDIMM namespace of instance @inst ("namespace0.0"), from the nd
 * device the instance sits under; false for an instance of another kind.
 */
bool dax_namespace(const char *inst, char *ns, size_t len)
{
	char path[PATH_MAX], real[PATH_MAX], *slash;

	snprintf(path, sizeof(path), SYS_DAX "/devices/%s", inst);
	if (!realpath(path, real) || !(slash = strrchr(real, '/')))
		return false;
	snprintf(slash, sizeof(real) - (slash - real), "/namespace");
	return !read_file(real, ns, len) && ns[0];
}

/* the region the instance is in ("region0"), from its sysfs path */
void dax_region(const char *inst, char *region, size_t len)
{
	char path[PATH_MAX], real[PATH_MAX], *p, *found = NULL;

	snprintf(region, len, "?");
	snprintf(path, sizeof(path), SYS_DAX "/devices/%s", inst);
	if (!realpath(path, real))
		return;
	for (p = strtok(real, "/"); p; p = strtok(NULL, "/"))
		if (!strncmp(p, "region", 6))
			found = p;
	if (found)
		snprintf(region, len, "%s", found);
}

/*
 * @name as an instance: daxN.M itself (or its /dev/daxswapN.M), or the
 * instance of the devdax namespace @name names (its name or UUID). 0, or
 * an exit code, after a message unless @quiet.
 */
int dax_resolve(const char *name, char *inst, size_t len, bool quiet)
{
	struct ndctl_namespace *ndns;
	struct ndctl_ctx *ctx;
	struct ndctl_dax *dax;
	char pat[PATH_MAX];
	glob_t g;
	int rc;

	if (!strncmp(name, "/dev/", 5))
		name += 5;
	if (dax_name_ok(name)) {
		snprintf(inst, len, "%s", name);
		return EXIT_OK;
	}
	if (dax_blk_instance(name, inst, len))
		return EXIT_OK;
	rc = ndctl_new(&ctx);
	if (rc) {
		if (!quiet)
			err("cannot open libndctl: %s\n", strerror(-rc));
		return EXIT_FAIL;
	}
	ndns = ns_find(ctx, name);
	dax = ndns ? ndctl_namespace_get_dax(ndns) : NULL;
	if (ndns && !dax) {
		if (!quiet)
			err("%s is a namespace in %s mode, not devdax; for fsdax use 'pmswap setup --namespace %s'\n",
			    ndctl_namespace_get_devname(ndns), ns_mode_name(ndns),
			    ndctl_namespace_get_devname(ndns));
		ndctl_unref(ctx);
		return EXIT_REFUSED;
	}
	if (!dax) {
		if (!quiet)
			err("'%s' is neither a device-dax instance (daxN.M, see 'daxctl list') nor a devdax namespace (see 'ndctl list -N')\n",
		    name);
		ndctl_unref(ctx);
		return EXIT_NOTFOUND;
	}
	/* the instance is the child of the namespace's nd dax device */
	snprintf(pat, sizeof(pat), "/sys/bus/nd/devices/%s/dax*.*",
		 ndctl_dax_get_devname(dax));
	ndctl_unref(ctx);
	if (glob(pat, 0, NULL, &g) || !g.gl_pathc) {
		globfree(&g);
		if (!quiet)
			err("devdax namespace '%s' has no device-dax instance (is it enabled?)\n",
			    name);
		return EXIT_NOTFOUND;
	}
	snprintf(inst, len, "%s", strrchr(g.gl_pathv[0], '/') + 1);
	globfree(&g);
	return EXIT_OK;
}

/* is /dev/@inst mapped by a process? its pid, or 0 */
static long dax_user(const char *inst)
{
	char path[PATH_MAX], line[PATH_MAX + 128], want[80];
	struct dirent *d;
	long pid = 0;
	DIR *proc = opendir("/proc");
	FILE *f;

	if (!proc)
		return 0;
	snprintf(want, sizeof(want), " /dev/%s\n", inst);
	while (!pid && (d = readdir(proc))) {
		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/maps", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (strstr(line, want)) {
				pid = atol(d->d_name);
				break;
			}
		fclose(f);
	}
	closedir(proc);
	return pid;
}

static int dax_write(const char *drv, const char *file, const char *inst)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", drv, file);
	return write_str(path, inst);
}

/* wait up to @ms for /dev/daxswapN.M to be a block device */
static bool dax_wait_blk(const char *blk, int ms)
{
	char dev[96];
	struct stat st;

	snprintf(dev, sizeof(dev), "/dev/%s", blk);
	for (; ms > 0; ms -= 50) {
		if (!stat(dev, &st) && S_ISBLK(st.st_mode))
			return true;
		usleep(50000);
	}
	return !stat(dev, &st) && S_ISBLK(st.st_mode);
}

/*
 * Hand @inst to dax_swap: its block device name into @blk ("daxswap0.0"),
 * and in @prev the driver it had ("" if none, "dax_swap" if it had it
 * already), for dax_give_back(). 0, or an exit code after a message.
 */
int dax_to_swap(const char *inst, char *blk, size_t len, char *prev,
		size_t plen)
{
	char path[PATH_MAX], drv[64];
	long pid;

	snprintf(blk, len, "daxswap%s", inst + 3);
	prev[0] = 0;
	snprintf(path, sizeof(path), SYS_DAX "/devices/%s", inst);
	if (access(path, F_OK)) {
		err("no device-dax instance %s (see 'daxctl list')\n", inst);
		return EXIT_NOTFOUND;
	}
	if (access(DAX_SWAP, F_OK)) {
		char *argv[] = { "modprobe", "-q", "dax_swap", NULL };

		run_quiet(argv);
		if (access(DAX_SWAP, F_OK)) {
			err("this kernel has no dax_swap driver (CONFIG_PMSWAP_DAX): it cannot swap on a device-dax instance\n");
			return EXIT_FAIL;
		}
	}
	dax_driver(inst, drv, sizeof(drv));
	snprintf(prev, plen, "%s", drv);
	if (!strcmp(drv, "dax_swap")) {
		if (dax_wait_blk(blk, 5000))
			return EXIT_OK;
		err("%s is with dax_swap, but /dev/%s did not appear\n", inst, blk);
		return EXIT_FAIL;
	}
	if (!strcmp(drv, "kmem")) {
		err("%s is online as system RAM (kmem); make it a device-dax instance first: daxctl reconfigure-device -m devdax %s\n",
		    inst, inst);
		return EXIT_REFUSED;
	}
	if (drv[0] && strcmp(drv, "device_dax")) {
		err("%s is bound to driver %s; unbind it first\n", inst, drv);
		return EXIT_REFUSED;
	}
	/* what dax_swap's probe would refuse, before taking it away */
	snprintf(path, sizeof(path), SYS_DAX "/devices/%s/size", inst);
	if (read_num(path) <= 0) {
		err("%s has no memory (size 0)\n", inst);
		return EXIT_REFUSED;
	}
	snprintf(path, sizeof(path), SYS_DAX "/devices/%s/mapping1", inst);
	if (!access(path, F_OK)) {
		err("%s is made of several ranges; dax_swap needs one contiguous range\n",
		    inst);
		return EXIT_REFUSED;
	}
	pid = dax_user(inst);
	if (pid) {
		err("/dev/%s is mapped by process %ld; taking it away would kill that process's mapping\n",
		    inst, pid);
		return EXIT_REFUSED;
	}
	if (drv[0] && dax_write(DEVICE_DAX, "unbind", inst)) {
		err("cannot unbind %s from device_dax: %s\n", inst, strerror(errno));
		return EXIT_FAIL;
	}
	/* new_id binds it; bind covers an id dax_swap already had */
	if (dax_write(DAX_SWAP, "new_id", inst) && errno != EEXIST)
		err("warning: new_id %s: %s\n", inst, strerror(errno));
	dax_driver(inst, drv, sizeof(drv));
	/*
	 * device_dax took an instance that had no driver in between (its
	 * module loading at boot, while the unit runs): take it once more
	 */
	if (!strcmp(drv, "device_dax") && !prev[0] && !dax_user(inst)) {
		snprintf(prev, plen, "device_dax");
		if (dax_write(DEVICE_DAX, "unbind", inst))
			err("warning: cannot unbind %s from device_dax: %s\n",
			    inst, strerror(errno));
		dax_driver(inst, drv, sizeof(drv));
	}
	if (strcmp(drv, "dax_swap"))
		dax_write(DAX_SWAP, "bind", inst);
	dax_driver(inst, drv, sizeof(drv));
	if (strcmp(drv, "dax_swap") || !dax_wait_blk(blk, 5000)) {
		err("dax_swap did not take %s (the kernel log says why)\n",
		    inst);
		dax_give_back(inst, prev);
		return EXIT_FAIL;
	}
	/* bound: the id must not bind a later instance of that name unasked */
	dax_write(DAX_SWAP, "remove_id", inst);
	printf("%s: handed from %s to dax_swap: /dev/%s\n", inst,
	       prev[0] ? prev : "no driver", blk);
	return EXIT_OK;
}

/* Give @inst back to the driver @prev it had before dax_to_swap(). */
void dax_give_back(const char *inst, const char *prev)
{
	char drv[64];

	if (!strcmp(prev, "dax_swap"))
		return;
	dax_driver(inst, drv, sizeof(drv));
	if (!strcmp(drv, "dax_swap") && dax_write(DAX_SWAP, "unbind", inst))
		err("warning: cannot unbind %s from dax_swap: %s\n", inst,
		    strerror(errno));
	dax_write(DAX_SWAP, "remove_id", inst);
	if (!strcmp(prev, "device_dax") && dax_write(DEVICE_DAX, "bind", inst))
		err("warning: cannot give %s back to device_dax: %s\n", inst,
		    strerror(errno));
}

/* setup --dax --wait: until the instance (or namespace) is there */
bool dax_present(const char *name)
{
	char inst[64], path[PATH_MAX];

	/* quiet while polling: setup says what is missing at the end */
	switch (dax_resolve(name, inst, sizeof(inst), true)) {
	case EXIT_OK:
		break;
	case EXIT_REFUSED:
		return true;	/* there, but never usable: setup says why */
	default:
		return false;
	}
	snprintf(path, sizeof(path), SYS_DAX "/devices/%s", inst);
	return !access(path, F_OK);
}
