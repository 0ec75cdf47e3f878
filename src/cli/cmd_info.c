// SPDX-License-Identifier: GPL-3.0-or-later
/* fpulab info: the CPU, its extended-state components and the kernel's FPU facts. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "fpulab/cpu.h"
#include "cli.h"

/* Placeholder until the xstate layer lands: CPU identity and XCR0 only. */
static int info_main(int argc, char **argv)
{
	struct fpl_cpu *cpu = malloc(sizeof(*cpu));

	if (argc > 1) {
		free(cpu);
		return fpl_cli_usage_error("info", "unexpected argument '%s'", argv[1]);
	}
	fpl_cpu_read(cpu);
	printf("cpu   %s (%s family 0x%x model 0x%x stepping 0x%x)\n", cpu->brand,
	       cpu->vendor, cpu->family, cpu->model, cpu->stepping);
	printf("xcr0  0x%" PRIx64 "\n", cpu->xcr0);
	free(cpu);
	return FPL_EXIT_OK;
}

const struct fpl_cmd fpl_cmd_info = {
	.name = "info",
	.summary = "CPU, XCR0/XINUSE, extended-state components, kernel ABI facts",
	.usage = "Usage: fpulab info\n",
	.main = info_main,
};
