// SPDX-License-Identifier: GPL-3.0-or-later
/* fpulab repro: the three reference experiments of DESIGN.md measured here, as their tables. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/repro.h"
#include "fpulab/xstate.h"
#include "cli.h"

enum { RFBM = FPL_REPRO_RFBM, KFPU = FPL_REPRO_KFPU, LAZY = FPL_REPRO_LAZY };

struct repro {
	unsigned what;
	struct fpl_repro_cfg cfg;	/* --runs, --budget, the traced runs, the progress line */
	struct fpl_result *out;		/* what is printed and saved */
	unsigned done;			/* experiments measured */
	bool cet_s, amx;		/* the components in question on this CPU */
	bool tty;
};

/* One progress line on a terminal; NULL clears it. */
static void say(void *arg, const char *text)
{
	const struct repro *rp = arg;

	if (!rp->tty)
		return;
	if (text)
		fpl_cli_progress_show(text, -1, NULL);
	else
		fpl_cli_progress_clear();
}

static int print_repro(const struct fpl_result *r, FILE *f, void *arg)
{
	const struct repro *rp = arg;
	struct fpl_diag diag = { "" };
	int err = fpl_repro_write(r, rp->done, rp->cfg.traced, rp->cet_s, rp->amx, f, &diag);

	if (err && diag.msg[0])
		fprintf(stderr, "fpulab repro: %s\n", diag.msg);
	return err;
}

static int parse(struct repro *rp, struct fpl_cli *s, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		long long v;
		int rc = fpl_cli_common_opt(s, argc, argv, &i);

		if (rc < 0)
			return -rc;
		if (rc)
			continue;
		if (!strcmp(a, "--runs") || !strncmp(a, "--runs=", 7)) {
			const char *val = a[6] == '=' ? a + 7 : i + 1 < argc ? argv[++i] : NULL;

			if (!val || fpl_parse_int(val, &v) || v < 3 || v > 1000)
				return fpl_cli_usage_error("repro",
							   "--runs: '%s' is not a count in "
							   "[3, 1000]",
							   val ? val : "");
			rp->cfg.runs = (long)v;
		} else if (!strcmp(a, "rfbm")) {
			rp->what |= RFBM;
		} else if (!strcmp(a, "kfpu-mask")) {
			rp->what |= KFPU;
		} else if (!strcmp(a, "lazy-restore")) {
			rp->what |= LAZY;
		} else if (!strcmp(a, "all")) {
			rp->what |= RFBM | KFPU | LAZY;
		} else {
			return fpl_cli_usage_error("repro",
						   "'%s' is not rfbm, kfpu-mask, lazy-restore, "
						   "all or an option",
						   a);
		}
	}
	if (!rp->what)
		return fpl_cli_usage_error("repro", "which experiment: rfbm, kfpu-mask, "
					   "lazy-restore or all?");
	return FPL_EXIT_OK;
}

/* Which experiments cannot run with the benchmarks built in: exit 77 and say so. */
static int check_built_in(unsigned what)
{
	const char *why = fpl_repro_missing(what);

	if (why && what == FPL_REPRO_ALL && fpl_repro_missing(RFBM) && fpl_repro_missing(KFPU) &&
	    fpl_repro_missing(LAZY))
		why = "none of the benchmarks the experiments need (ctxsw, xsave, xor, section) is "
		      "built in";
	else if (what == FPL_REPRO_ALL)
		why = NULL;
	if (why)
		return fpl_cli_error("repro", FPL_EXIT_UNSUPPORTED, "%s (not built into this "
				     "fpulab yet); nothing was measured", why);
	return FPL_EXIT_OK;
}

static int measure(struct repro *rp, struct fpl_cli *s)
{
	struct fpl_diag diag = { "" };
	struct fpl_xstate xs;
	int err;

	if (s->kernel_trace) {
		rp->cfg.traced = fpl_result_new();
		if (!rp->cfg.traced)
			return fpl_cli_error("repro", FPL_EXIT_FAIL, "out of memory");
		if (!fpl_xstate_init(&xs, s->ls->cpu)) {
			rp->cet_s = xs.supervisor >> FPL_XFEATURE_CET_KERNEL & 1;
			rp->amx = xs.xcr0 >> FPL_XFEATURE_XTILE_DATA & 1;
		}
	}
	rp->tty = s->progress_tty;
	rp->cfg.budget_s = s->budget_s;
	rp->cfg.say = say;
	rp->cfg.arg = rp;
	err = fpl_repro_measure(s->ls, rp->what, &rp->cfg, rp->out, &rp->done, &diag);
	if (err == -EINTR) {
		/* Said on stderr with the rest, quiet or not: the report has no warnings section. */
		fpl_result_warn(rp->out, "interrupted: only what was measured before the signal "
				"is reported");
		return FPL_EXIT_FAIL;
	}
	if (err)
		return fpl_cli_error("repro", FPL_EXIT_FAIL, "%s", diag.msg);
	if (!rp->done)
		return fpl_cli_error("repro", FPL_EXIT_UNSUPPORTED, "nothing could be measured on "
				     "this CPU with the benchmarks built in");
	return FPL_EXIT_OK;
}

