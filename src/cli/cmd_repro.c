// SPDX-License-Identifier: GPL-3.0-or-later
/* fpulab repro: the three reference experiments of DESIGN.md measured here, as their tables. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fpulab/amx.h"
#include "fpulab/repro.h"
#include "fpulab/xstate.h"
#include "cli.h"

enum { RFBM = 1, KFPU = 2, LAZY = 4 };

struct repro {
	unsigned what;
	long runs;			/* --runs, 0: the experiment's default */
	struct fpl_result *out;		/* what is printed and saved */
	unsigned done;			/* experiments measured */
	struct fpl_result *traced;	/* --kernel-trace: one traced ctxsw run per case */
	bool cet_s, amx;		/* the components in question on this CPU */
};

/* One progress line on a terminal; NULL clears it. */
static void say(const struct fpl_session *s, const char *text)
{
	if (!s->progress_tty)
		return;
	fprintf(stderr, "\r\033[K%s", text ? text : "");
	fflush(stderr);
}

/*
 * One round of the context-switch cases: each wider state against init in
 * one interleaved run (ctxsw --ab init,STATE, batches alternating), in an
 * order that rotates each round; init's figure of the round is the mean of
 * its arms.
 */
static int rfbm_ctx_round(struct repro *rp, struct fpl_session *s,
			  struct fpl_repro_ctx_case *cc, size_t nc,
			  long round)
{
	const struct fpl_bench *b = fpl_bench_find("ctxsw");
	double init_sum = 0;
	size_t init_n = 0;

	for (size_t j = 0; j + 1 < nc; j++) {
		struct fpl_repro_ctx_case *c = &cc[1 + (j + (size_t)round) % (nc - 1)];
		char ab[48];
		struct fpl_optval o[] = { { "ab", ab } };
		size_t from = s->result->nruns;
		int rc;

		if (c->skip)
			continue;
		snprintf(ab, sizeof(ab), "%s,%s", cc[0].state, c->state);
		rc = fpl_session_run(s, b, o, 1);
		if (rc == FPL_EXIT_UNSUPPORTED) {
			c->skip = true;
		} else if (rc) {
			return rc;
		} else if (s->result->nruns > from) {
			fpl_repro_ctx_ab_values(s->result->runs[from], &c->base[c->n], &c->v[c->n]);
			init_sum += c->base[c->n++];
			init_n++;
		}
		/* The first round's traced runs are kept for the kernel's xcomp_bv line. */
		if (!round && rp->traced && s->result->nruns > from &&
		    fpl_run_obs_get(s->result->runs[from], "kernel")) {
			if (fpl_result_move_runs(rp->traced, s->result, from))
				return FPL_EXIT_FAIL;
		} else if (fpl_result_move_runs(NULL, s->result, from))
			return FPL_EXIT_FAIL;
	}
	if (init_n)
		cc[0].v[cc[0].n++] = init_sum / (double)init_n;
	return FPL_EXIT_OK;
}

static int rfbm_xsave_round(struct fpl_session *s, struct fpl_repro_xs_case *xc, size_t nx,
			    bool amx)
{
	const struct fpl_bench *b = fpl_bench_find("xsave");
	/* Naming amx asks for AMX permission: tile data then has rows of its own. */
	struct fpl_optval o[] = { { "part", "rfbm" }, { "mask", "amx" } };
	size_t from = s->result->nruns;
	int rc = fpl_session_run(s, b, o, amx ? 2 : 1);

	if (rc)
		return rc;
	fpl_repro_xs_round(s->result, from, xc, nx);
	return fpl_result_move_runs(NULL, s->result, from) ? FPL_EXIT_FAIL : FPL_EXIT_OK;
}

