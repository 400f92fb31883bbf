// SPDX-License-Identifier: GPL-2.0
/*
 * pmswap status: the active swap devices on pmem, as JSON objects built
 * once (json-c) and rendered as text, as JSON ("ndctl list" style) or in
 * the Prometheus text format.
 *
 * A device object carries what "ndctl list -N" calls the namespace (dev,
 * mode, blockdev, uuid, region), the swap area (swap, size and used in
 * bytes, priority), the kernel's I/O path, and "stats": every one-value
 * file of /sys/kernel/mm/pmswap/pmem/<disk>/stats/, under its own name.
 * The text and Prometheus renderings pick members by name.
 *
 * Copyright (C) 2026 pmswap developers
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <ndctl/libndctl.h>

#include "pmswap.h"

static int not_dot(const struct dirent *e)
{
	return e->d_name[0] != '.';
}

/*
 * stats/: every file, as a number under its name, in name order; NULL if
 * there is no such directory. A file that does not hold a number (none
 * does today) is left out.
 */
static struct json_object *stats_json(const char *blk)
{
	struct json_object *o;
	struct dirent **e;
	char path[512];
	int i, n;

	snprintf(path, sizeof(path), SYS_PMEM "/%.64s/stats", blk);
	n = scandir(path, &e, not_dot, alphasort);
	if (n < 0)
		return NULL;
	o = json_object_new_object();
	for (i = 0; i < n; i++) {
		long long v;

		snprintf(path, sizeof(path), SYS_PMEM "/%.64s/stats/%s", blk,
			 e[i]->d_name);
		v = read_num(path);
		if (v >= 0)
			json_object_object_add(o, e[i]->d_name, json_object_new_int64(v));
		free(e[i]);
	}
	free(e);
	return o;
}

static struct json_object *device_json(struct ndctl_ctx *ctx,
				       const struct swapent *sw, const char *blk)
{
	struct json_object *o = json_object_new_object(), *st;
	struct ndctl_namespace *ndns = ctx ? ns_find_blockdev(ctx, blk) : NULL;
	char path[320], buf[64], uu[37], inst[64], ns[64], region[64];
	bool pmem, dax = dax_blk_instance(blk, inst, sizeof(inst));

	/* a device-dax instance: its devdax namespace, if it has one */
	if (dax && ctx && dax_namespace(inst, ns, sizeof(ns)))
		ndns = ns_find(ctx, ns);
	json_object_object_add(o, "swap", json_object_new_string(sw->dev));
	json_object_object_add(o, "blockdev", json_object_new_string(blk));
	json_object_object_add(o, "dev", json_object_new_string(dax ? inst :
			       ndns ? ndctl_namespace_get_devname(ndns) : "?"));
	if (dax && ndns)
		json_object_object_add(o, "namespace", json_object_new_string(
				       ndctl_namespace_get_devname(ndns)));
	json_object_object_add(o, "mode", json_object_new_string(dax ? "devdax" :
			       ndns ? ns_mode_name(ndns) : "?"));
	if (ndns && ns_uuid(ndns, false, uu))
		json_object_object_add(o, "uuid", json_object_new_string(uu));
	if (dax)
		dax_region(inst, region, sizeof(region));
	else
		snprintf(region, sizeof(region), "%s", ndns ?
			 ndctl_region_get_devname(ndctl_namespace_get_region(ndns)) : "?");
	json_object_object_add(o, "region", json_object_new_string(region));
	json_object_object_add(o, "size", json_object_new_int64(sw->size_kb << 10));
	json_object_object_add(o, "used", json_object_new_int64(sw->used_kb << 10));
	json_object_object_add(o, "priority", json_object_new_int(sw->prio));
	/* a pmem swap device is one the kernel lists with its I/O path */
	snprintf(path, sizeof(path), SYS_PMEM "/%.64s/io", blk);
	pmem = !read_file(path, buf, sizeof(buf));
	json_object_object_add(o, "pmem_swap", json_object_new_boolean(pmem));
	json_object_object_add(o, "io", json_object_new_string(pmem ? buf : "block"));
	if (!pmem)
		return o;
	snprintf(path, sizeof(path), SYS_PMEM "/%.64s/inplace", blk);
	read_policy(path, buf, sizeof(buf));
	json_object_object_add(o, "inplace", buf[0] ? json_object_new_string(buf) : NULL);
	st = stats_json(blk);
	if (st)
		json_object_object_add(o, "stats", st);
	return o;
}

