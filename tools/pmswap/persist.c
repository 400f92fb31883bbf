// SPDX-License-Identifier: GPL-2.0
/*
 * pmswap setup --persist / pmswap off --persist: swap on pmem at every
 * boot, through one systemd service.
 *
 * Why a service and not a .swap unit: the map-in-place policy is a
 * per-device sysfs file that exists only once the device is swap, and
 * /dev/pmemN names depend on probe order. "pmswap setup --namespace
 * UUID" finds the namespace by the UUID "ndctl list" shows (kept in the
 * fsdax info block on the media), refuses it if a filesystem appeared on
 * it since (no --force at boot), writes the swap signature, swaps on and
 * sets the policy. A volatile target (memmap= pmem) loses that info
 * block at reboot and is not supported. There is one unit.
 *
 * A device-dax instance (setup --dax) is recorded the same way, by the
 * UUID of its devdax namespace if it has one, else by its name (daxN.M,
 * stable while the regions are); at boot the unit hands it to dax_swap
 * again.
 *
 * At boot the unit waits for the namespace itself (setup --wait), after
 * udev's coldplug trigger, rather than for every device to settle
 * (systemd-udev-settle is deprecated). Every word of its command lines is
 * quoted the way systemd parses them, so a path with a space, a '%' or a
 * '$' runs as written (systemd refuses one with a quote or a backslash).
 *
 * The unit goes to /etc/systemd/system (PMSWAP_SYSTEMD_DIR overrides it,
 * for tests and image builders), enabled the way "systemctl enable" does
 * for WantedBy=swap.target: a symlink in swap.target.wants/. Nothing here
 * needs a running systemd; when one runs, it is told to reload.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pmswap.h"

#define UNIT		"pmswap.service"
#define WANTS		"swap.target.wants"
/* seconds the boot unit waits for the namespace to appear */
#define PERSIST_WAIT	90

static const char *unit_dir(void)
{
	const char *d = getenv("PMSWAP_SYSTEMD_DIR");

	return d && *d ? d : "/etc/systemd/system";
}