static int rfbm(struct repro *rp, struct fpl_session *s)
{
	long n = rp->runs ? rp->runs : s->quick ? 5 : 10;
	double given = s->budget_s, budget = given > 0 ? given : s->quick ? 0.25 : 0.5;
	/* two A/B runs per round take the time three single-state runs took */
	double ctx_budget = given > 0 ? given : 1.5 * budget;
	struct fpl_repro_ctx_case cc[] = {
		{ "init", "state init", NULL, NULL, 0, false },
		{ "avx", "AVX registers live", NULL, NULL, 0, !fpl_cpu_has(s->cpu, FPL_FEAT_AVX) },
		{ "avx512", "AVX-512 registers live", NULL, NULL, 0,
		  !fpl_cpu_has(s->cpu, FPL_FEAT_AVX512F) },
	};
	struct fpl_repro_xs_case xc[] = {
		{ "xsavec", "XSAVEC", NULL, "", "", "", { NULL, NULL }, 0 },
		{ "xrstor-c", "XRSTOR of a compacted image", NULL, "", "", "", { NULL, NULL }, 0 },
	};
	bool ctx = fpl_bench_find("ctxsw"), xs = fpl_bench_find("xsave") && s->cpu->xcr0;
	int rc = FPL_EXIT_OK;

	for (size_t i = 0; i < FPL_ARRAY_SIZE(cc); i++)
		if (!(cc[i].v = calloc((size_t)n, sizeof(double))) ||
		    (i && !(cc[i].base = calloc((size_t)n, sizeof(double)))))
			rc = FPL_EXIT_FAIL;
	if (fpl_repro_xs_alloc(xc, FPL_ARRAY_SIZE(xc), (size_t)n))
		rc = FPL_EXIT_FAIL;
	for (long r = 0; r < n && rc == FPL_EXIT_OK && !*s->stop; r++) {
		char line[64];

		snprintf(line, sizeof(line), "repro rfbm: round %ld of %ld", r + 1, n);
		say(s, line);
		s->budget_s = ctx_budget;
		if (ctx)
			rc = rfbm_ctx_round(rp, s, cc, FPL_ARRAY_SIZE(cc), r);
		s->budget_s = budget;
		if (xs && rc == FPL_EXIT_OK)
			rc = rfbm_xsave_round(s, xc, FPL_ARRAY_SIZE(xc), false);
	}
	say(s, NULL);
	if (rc == FPL_EXIT_OK || *s->stop)
		rc = fpl_repro_rfbm_cases(rp->out, cc, FPL_ARRAY_SIZE(cc), xc, FPL_ARRAY_SIZE(xc),
					  ctx_budget) || *s->stop ? FPL_EXIT_FAIL : FPL_EXIT_OK;
	for (size_t i = 0; i < FPL_ARRAY_SIZE(cc); i++) {
		free(cc[i].v);
		free(cc[i].base);
	}
	fpl_repro_xs_free(xc, FPL_ARRAY_SIZE(xc));
	return rc;
}

/*
 * The 2024 question at 8 KiB, where AMX exists: XSAVE and XSAVEC with AMX
 * tile data (init) in RFBM or not. Asking for permission and using the
 * tiles enlarges this process's fpstate for good, so this runs after every
 * other experiment of the command, none of whose figures it can then change.
 */
static int rfbm_amx(struct repro *rp, struct fpl_session *s)
{
	long n = rp->runs ? rp->runs : s->quick ? 5 : 10;
	double budget = s->budget_s > 0 ? s->budget_s : s->quick ? 0.25 : 0.5;
	struct fpl_repro_xs_case ac[] = {
		{ "xsave", "XSAVE", "AMX_TILEDATA", "", "", "", { NULL, NULL }, 0 },
		{ "xsavec", "XSAVEC", "AMX_TILEDATA", "", "", "", { NULL, NULL }, 0 },
	};
	struct fpl_xstate xs;
	int rc = FPL_EXIT_OK;

	if (!fpl_bench_find("xsave") || fpl_xstate_init(&xs, s->cpu) ||
	    !fpl_amx_supported(&xs, NULL))
		return FPL_EXIT_UNSUPPORTED;
	if (fpl_repro_xs_alloc(ac, FPL_ARRAY_SIZE(ac), (size_t)n))
		rc = FPL_EXIT_FAIL;
	s->budget_s = budget;
	for (long r = 0; r < n && rc == FPL_EXIT_OK && !*s->stop; r++) {
		char line[96];

		snprintf(line, sizeof(line), "repro rfbm: AMX round %ld of %ld", r + 1, n);
		say(s, line);
		rc = rfbm_xsave_round(s, ac, FPL_ARRAY_SIZE(ac), true);
	}
	say(s, NULL);
	if (rc == FPL_EXIT_OK || *s->stop)
		rc = fpl_repro_rfbm_cases(rp->out, NULL, 0, ac, FPL_ARRAY_SIZE(ac), budget) ||
		     *s->stop ? FPL_EXIT_FAIL : FPL_EXIT_OK;
	fpl_repro_xs_free(ac, FPL_ARRAY_SIZE(ac));
	return rc;
}