static int repro_main(int argc, char **argv)
{
	struct repro rp = { 0 };
	struct fpl_cli s;
	int rc;

	fpl_cli_init(&s, "repro");
	rc = parse(&rp, &s, argc, argv);
	if (rc)
		return rc;
	rc = check_built_in(rp.what);
	if (rc)
		return rc;
	if (!isatty(STDERR_FILENO))
		s.quiet = true;
	rp.out = fpl_result_new();
	if (!rp.out)
		return fpl_cli_error("repro", FPL_EXIT_FAIL, "out of memory");
	rc = fpl_cli_start(&s);
	if (rc == FPL_EXIT_OK)
		rc = measure(&rp, &s);
	s.warn_stderr = true;
	rc = fpl_cli_end_own(&s, rc, rp.out, print_repro, &rp);
	fpl_result_free(rp.out);
	fpl_result_free(rp.cfg.traced);
	return rc;
}

const struct fpl_cmd fpl_cmd_repro = {
	.name = "repro",
	.summary = "the three reference experiments: rfbm, kfpu-mask, lazy-restore, all",
	.usage =
	"Usage: fpulab repro rfbm|kfpu-mask|lazy-restore|all [OPTIONS]\n"
	"Reproduce on this machine the reports fpulab was made for, as tables of the\n"
	"same shape, with a sentence on what the figures mean and how sure they are:\n"
	"  rfbm          2024, CET supervisor state: will-it-scale context_switch1, ten\n"
	"                runs per kernel, trimmed 10%, case 1 = 100%. Here: context\n"
	"                switches with state init, AVX live, AVX-512 live (each wider\n"
	"                state against init in one ctxsw --ab run per round); and XSAVEC\n"
	"                and XRSTOR with the highest component in RFBM or not (init\n"
	"                state), both in the same rounds. Where AMX exists, last (it asks\n"
	"                for AMX permission): XSAVE and XSAVEC with AMX tile data (8 KiB,\n"
	"                init) in RFBM or not. Each case is paired with its baseline of\n"
	"                the same run: Yuen's trimmed t over the per-run differences,\n"
	"                Holm over each table.\n"
	"  kfpu-mask     2021, FNINIT and LDMXCSR in kernel_fpu_begin: the kernel's xor\n"
	"                calibration per template without a section, with KFPU_MXCSR and\n"
	"                with KFPU_387|KFPU_MXCSR; MB/s, and ratios to no section paired\n"
	"                by round (each round calibrates every template and mask).\n"
	"  lazy-restore  2018: kernel_fpu_begin/end inside a loop versus outside, 256-bit\n"
	"                and 512-bit xor and ChaCha20, eager and lazy restore.\n"
	"  all           the three, one after the other.\n"
	"\n"
	"Options:\n"
	"  --runs N          runs per case (rfbm, default 10) or calibrations (kfpu-mask,\n"
	"                    default 21); at least 3\n"
	"  --budget SECONDS  seconds per run (rfbm, default 0.75 per ctxsw A/B run and\n"
	"                    0.5 per xsave run) or for the section benchmark\n"
	"                    (lazy-restore)\n"
	"  --quick           fewer and shorter runs (rfbm 5 rounds, half as long;\n"
	"                    kfpu-mask 7)\n"
	"  -o FILE           save the figures (JSON, atomically): run the same command on\n"
	"                    another kernel and compare the two with\n"
	"                    fpulab compare --trim 10 OLD.json NEW.json\n"
	"  --json            the figures as JSON on stdout instead of the tables\n"
	"  --format F        table (every figure, then the tables), json or csv\n"
	"  --cpu N           pin to CPU N (default: the CPU the command starts on)\n"
	"  --units U         with --format table: cycles (default), tsc, ns or all\n"
	"  --kernel-trace    rfbm: also the xcomp_bv the kernel used for the measured tasks\n"
	"                    and whether CET_S (bit 12) or AMX_TILEDATA is in it (root)\n"
	"  -q                no self-check lines or progress on stderr\n"
	"\n"
	"Warnings (clock drift, self-check, load, interruption) go to stderr, -q or not.\n"
	"Exit status: 0 ok, 1 failure, 2 usage, 77 the experiment's benchmark is not\n"
	"built in or this CPU cannot run it (nothing is faked).\n",
	.main = repro_main,
};