/* Tell a running systemd that units changed; nothing to do without one. */
static void daemon_reload(void)
{
	pid_t pid;
	int st;

	if (getenv("PMSWAP_SYSTEMD_DIR") || access("/run/systemd/system", F_OK))
		return;
	pid = fork();
	if (pid == 0) {
		execlp("systemctl", "systemctl", "daemon-reload", (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) ||
	    WEXITSTATUS(st))
		err("warning: 'systemctl daemon-reload' failed; run it by hand\n");
}

/*
 * Write @word as one double-quoted word of a unit's command line. systemd
 * expands '%' specifiers in every word, and '$' variables in arguments
 * (@exe false) but not in the program's path (@exe true), and takes C
 * escapes inside quotes. It refuses a program path with a quote or a
 * backslash. False for a word the unit cannot hold that way (that, or a
 * control character).
 */
static bool unit_word(FILE *f, const char *word, bool exe)
{
	const char *c;

	for (c = word; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f ||
		    (exe && strchr("\"'\\", *c)))
			return false;
	fputc('"', f);
	for (c = word; *c; c++) {
		if (*c == '%' || (*c == '$' && !exe))
			fputc(*c, f);
		else if (*c == '\\' || *c == '"' || *c == '\'')
			fputc('\\', f);
		fputc(*c, f);
	}
	fputc('"', f);
	return true;
}

/*
 * @id: how the unit finds the namespace at boot, its UUID (or, for a
 * namespace without labels, its name); with @dax, the device-dax instance
 * (setup --dax): its namespace's UUID, or the instance's name
 */
int persist_write(const char *id, bool dax, int prio, const char *policy)
{
	char exe[512], path[600], tmp[620], link[640], dir[620];
	const char *d = unit_dir();
	char prio_opt[32] = "", policy_opt[48] = "";
	bool ok;
	ssize_t n;
	FILE *f;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0) {
		err("--persist: cannot find this program's path: %s\n",
		    strerror(errno));
		return EXIT_FAIL;
	}
	exe[n] = 0;
	if (prio >= 0)
		snprintf(prio_opt, sizeof(prio_opt), " --priority %d", prio);
	if (policy)
		snprintf(policy_opt, sizeof(policy_opt), " --policy %s", policy);

	snprintf(path, sizeof(path), "%s/" UNIT, d);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f) {
		err("--persist: cannot write %s: %s (swap is on for this boot only)\n",
		    tmp, strerror(errno));
		return EXIT_FAIL;
	}
	fprintf(f,
		"# Written by 'pmswap setup --persist'; 'pmswap off --persist' removes it.\n"
		"[Unit]\n"
		"Description=Swap on persistent memory (pmswap)\n"
		"Documentation=man:pmswap(8)\n"
		"DefaultDependencies=no\n"
		"After=systemd-udev-trigger.service systemd-modules-load.service\n"
		"Before=swap.target umount.target\n"
		"Conflicts=umount.target\n"
		"\n"
		"[Service]\n"
		"Type=oneshot\n"
		"RemainAfterExit=yes\n"
		"ExecStart=");
	ok = unit_word(f, exe, true);
	fprintf(f, dax ? " setup --dax " : " setup --namespace ");
	ok = ok && unit_word(f, id, false);
	fprintf(f, " --wait %d%s%s\nExecStop=", PERSIST_WAIT, prio_opt,
		policy_opt);
	ok = ok && unit_word(f, exe, true);
	fprintf(f, " off ");
	ok = ok && unit_word(f, id, false);
	fprintf(f, "\n\n[Install]\nWantedBy=swap.target\n");
	if (!ok) {
		fclose(f);
		unlink(tmp);
		err("--persist: systemd cannot run %s from a unit (a quote, a backslash or a control character in its path), or the namespace name has a control character; install pmswap elsewhere (swap is on for this boot only)\n",
		    exe);
		return EXIT_FAIL;
	}
	if (fclose(f) || rename(tmp, path)) {
		err("--persist: cannot write %s: %s (swap is on for this boot only)\n",
		    path, strerror(errno));
		unlink(tmp);
		return EXIT_FAIL;
	}
	snprintf(dir, sizeof(dir), "%s/" WANTS, d);
	if (mkdir(dir, 0755) && errno != EEXIST) {
		err("--persist: cannot create %s: %s (swap is on for this boot only; %s is written but not enabled)\n",
		    dir, strerror(errno), path);
		return EXIT_FAIL;
	}
	snprintf(link, sizeof(link), "%s/" UNIT, dir);
	unlink(link);
	if (symlink("../" UNIT, link)) {
		err("--persist: cannot enable %s (symlink %s): %s (swap is on for this boot only)\n",
		    path, link, strerror(errno));
		return EXIT_FAIL;
	}
	daemon_reload();
	printf("%s written and enabled (swap.target): %s %s comes back as swap at boot\n",
	       path, dax ? "device-dax instance" : "namespace", id);
	return EXIT_OK;
}

int persist_remove(void)
{
	char path[600], link[640];
	const char *d = unit_dir();
	int gone = 0;

	snprintf(link, sizeof(link), "%s/" WANTS "/" UNIT, d);
	snprintf(path, sizeof(path), "%s/" UNIT, d);
	if (!unlink(link))
		gone++;
	else if (errno != ENOENT) {
		err("--persist: cannot remove %s: %s\n", link, strerror(errno));
		return EXIT_FAIL;
	}
	if (!unlink(path))
		gone++;
	else if (errno != ENOENT) {
		err("--persist: cannot remove %s: %s\n", path, strerror(errno));
		return EXIT_FAIL;
	}
	if (!gone) {
		err("--persist: no %s to remove (nothing was persisted)\n", path);
		return EXIT_NOTFOUND;
	}
	daemon_reload();
	printf("%s removed: pmem swap is no longer set up at boot\n", path);
	return EXIT_OK;
}