static int kfpu(struct repro *rp, struct fpl_session *s)
{
	char reps[24];
	struct fpl_optval o[] = { { "calibrate", NULL }, { "section", "all" }, { "repeat", reps } };
	size_t from = s->result->nruns;
	int rc;

	snprintf(reps, sizeof(reps), "%ld", rp->runs ? rp->runs : s->quick ? 7 : 21);
	say(s, "repro kfpu-mask: xor calibrations");
	rc = fpl_session_run(s, fpl_bench_find("xor"), o, FPL_ARRAY_SIZE(o));
	say(s, NULL);
	if (fpl_result_move_runs(rp->out, s->result, from))
		return FPL_EXIT_FAIL;
	return rc;
}

static int lazy(struct repro *rp, struct fpl_session *s)
{
	char impls[128] = "";
	struct fpl_optval o[] = {
		{ "impl", impls }, { "chunks", "1k" }, { "policy", "both" },
		{ "mask", "mxcsr" }, { "insn", "xsavec" }, { "owner", "init" },
	};
	size_t from = s->result->nruns;
	int rc;

	if (fpl_cpu_has(s->cpu, FPL_FEAT_AVX))
		strcat(impls, ",xor/avx");
	if (fpl_cpu_has(s->cpu, FPL_FEAT_AVX2))
		strcat(impls, ",chacha20/avx2");
	if (fpl_cpu_has(s->cpu, FPL_FEAT_AVX512F))
		strcat(impls, ",xor/avx512,chacha20/avx512");
	if (!impls[0])
		return fpl_cli_error("repro", FPL_EXIT_UNSUPPORTED, "lazy-restore: the 2018 "
				     "experiment needs AVX or AVX-512; this CPU has neither");
	memmove(impls, impls + 1, strlen(impls));
	say(s, "repro lazy-restore: sections inside and outside");
	rc = fpl_session_run(s, fpl_bench_find("section"), o, FPL_ARRAY_SIZE(o));
	say(s, NULL);
	if (fpl_result_move_runs(rp->out, s->result, from))
		return FPL_EXIT_FAIL;
	return rc;
}

static int print_repro(const struct fpl_result *r, FILE *f, void *arg)
{
	const struct repro *rp = arg;
	struct fpl_diag diag = { "" };
	int err = 0;

	if ((rp->done & RFBM) && fpl_repro_has_rfbm(r)) {
		fprintf(
		    f, "== RFBM and context switches (2024 report: 100%% / 99.80%% / 99.76%%)\n\n");
		err = fpl_repro_rfbm_write(r, f, &diag);
		if (!err && rp->traced)
			fpl_repro_kernel_lines(rp->traced, rp->cet_s, rp->amx, f);
	}
	if (!err && (rp->done & KFPU) && fpl_repro_has_kfpu(r)) {
		fprintf(f, "%s== FNINIT and MXCSR in kernel_fpu_begin (2021 report)\n\n",
			rp->done & RFBM ? "\n" : "");
		err = fpl_repro_kfpu_write(r, f, &diag);
	}
	if (!err && (rp->done & LAZY) && fpl_repro_has_lazy(r)) {
		fprintf(f, "%s== Lazy restore (2018 report)\n\n",
			rp->done & (RFBM | KFPU) ? "\n" : "");
		err = fpl_repro_lazy_write(r, f, &diag);
	}
	if (err && diag.msg[0])
		fprintf(stderr, "fpulab repro: %s\n", diag.msg);
	return err;
}