/* {"devices": [device...], "vmstat": {...}} */
static struct json_object *status_json(struct ndctl_ctx *ctx)
{
	struct json_object *o = json_object_new_object();
	struct json_object *devs = json_object_new_array();
	struct swapent sw[MAX_SWAPS];
	int i, n = read_swaps(sw, MAX_SWAPS);

	for (i = 0; i < n; i++) {
		const char *blk = strrchr(sw[i].dev, '/');

		blk = blk ? blk + 1 : sw[i].dev;
		if (!strncmp(sw[i].dev, "/dev/", 5) && is_swap_blk(blk))
			json_object_array_add(devs, device_json(ctx, &sw[i], blk));
	}
	json_object_object_add(o, "devices", devs);
	json_object_object_add(o, "vmstat", vmstat_json());
	return o;
}

static const char *str_of(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		return NULL;
	return json_object_get_string(v);
}

static struct json_object *member(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static void print_text(struct json_object *status)
{
	struct json_object *devs = member(status, "devices");
	struct json_object *vm = member(status, "vmstat");
	size_t i, n = json_object_array_length(devs), k;

	if (!n)
		printf("no pmem swap device is active\n");
	for (i = 0; i < n; i++) {
		struct json_object *d = json_object_array_get_idx(devs, i);
		struct json_object *st = member(d, "stats");
		const char *pol = str_of(d, "inplace");
		struct json_object *pm = member(d, "pmem_swap");

		printf("%s  %s on %s, mode %s\n", str_of(d, "swap"), str_of(d, "dev"),
		       str_of(d, "region"), str_of(d, "mode"));
		printf("  size %lld MiB, used %lld MiB, priority %lld\n",
		       json_num(d, "size") >> 20, json_num(d, "used") >> 20,
		       json_num(d, "priority"));
		if (!pm || !json_object_get_boolean(pm)) {
			printf("  I/O through the block layer (not a pmem swap device)\n");
			continue;
		}
		printf("  I/O path %s; huge extents %lld in use by THPs, %lld free of %lld\n",
		       str_of(d, "io"), json_num(st, "extents_huge"),
		       json_num(st, "extents_free"), json_num(st, "extents_total"));
		printf("  pages copied: %lld written, %lld read; read errors %lld, write fallbacks %lld\n",
		       json_num(st, "pages_written"), json_num(st, "pages_read"),
		       json_num(st, "read_errors"), json_num(st, "write_fallbacks"));
		printf("  poison: %lld memory-failure notices, %lld bad pages kept out at swapon\n",
		       json_num(st, "poison_notices"), json_num(st, "bad_pages"));
		if (!pol)
			continue;
		printf("  map in place: policy %s; %lld MiB of copies avoided\n",
		       pol, json_num(st, "inplace_copy_avoided_bytes") >> 20);
		printf("    THPs: %lld MiB mapped in place now, %lld maps, %lld promotions to DRAM\n",
		       json_num(st, "inplace_mapped_now") * 2, json_num(st, "inplace_maps"),
		       json_num(st, "inplace_promotions"));
		if (json_num(st, "inplace_pte_mapped_now") >= 0)
			printf("    4 KiB pages: %lld kB mapped in place now, %lld maps, %lld promotions to DRAM\n",
			       json_num(st, "inplace_pte_mapped_now") * 4,
			       json_num(st, "inplace_pte_maps"),
			       json_num(st, "inplace_pte_promotions"));
		if (json_num(st, "inplace_pte_maps_around") >= 0)
			printf("      of the maps, %lld around a faulting page (fault-around)\n",
			       json_num(st, "inplace_pte_maps_around"));
	}
	printf("counters:");
	for (k = 0; k < pmswap_nr_vm_keys; k++) {
		long long v = json_num(vm, pmswap_vm_keys[k]);

		printf("%s%s ", k % 4 ? ", " : "\n  ", pmswap_vm_keys[k]);
		if (v < 0)
			printf("n/a");
		else
			printf("%lld", v);
	}
	printf("\n");
}

/* --- Prometheus --- */

/* a label value: backslash, double quote and newline escaped */
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

static void prom_sample(const char *name, struct json_object *d, long long v)
{
	printf("pmswap_%s{device=\"", name);
	prom_label(str_of(d, "swap"));
	printf("\"} %lld\n", v);
}

/* a metric from a device member (@stat false) or a stats/ file, times @mul */
struct prom_metric {
	const char *name, *type, *help;
	const char *key;
	bool stat;
	long long mul;
};

static const struct prom_metric swap_metrics[] = {
	{ "swap_size_bytes", "gauge", "size of the swap area", "size", false, 1 },
	{ "swap_used_bytes", "gauge", "swap in use", "used", false, 1 },
	{ "swap_priority", "gauge", "swap priority", "priority", false, 1 },
};

static const struct prom_metric stat_metrics[] = {
	{ "pages_written_total", "counter", "4 KiB pages copied to pmem through DAX", "pages_written", true, 1 },
	{ "pages_read_total", "counter", "4 KiB pages copied from pmem through DAX", "pages_read", true, 1 },
	{ "read_errors_total", "counter", "reads from pmem that failed (poison, bad blocks)", "read_errors", true, 1 },
	{ "write_fallbacks_total", "counter", "writes that fell back from DAX to the block layer", "write_fallbacks", true, 1 },
	{ "poison_notices_total", "counter", "memory-failure notices on the swap area", "poison_notices", true, 1 },
	{ "bad_pages", "gauge", "known bad 4 KiB pages kept out of use", "bad_pages", true, 1 },
	{ "inplace_mapped_bytes", "gauge", "THP extents mapped in place now, in bytes (counted per mapping)", "inplace_mapped_now", true, 2LL << 20 },
	{ "inplace_maps_total", "counter", "THP extents mapped in place", "inplace_maps", true, 1 },
	{ "inplace_promotions_total", "counter", "THP extents promoted back to DRAM", "inplace_promotions", true, 1 },
	{ "inplace_copy_avoided_bytes_total", "counter", "bytes not copied because they were mapped in place", "inplace_copy_avoided_bytes", true, 1 },
	{ "inplace_pte_mapped_bytes", "gauge", "4 KiB pages mapped in place now, in bytes", "inplace_pte_mapped_now", true, 4096 },
	{ "inplace_pte_maps_total", "counter", "4 KiB pages mapped in place", "inplace_pte_maps", true, 1 },
	{ "inplace_pte_promotions_total", "counter", "4 KiB pages promoted back to DRAM", "inplace_pte_promotions", true, 1 },
	{ "inplace_pte_maps_around_total", "counter", "4 KiB pages mapped in place around a faulting page", "inplace_pte_maps_around", true, 1 },
};

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static void prom_metrics(const struct prom_metric *m, size_t nr,
			 struct json_object *devs)
{
	size_t i, n = json_object_array_length(devs);

	for (; nr--; m++) {
		prom_head(m->name, m->type, m->help);
		for (i = 0; i < n; i++) {
			struct json_object *d = json_object_array_get_idx(devs, i);
			struct json_object *src = m->stat ? member(d, "stats") : d, *v;

			/* not reported by this kernel, or map in place is off */
			if (!src || !json_object_object_get_ex(src, m->key, &v) || !v)
				continue;
			if (!strncmp(m->key, "inplace_", 8) && !str_of(d, "inplace"))
				continue;
			prom_sample(m->name, d, json_object_get_int64(v) * m->mul);
		}
	}
}

/*
 * node_exporter's textfile collector format: one HELP and TYPE line per
 * metric, then its samples, labelled by swap device.
 */
static void print_prometheus(struct json_object *status)
{
	static const char *const info[] = { "dev", "region", "mode", "io", "inplace" };
	static const char *const label[] = { "namespace", "region", "mode", "io", "inplace" };
	static const char *const ext_state[] = { "total", "free", "huge" };
	struct json_object *devs = member(status, "devices");
	struct json_object *vm = member(status, "vmstat");
	size_t i, j, n = json_object_array_length(devs);

	prom_head("devices", "gauge", "active swap devices on pmem");
	printf("pmswap_devices %zu\n", n);
	prom_head("swap_info", "gauge", "a pmem swap device: namespace, region, mode, I/O path, policy");
	for (i = 0; i < n; i++) {
		struct json_object *d = json_object_array_get_idx(devs, i);

		printf("pmswap_swap_info{device=\"");
		prom_label(str_of(d, "swap"));
		for (j = 0; j < ARRAY_SIZE(info); j++) {
			const char *v = str_of(d, info[j]);

			/* a device-dax instance: its namespace, if it has one */
			if (j == 0 && str_of(d, "namespace"))
				v = str_of(d, "namespace");

			printf("\",%s=\"", label[j]);
			prom_label(v ? v : "none");
		}
		printf("\"} 1\n");
	}
	prom_metrics(swap_metrics, ARRAY_SIZE(swap_metrics), devs);
	prom_head("extents", "gauge", "2 MiB extents of the swap area: total, free, in use by whole THPs");
	for (i = 0; i < n; i++) {
		struct json_object *d = json_object_array_get_idx(devs, i);

		for (j = 0; j < ARRAY_SIZE(ext_state); j++) {
			char key[32];
			long long v;

			snprintf(key, sizeof(key), "extents_%s", ext_state[j]);
			v = json_num(member(d, "stats"), key);
			if (v < 0)
				continue;
			printf("pmswap_extents{device=\"");
			prom_label(str_of(d, "swap"));
			printf("\",state=\"%s\"} %lld\n", ext_state[j], v);
		}
	}
	prom_metrics(stat_metrics, ARRAY_SIZE(stat_metrics), devs);
	prom_head("vm_events_total", "counter", "host-wide swap and map-in-place events from /proc/vmstat");
	for (j = 0; j < pmswap_nr_vm_keys; j++) {
		long long v = json_num(vm, pmswap_vm_keys[j]);

		if (v >= 0)	/* counter not in this kernel: no sample */
			printf("pmswap_vm_events_total{event=\"%s\"} %lld\n",
			       pmswap_vm_keys[j], v);
	}
}

int cmd_status(const struct command *cmd, int argc, char **argv)
{
	bool json = false, prom = false;
	struct json_object *status;
	struct ndctl_ctx *ctx = NULL;
	int c;

	while ((c = cmd_getopt(cmd, argc, argv)) != -1) {
		switch (c) {
		case 'j': json = true; break;
		case 'P': prom = true; break;
		case 'h': return EXIT_OK;
		default: return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		err("unexpected argument '%s'\n", argv[optind]);
		return EXIT_USAGE;
	}
	if (json && prom) {
		err("give --json or --prometheus, not both\n");
		return EXIT_USAGE;
	}
	/* without libndctl, status still works from /proc and sysfs */
	c = ndctl_new(&ctx);
	if (c) {
		err("cannot open libndctl: %s\n", strerror(-c));
		ctx = NULL;
	}
	status = status_json(ctx);
	if (json)
		json_print(status);
	else if (prom)
		print_prometheus(status);
	else
		print_text(status);
	json_object_put(status);
	if (ctx)
		ndctl_unref(ctx);
	return EXIT_OK;
}
