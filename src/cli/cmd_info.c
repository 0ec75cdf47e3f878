// SPDX-License-Identifier: GPL-3.0-or-later
/* fpulab info: the CPU, its extended-state components and the kernel's FPU facts. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpulab/cpu.h"
#include "fpulab/host.h"
#include "fpulab/sysinfo.h"
#include "fpulab/xstate.h"
#include "report/kernelview.h"
#include "fpulab/report.h"
#include "cli.h"

struct info_opts {
	bool json, dump;
	bool kernel_trace;	/* --kernel-trace: this task's xcomp_bv from tracefs */
	const char *cpuid, *output;
};

static int emit(const struct info_opts *o, const struct fpl_cpu *cpu,
		const struct fpl_xstate *xs, const struct fpl_sysinfo *si, FILE *f)
{
	json_t *kview;

	if (o->dump)
		return fpl_cpu_save(cpu, f);
	if (!o->json) {
		kview = fpl_kview_info_json(cpu, xs, o->kernel_trace);
		fpl_table_info(f, cpu, xs, si, kview);
		json_decref(kview);
		return 0;
	}
	return fpl_json_info(f, cpu, xs, si, o->kernel_trace);
}

/*
 * An ending signal (INT, TERM, HUP, QUIT) while the report is made: it is
 * only noted, so that --kernel-trace's tracefs instance is removed
 * (fpl_ktrace_close) before the signal takes effect, with no output.
 */
static volatile sig_atomic_t info_signo;

static void info_on_signal(int sig)
{
	info_signo = sig;
}

/* Write everything to memory first so that -o FILE is never left half-written. */
static int output(const struct info_opts *o, const struct fpl_cpu *cpu,
		  const struct fpl_xstate *xs, const struct fpl_sysinfo *si)
{
	struct sigaction old[FPL_CLI_NEND_SIGS];
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int err;

	if (!m)
		return fpl_cli_error("info", FPL_EXIT_FAIL, "out of memory");
	info_signo = 0;
	fpl_cli_catch_end(info_on_signal, old);
	err = emit(o, cpu, xs, si, m);
	fpl_cli_uncatch_end(old);
	fclose(m);
	if (info_signo) {
		free(buf);
		signal(info_signo, SIG_DFL);
		raise(info_signo);
		return FPL_EXIT_FAIL;
	}
	if (err) {
		free(buf);
		return fpl_cli_error("info", FPL_EXIT_FAIL, "%s", strerror(-err));
	}
	if (!o->output) {
		fwrite(buf, 1, len, stdout);
		free(buf);
		return fflush(stdout) ? FPL_EXIT_FAIL : FPL_EXIT_OK;
	}
	err = fpl_cli_write_file("info", o->output, buf, len);
	free(buf);
	return err;
}

static int parse(int argc, char **argv, struct info_opts *o)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "dump-cpuid", no_argument, NULL, 'd' },
		{ "cpuid", required_argument, NULL, 'c' },
		{ "output", required_argument, NULL, 'o' },
		{ "kernel-trace", no_argument, NULL, 'k' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:", longopts, NULL)) != -1) {
		switch (c) {
		case 'j': o->json = true; break;
		case 'd': o->dump = true; break;
		case 'c': o->cpuid = optarg; break;
		case 'o': o->output = optarg; break;
		case 'k': o->kernel_trace = true; break;
		default:
			return fpl_cli_getopt_error("info", c, argc, argv);
		}
	}
	if (optind < argc)
		return fpl_cli_usage_error("info", "unexpected argument '%s'", argv[optind]);
	if (o->json && o->dump)
		return fpl_cli_usage_error("info", "--json and --dump-cpuid exclude each other");
	return 0;
}

static int info_main(int argc, char **argv)
{
	struct info_opts o = { 0 };
	struct fpl_cpu *cpu = malloc(sizeof(*cpu));
	struct fpl_xstate xs;
	struct fpl_sysinfo si;
	struct fpl_diag diag = { "" };
	int rc = parse(argc, argv, &o);

	if (rc || !cpu) {
		free(cpu);
		return rc ? rc : fpl_cli_error("info", FPL_EXIT_FAIL, "out of memory");
	}
	if (o.cpuid) {
		if (fpl_cpu_load(cpu, o.cpuid, &diag)) {
			free(cpu);
			return fpl_cli_error("info", FPL_EXIT_USAGE, "%s", diag.msg);
		}
	} else {
		fpl_cpu_read(cpu);
	}
	fpl_xstate_init(&xs, cpu);
	fpl_sysinfo_read(&si);
	rc = output(&o, cpu, &xs, &si);
	free(cpu);
	return rc;
}

const struct fpl_cmd fpl_cmd_info = {
	.name = "info",
	.summary = "CPU, XCR0/XINUSE, extended-state components, kernel ABI facts",
	.usage =
	"Usage: fpulab info [--json] [--cpuid FILE] [--dump-cpuid] [--kernel-trace] [-o FILE]\n"
	"Show the CPU, XCR0 and XINUSE, every extended-state component CPUID 0xD\n"
	"enumerates (size, standard and compacted offsets, alignment, XFD), the XSAVE\n"
	"sizes and instructions, the three masks every size comes from (XCR0;\n"
	"permitted: ARCH_GET_XCOMP_PERM; active: permitted minus XFD-armed components\n"
	"this task has not used) with the signal-frame size they give, the AMX\n"
	"palette (CPUID 0x1D/0x1E), what the running kernel says about FPU state\n"
	"(release, AT_MINSIGSTKSZ, ARCH_GET_XCOMP_SUPP/PERM, /proc/self/arch_status),\n"
	"and the kernel's own view: its x86/fpu boot lines (dmesg) checked against\n"
	"the layout computed from CPUID.\n"
	"\n"
	"  --json         the same as one JSON object {\"host\": {...}}\n"
	"  --cpuid FILE   describe the CPU in a dump (fpulab's own format or\n"
	"                 InstLatx64/AIDA64 'CPUID 0000000D: ...') instead of this one;\n"
	"                 XINUSE is then n/a, kernel facts remain this machine's;\n"
	"                 leaves the dump lacks are named in a note (they read as 0)\n"
	"  --dump-cpuid   write a dump of the CPU (this one, or the --cpuid FILE)\n"
	"  --kernel-trace also the xcomp_bv the kernel keeps for this task (tracefs\n"
	"                 x86_fpu events over a few short sleeps; root)\n"
	"  -o, --output FILE  write to FILE instead of standard output\n"
	"  -h, --help     this text\n"
	"\n"
	"Exit status: 0 ok, 1 failure, 2 bad option, or a dump that is unreadable,\n"
	"malformed or not a CPUID dump (file, and line, on stderr).\n",
	.main = info_main,
};