/* Which benchmark each experiment needs: without it, exit 77 and say so. */
static const char *missing(unsigned what)
{
	if ((what & RFBM) && !fpl_bench_find("ctxsw") && !fpl_bench_find("xsave"))
		return "rfbm needs the ctxsw and xsave benchmarks";
	if ((what & KFPU) && !fpl_bench_find("xor"))
		return "kfpu-mask needs the xor benchmark";
	if ((what & LAZY) && !fpl_bench_find("section"))
		return "lazy-restore needs the section benchmark";
	return NULL;
}

static int parse(struct repro *rp, struct fpl_session *s, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		long long v;
		int rc = fpl_session_common_opt(s, argc, argv, &i);

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
			rp->runs = (long)v;
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

static int repro_main(int argc, char **argv)
{
	struct repro rp = { 0 };
	struct fpl_session s;
	const char *why;
	int rc, one;

	fpl_session_init(&s, "repro");
	rc = parse(&rp, &s, argc, argv);
	if (rc)
		return rc;
	why = missing(rp.what);
	if (why && rp.what == (RFBM | KFPU | LAZY) && missing(RFBM) && missing(KFPU) &&
	    missing(LAZY))
		why = "none of the benchmarks the experiments need (ctxsw, xsave, xor, section) is "
		      "built in";
	else if (rp.what == (RFBM | KFPU | LAZY))
		why = NULL;
	if (why)
		return fpl_cli_error("repro", FPL_EXIT_UNSUPPORTED, "%s (not built into this "
				     "fpulab yet); nothing was measured", why);
	if (!isatty(STDERR_FILENO))
		s.quiet = true;
	rp.out = fpl_result_new();
	if (!rp.out)
		return fpl_cli_error("repro", FPL_EXIT_FAIL, "out of memory");
	rc = fpl_session_start(&s);
	if (rc == FPL_EXIT_OK && s.kernel_trace) {
		struct fpl_xstate xs;

		rp.traced = fpl_result_new();
		if (!rp.traced)
			rc = fpl_cli_error("repro", FPL_EXIT_FAIL, "out of memory");
		else if (!fpl_xstate_init(&xs, s.cpu)) {
			rp.cet_s = xs.supervisor >> FPL_XFEATURE_CET_KERNEL & 1;
			rp.amx = xs.xcr0 >> FPL_XFEATURE_XTILE_DATA & 1;
		}
	}
	for (unsigned e = RFBM; e <= LAZY && rc == FPL_EXIT_OK && !*s.stop; e <<= 1) {
		if (!(rp.what & e) || missing(e))
			continue;
		one = e == RFBM ? rfbm(&rp, &s) : e == KFPU ? kfpu(&rp, &s) : lazy(&rp, &s);
		if (one == FPL_EXIT_OK)
			rp.done |= e;
		else if (one != FPL_EXIT_UNSUPPORTED)
			rc = one;
	}
	/* Last: AMX permission and tile use change this process for good. */
	if (rc == FPL_EXIT_OK && (rp.what & RFBM) && !missing(RFBM) && !*s.stop) {
		one = rfbm_amx(&rp, &s);
		if (one == FPL_EXIT_OK)
			rp.done |= RFBM;
		else if (one != FPL_EXIT_UNSUPPORTED)
			rc = one;
	}
	/* Stopped between experiments: interrupted all the same (FILE.interrupted, exit 1). */
	if (rc == FPL_EXIT_OK && *s.stop)
		rc = FPL_EXIT_FAIL;
	/* Said on stderr with the rest, quiet or not: the report has no warnings section. */
	if (*s.stop && fpl_result_warn(rp.out, "interrupted: only what was measured before "
				       "the signal is reported"))
		rc = FPL_EXIT_FAIL;
	s.warn_stderr = true;
	if (rc == FPL_EXIT_OK && !rp.done)
		rc = fpl_cli_error("repro", FPL_EXIT_UNSUPPORTED, "nothing could be measured on "
				   "this CPU with the benchmarks built in");
	rc = fpl_cli_end_own(&s, rc, rp.out, print_repro, &rp);
	fpl_result_free(rp.out);
	fpl_result_free(rp.traced);
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
