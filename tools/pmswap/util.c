// SPDX-License-Identifier: GPL-2.0
/*
 * pmswap tool: files, sizes, /proc/swaps, /proc/vmstat and JSON output,
 * for every command.
 *
 * Copyright (C) 2026 pmswap developers
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <json-c/json.h>

#include "pmswap.h"

void err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "pmswap: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

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

long long read_num(const char *path)
{
	char buf[64], *end;
	long long v;

	if (read_file(path, buf, sizeof(buf)))
		return -1;
	errno = 0;
	v = strtoll(buf, &end, 10);
	return errno || end == buf || *end ? -1 : v;
}

int write_str(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, val, strlen(val));
	if (close(fd))
		return -1;
	return n == (ssize_t)strlen(val) ? 0 : -1;
}

bool policy_ok(const char *policy)
{
	if (!strcmp(policy, "never") || !strcmp(policy, "read") ||
	    !strcmp(policy, "always"))
		return true;
	err("bad --policy '%s' (never, read or always)\n", policy);
	return false;
}

void read_policy(const char *path, char *out, size_t len)
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
	unsigned long long v;
	int shift = 0;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *s == '-')
		return -1;
	switch (toupper((unsigned char)*end)) {
	case 'G': shift = 30; end++; break;
	case 'M': shift = 20; end++; break;
	case 'K': shift = 10; end++; break;
	case 0: break;
	default: return -1;
	}
	if (v > ULLONG_MAX >> shift)
		return -1;
	v <<= shift;
	if (*end == 'i' || *end == 'B')
		end++;
	if (*end == 'B')
		end++;
	if (*end || !v)
		return -1;
	*out = v;
	return 0;
}

int run_quiet(char *const argv[])
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
		fprintf(stderr, "pmswap: cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* --- /proc/swaps, /proc/mounts, signatures --- */

int read_swaps(struct swapent *s, int max)
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

bool is_active_swap(const char *devpath)
{
	struct swapent s[MAX_SWAPS];
	int i, n = read_swaps(s, MAX_SWAPS);

	for (i = 0; i < n; i++)
		if (!strcmp(s[i].dev, devpath))
			return true;
	return false;
}

bool is_mounted(const char *devpath)
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

const char *fs_signature(const char *devpath)
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

/* --- counters and JSON --- */

const char *const pmswap_vm_keys[] = {
	"thp_swpout", "thp_swpout_pmd", "thp_swpout_pmd_fallback",
	"thp_swpout_fallback", "thp_swpin_pmd", "thp_swpin_pmd_fallback",
	"thp_split_swap_pmd", "pswpin", "pswpout", "pmswap_inplace_map",
	"pmswap_inplace_revert", "pmswap_inplace_promote",
	"pmswap_inplace_pte_map", "pmswap_inplace_pte_revert",
	"pmswap_inplace_pte_promote",
};
const size_t pmswap_nr_vm_keys = sizeof(pmswap_vm_keys) / sizeof(pmswap_vm_keys[0]);

struct json_object *vmstat_json(void)
{
	struct json_object *o = json_object_new_object();
	size_t k;

	for (k = 0; k < pmswap_nr_vm_keys; k++) {
		long v = kv_get("/proc/vmstat", pmswap_vm_keys[k]);

		json_object_object_add(o, pmswap_vm_keys[k],
				       v < 0 ? NULL : json_object_new_int64(v));
	}
	return o;
}

void json_print(struct json_object *obj)
{
	printf("%s\n", json_object_to_json_string_ext(obj,
		JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
}

long long json_num(struct json_object *obj, const char *key)
{
	struct json_object *v;

	if (!obj || !json_object_object_get_ex(obj, key, &v) || !v)
		return -1;
	return json_object_get_int64(v);
}
