// SPDX-License-Identifier: GPL-2.0
/*
 * pmswap tool: finding namespaces and regions with libndctl.
 *
 * Copyright (C) 2026 pmswap developers
 */
#define _GNU_SOURCE
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <ndctl/libndctl.h>
#include <uuid/uuid.h>

#include "pmswap.h"

const char *ns_mode_name(struct ndctl_namespace *ndns)
{
	switch (ndctl_namespace_get_mode(ndns)) {
	case NDCTL_NS_MODE_FSDAX: return "fsdax";
	case NDCTL_NS_MODE_SECTOR: return "sector";
	case NDCTL_NS_MODE_RAW: return "raw";
	case NDCTL_NS_MODE_DEVDAX: return "devdax";
	default: return "unknown";
	}
}

const char *ns_blockdev(struct ndctl_namespace *ndns)
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
 * The UUID "ndctl list" shows for @ndns: that of its fsdax (pfn) or devdax
 * device, written in the info block on the media, or else the one in the
 * namespace's label (@raw: always the label's). False if it has none (a
 * namespace without labels).
 */
bool ns_uuid(struct ndctl_namespace *ndns, bool raw, char out[37])
{
	struct ndctl_pfn *pfn = ndctl_namespace_get_pfn(ndns);
	struct ndctl_dax *dax = ndctl_namespace_get_dax(ndns);
	uuid_t uu;

	if (pfn && !raw)
		ndctl_pfn_get_uuid(pfn, uu);
	else if (dax && !raw)
		ndctl_dax_get_uuid(dax, uu);
	else
		ndctl_namespace_get_uuid(ndns, uu);
	if (uuid_is_null(uu))
		return false;
	uuid_unparse_lower(uu, out);
	return true;
}

bool ns_named(struct ndctl_namespace *ndns, const char *name)
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

/* the last namespace that @name names (see ns_named()), or NULL */
struct ndctl_namespace *ns_find(struct ndctl_ctx *ctx, const char *name)
{
	struct ndctl_namespace *ndns, *found = NULL;
	struct ndctl_region *region;
	struct ndctl_bus *bus;

	ndctl_bus_foreach(ctx, bus)
		ndctl_region_foreach(bus, region)
			ndctl_namespace_foreach(region, ndns)
				if (ns_named(ndns, name))
					found = ndns;
	return found;
}

/*
 * At boot, nd_pmem may still be probing when pmswap.service starts: setup
 * --wait polls for the namespace rather than waiting for every device
 * (systemd-udev-settle).
 */
bool ns_present(struct ndctl_ctx *ctx, const char *name)
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

struct ndctl_namespace *ns_find_blockdev(struct ndctl_ctx *ctx, const char *blk)
{
	struct ndctl_namespace *ndns;
	struct ndctl_region *region;
	struct ndctl_bus *bus;

	ndctl_bus_foreach(ctx, bus)
		ndctl_region_foreach(bus, region)
			ndctl_namespace_foreach(region, ndns) {
				const char *b = ns_blockdev(ndns);

				if (b && !strcmp(b, blk))
					return ndns;
			}
	return NULL;
}

const char *ns_unsuitable(struct ndctl_namespace *ndns)
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

struct ndctl_region *region_find(struct ndctl_ctx *ctx, const char *name)
{
	struct ndctl_region *region;
	struct ndctl_bus *bus;

	ndctl_bus_foreach(ctx, bus)
		ndctl_region_foreach(bus, region)
			if (!strcmp(ndctl_region_get_devname(region), name))
				return region;
	return NULL;
}
