// SPDX-License-Identifier: GPL-2.0
/*
 * pmswap - set up, inspect and turn off swap on persistent memory.
 *
 *   pmswap setup [--region R | --namespace N | --dax I] [--size S] ...
 *   pmswap status [--json | --prometheus]
 *   pmswap off [DEVICE | NAMESPACE] [--persist]
 *   pmswap run --memory-max SIZE ... -- CMD [ARG...]
 *
 * The command table and the option parser every command uses, in the
 * shape of ndctl: one file per command, each with an option table that
 * "pmswap COMMAND --help" prints. Namespaces are found and created with
 * libndctl, JSON is built with json-c. The kernel side
 * (CONFIG_PMSWAP_PMEM) reports each pmem swap device under
 * /sys/kernel/mm/pmswap/pmem/<disk>/.
 *
 * Exit codes: see EXIT_* in pmswap.h and pmswap(8).
 *
 * Copyright (C) 2026 pmswap developers
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmswap.h"

#define PMSWAP_VERSION	"0.3"
#define MAX_OPTS	16

static const struct cmd_option setup_opts[] = {
	{ "region", 'r', "REGION", "create the namespace in REGION (default: the first pmem region with room)" },
	{ "namespace", 'n', "NAMESPACE", "use this fsdax namespace: a name, a pmem device or its UUID" },
	{ "dax", 'd', "INSTANCE", "hand this device-dax instance (daxN.M, or its devdax namespace) to dax_swap and swap on it" },
	{ "size", 's', "SIZE", "size of a new namespace, K, M, G suffixes (default: the largest free extent)" },
	{ "priority", 'p', "PRIO", "swap priority, 0 to 32767 (default: the kernel's)" },
	{ "policy", 'o', "POLICY", "map-in-place policy of the device: never, read or always" },
	{ "force", 'f', NULL, "recreate active swap, overwrite a filesystem signature (never a mounted one)" },
	{ "wait", 'w', "SECS", "with --namespace: wait up to SECS seconds for it and its block device" },
	{ "persist", 'k', NULL, "also write and enable pmswap.service, which does this setup at boot" },
	{ "help", 'h', NULL, "this help" },
	{ NULL },
};

static const struct cmd_option status_opts[] = {
	{ "json", 'j', NULL, "one JSON object, shaped like \"ndctl list\" output" },
	{ "prometheus", 'P', NULL, "Prometheus text format, for node_exporter's textfile collector" },
	{ "help", 'h', NULL, "this help" },
	{ NULL },
};

static const struct cmd_option off_opts[] = {
	{ "persist", 'k', NULL, "also remove pmswap.service" },
	{ "help", 'h', NULL, "this help" },
	{ NULL },
};

static const struct cmd_option run_opts[] = {
	{ "memory-max", 'm', "SIZE", "memory.max of the new cgroup (required; \"max\" for none)" },
	{ "swap-max", 's', "SIZE", "memory.swap.max (0: no swap, the workload is OOM-killed instead)" },
	{ "policy", 'p', "POLICY", "map-in-place policy of every pmem swap device for the run" },
	{ "interval", 'i', "SECS", "a progress line on stderr every SECS seconds (default 5, 0: none)" },
	{ "json", 'j', NULL, "the report as one JSON object" },
	{ "help", 'h', NULL, "this help" },
	{ NULL },
};

static const struct command commands[] = {
	{ "setup", "[--region REGION | --namespace NAMESPACE | --dax INSTANCE] [OPTIONS]",
	  "use or create a 2 MiB-aligned fsdax namespace, or a device-dax instance, and swap on it",
	  "Without --namespace or --dax an unused fsdax namespace named \"pmswap\" is\n"
	  "reused, else one is created. --dax takes a device-dax instance from\n"
	  "device_dax (never one mapped by a process, nor one online as system RAM)\n"
	  "and swaps on /dev/daxswapN.M. Refuses a target that is active swap or\n"
	  "holds a filesystem unless --force; never touches a mounted one. Needs root.",
	  setup_opts, false, cmd_setup },
	{ "status", "[--json | --prometheus]",
	  "list pmem swap devices: size, use, extents, I/O path, counters",
	  "Does not need root.",
	  status_opts, false, cmd_status },
	{ "off", "[DEVICE | NAMESPACE] [--persist]",
	  "swapoff DEVICE or NAMESPACE (default: every pmem swap device)",
	  "Data in swap is brought back into memory first; nothing is lost. Needs root.",
	  off_opts, false, cmd_off },
	{ "run", "--memory-max SIZE [OPTIONS] -- CMD [ARG...]",
	  "run CMD in a new memory cgroup and report what swap did for it",
	  "Shows the cgroup's memory while CMD runs; at its exit: peak, swap, OOM\n"
	  "kills, THPs. Exits with CMD's status (128 + N if signal N killed it).\n"
	  "Needs root.",
	  run_opts, true, cmd_run },
};

#define NR_COMMANDS	(sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: pmswap COMMAND [OPTIONS]\n       pmswap --help | --version\n\n");
	for (i = 0; i < NR_COMMANDS; i++)
		fprintf(f, "  pmswap %s %s\n      %s\n", commands[i].name,
			commands[i].synopsis, commands[i].summary);
	fprintf(f,
"\n'pmswap COMMAND --help' lists the command's options.\n"
"exit codes: 0 ok, 1 operation failed, 2 usage, 3 not found,\n"
"            4 refused (busy or holds data), 5 not root\n");
}

void cmd_usage(const struct command *cmd, FILE *f)
{
	const struct cmd_option *o;

	fprintf(f, "usage: pmswap %s %s\n\n%s\n%s\n\n", cmd->name, cmd->synopsis,
		cmd->summary, cmd->description);
	for (o = cmd->opts; o->name; o++) {
		char head[48];

		snprintf(head, sizeof(head), "--%s%s%s", o->name,
			 o->arg ? " " : "", o->arg ? o->arg : "");
		fprintf(f, "  %-22s %s\n", head, o->help);
	}
}

int cmd_getopt(const struct command *cmd, int argc, char **argv)
{
	static const struct command *built;
	static struct option lopts[MAX_OPTS + 1];
	static char sopts[2 * MAX_OPTS + 2];
	int c, n;

	if (built != cmd) {
		const struct cmd_option *o;
		char *s = sopts;

		/* "+": stop at the first operand (run's command) */
		if (cmd->options_first)
			*s++ = '+';
		for (n = 0, o = cmd->opts; o->name; o++, n++) {
			if (n == MAX_OPTS) {
				err("%s has more than %d options\n", cmd->name, MAX_OPTS);
				exit(EXIT_FAIL);
			}
			lopts[n] = (struct option){ o->name,
				o->arg ? required_argument : no_argument, NULL, o->val };
			*s++ = o->val;
			if (o->arg)
				*s++ = ':';
		}
		lopts[n] = (struct option){ NULL, 0, NULL, 0 };
		*s = 0;
		built = cmd;
		optind = 1;
	}
	c = getopt_long(argc, argv, sopts, lopts, NULL);
	if (c == 'h')
		cmd_usage(cmd, stdout);
	else if (c == '?')
		fprintf(stderr, "usage: pmswap %s %s ('pmswap %s --help' for the options)\n",
			cmd->name, cmd->synopsis, cmd->name);
	return c;
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("pmswap %s\n", PMSWAP_VERSION);
		return EXIT_OK;
	}
	for (i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(argv[1], commands[i].name)) {
			static char name[32];

			/* what getopt_long() prefixes its messages with */
			snprintf(name, sizeof(name), "pmswap %s", commands[i].name);
			argv[1] = name;
			return commands[i].fn(&commands[i], argc - 1, argv + 1);
		}
	err("unknown command '%s'\n", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
