// SPDX-License-Identifier: GPL-3.0-or-later
/* fpulab list: the benchmarks built in, whether this CPU runs them, and their options. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int list_main(int argc, char **argv)
{
	struct fpl_cpu *cpu;

	if (argc > 1)
		return fpl_cli_usage_error("list", "unexpected argument '%s'", argv[1]);
	cpu = malloc(sizeof(*cpu));
	if (!cpu)
		return fpl_cli_error("list", FPL_EXIT_FAIL, "out of memory");
	fpl_cpu_read(cpu);
	for (size_t i = 0; i < fpl_nbenches; i++) {
		const struct fpl_bench *b = fpl_benches[i];
		const char *why = NULL;
		bool ok = !b->supported || b->supported(cpu, &why);

		printf("%-10s %s\n", b->name, b->summary);
		printf("    this CPU: %s%s\n", ok ? "runs it" : "cannot run it: ",
		       ok ? "" : why ? why : "unsupported");
		for (const struct fpl_opt *o = b->opts; o && o->name; o++) {
			printf("    --%-14s %s", o->name, o->help ? o->help : "");
			if (o->def)
				printf(" (default %s)", o->def);
			putchar('\n');
		}
	}
	if (!fpl_nbenches)
		printf("(no benchmarks built in)\n");
	printf("\nEvery benchmark also takes: --json, -o FILE, --format table|json|csv, --cpu N, "
	       "--quick, --budget SECONDS, --units U, -q\n");
	free(cpu);
	return FPL_EXIT_OK;
}

const struct fpl_cmd fpl_cmd_list = {
	.name = "list",
	.summary = "benchmarks and their options",
	.usage = "Usage: fpulab list\nList the benchmarks built in, whether this CPU can run "
		 "each, and their options.\n",
	.main = list_main,
};
