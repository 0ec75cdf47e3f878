// SPDX-License-Identifier: GPL-3.0-or-later
/* fpulab run: the default suite (every benchmark, quick) or named benchmarks, then a summary. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fpulab/suite.h"
#include "report/summary.h"
#include "cli.h"
#include "runs.h"

#define MAX_OPTS 16

struct entry {
	const struct fpl_bench *b;
	struct fpl_optval opts[MAX_OPTS];
	char *names[MAX_OPTS];		/* what opts[].name points to when parsed (freed) */
	size_t nopts;
	double budget_s;		/* the suite's budget for it; 0: its own default */
	double est_s;			/* expected seconds: share of a --budget, progress */
	double took_s;
	int rc;
	bool ran;
	bool ask_amx;			/* AMX permission asked in this process right before it */
	size_t first_run, nruns;	/* its runs in the result */
	struct fpl_bench_call call;	/* its options checked and parsed, before any measurement */
	bool prepared;
	char *skip_why;			/* nothing it was asked for can run here (not run; 77) */
};

struct plan {
	struct entry *e;
	size_t n, cap;
	bool named;			/* benchmarks named on the command line */
	bool document;			/* -o FILE: a results document keeps what the summary leaves out */
	double total_s;
	/* progress: the entry under way; the fraction shown only grows, the time left only falls */
	size_t cur;
	struct fpl_progress prog;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static struct entry *add(struct plan *p, const struct fpl_bench *b, double est_s)
{
	struct entry *e;

	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 8;
		struct entry *ne = realloc(p->e, cap * sizeof(*ne));

		if (!ne)
			return NULL;
		p->e = ne;
		p->cap = cap;
	}
	e = &p->e[p->n++];
	memset(e, 0, sizeof(*e));
	e->b = b;
	e->est_s = est_s;
	return e;
}

/* The default suite (fpl_suite_plan): its entries, options and budgets from the library's table. */
static int default_suite(struct plan *p, const struct fpl_cpu *cpu, bool tiles)
{
	struct fpl_suite_entry s[32];
	size_t n;
	int err = fpl_suite_plan(cpu, tiles, s, FPL_ARRAY_SIZE(s), &n);

	for (size_t i = 0; i < n && !err; i++) {
		struct entry *e = add(p, fpl_bench_find(s[i].bench), s[i].est_s);

		if (!e)
			return -ENOMEM;
		e->budget_s = s[i].budget_s;
		e->ask_amx = s[i].ask_amx;
		e->nopts = s[i].nopts;
		memcpy(e->opts, s[i].opts, s[i].nopts * sizeof(*e->opts));
	}
	return err;
}

static void plan_free(struct plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		for (size_t k = 0; k < MAX_OPTS; k++) /* one past nopts when it was refused */
			free(p->e[i].names[k]);
		if (p->e[i].prepared)
			fpl_bench_call_free(&p->e[i].call);
		free(p->e[i].skip_why);
	}
	free(p->e);
}

/* Every entry's options checked and parsed (fpl_cli_prepare); the first refusal is the exit code. */
static int prepare(struct plan *p, struct fpl_cli *c)
{
	for (size_t i = 0; i < p->n; i++) {
		int rc;

		if (p->e[i].prepared)
			continue;
		rc = fpl_cli_prepare(c, p->e[i].b->name, p->e[i].opts, p->e[i].nopts,
				     &p->e[i].call);
		/* Skipped where it would have run, with its reason; the others still run. */
		if (rc == FPL_EXIT_UNSUPPORTED && !p->e[i].skip_why) {
			p->e[i].skip_why = strdup(c->skip_why);
			if (!p->e[i].skip_why)
				return fpl_cli_error("run", FPL_EXIT_FAIL, "out of memory");
			continue;
		}
		if (rc == FPL_EXIT_UNSUPPORTED)
			continue;
		if (rc)
			return rc;
		p->e[i].prepared = true;
	}
	return FPL_EXIT_OK;
}

/* One benchmark option "--name[=value]" [value] for the entry being read. */
static int bench_opt(struct entry *e, struct fpl_cli *s, int argc, char **argv, int *i)
{
	int rc;

	if (e->nopts == MAX_OPTS)
		return fpl_cli_usage_error("run", "%s: more than %d options", e->b->name, MAX_OPTS);
	rc = fpl_cli_bench_opt(s, e->b, true, argc, argv, i, &e->opts[e->nopts]);
	if (!rc) {
		e->names[e->nopts] = (char *)e->opts[e->nopts].name;
		e->nopts++;
	}
	return rc;
}

static int parse(struct plan *p, struct fpl_cli *s, int argc, char **argv)
{
	struct entry *cur = NULL;
	int rc;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--")) {
			cur = NULL;
			continue;
		}
		rc = fpl_cli_common_opt(s, argc, argv, &i);
		if (rc < 0)
			return -rc;
		if (rc)
			continue;
		if (a[0] != '-') {
			const struct fpl_bench *b = fpl_bench_find(a);

			if (!b)
				return fpl_cli_usage_error("run",
							   "'%s' is not a benchmark (fpulab list "
							   "names them)",
							   a);
			cur = add(p, b, 2.0);
			if (!cur)
				return fpl_cli_error("run", FPL_EXIT_FAIL, "out of memory");
			p->named = true;
			continue;
		}
		if (!cur || strncmp(a, "--", 2))
			return fpl_cli_usage_error("run", "unexpected option '%s'%s", a,
						   cur ? "" : " before any benchmark name");
		rc = bench_opt(cur, s, argc, argv, &i);
		if (rc)
			return rc;
	}
	/* AMX asked before the benchmarks' checks read the permitted mask, and before any sigaltstack. */
	return prepare(p, s);
}

static void progress(void *arg, const char *bench, double frac, const char *what)
{
	struct plan *p = arg;

	(void)what;	/* a variant's internal name: not for people */
	char head[64], tail[48];

	fpl_progress_at(&p->prog, frac, now_s());
	snprintf(head, sizeof(head), "[%zu/%zu] %-8s", p->cur + 1, p->n, bench);
	/* The estimate only falls: once spent, the work is late, not nearly done. */
	if (p->prog.left > 0)
		snprintf(tail, sizeof(tail), " about %.0f s left", p->prog.left);
	else
		snprintf(tail, sizeof(tail), " taking longer than estimated");
	fpl_cli_progress_show(head, p->prog.frac, tail);
}

/* The expected seconds of the entries after entry i. */
static double est_after(const struct plan *p, size_t i)
{
	double sum = 0;

	while (++i < p->n)
		sum += p->e[i].est_s;
	return sum;
}

/*
 * The default suite on a CPU with AMX: tile data permission for the rows
 * that need it, asked here, in the process that measures them, after the
 * benchmarks that must run without it (host.amx_permission, the summary).
 */
static void ask_amx(struct fpl_cli *s, const struct entry *e)
{
	char by[80];

	if (s->ls->amx.asked)
		return;
	snprintf(by, sizeof(by), "the default suite, before %s's AMX rows", e->b->name);
	fpl_session_ask_amx(s->ls, by);
	if (s->ls->amx.err && !s->quiet)
		fprintf(stderr, "fpulab run: %s: AMX permission not given: %s\n", s->ls->amx.by,
			s->ls->amx.msg);
}

static int run_all(struct plan *p, struct fpl_cli *s)
{
	double sum = 0, t0;
	bool fail = false;
	size_t skipped = 0;

	for (size_t i = 0; i < p->n; i++)
		sum += p->e[i].est_s;
	p->total_s = s->budget_s;
	if (s->progress_tty) {
		s->progress = progress;
		s->progress_arg = p;
	}
	for (size_t i = 0; i < p->n && p->total_s > 0; i++) {
		p->e[i].budget_s = p->total_s * p->e[i].est_s / sum;
		p->e[i].est_s = p->e[i].budget_s;
	}
	for (size_t i = 0; i < p->n && !*s->stop; i++) {
		struct entry *e = &p->e[i];

		s->budget_s = e->budget_s;
		p->cur = i;
		t0 = now_s();
		fpl_progress_step(&p->prog, e->est_s, est_after(p, i), t0);
		if (e->ask_amx)
			ask_amx(s, e);
		if (s->progress_tty)
			progress(p, e->b->name, 0, "starting");
		e->first_run = s->ls->result->nruns;
		if (e->skip_why)
			e->rc = fpl_session_skip(s->ls, e->b->name, e->opts, e->nopts,
						 e->skip_why) == -ENOTSUP ?
				FPL_EXIT_UNSUPPORTED : FPL_EXIT_FAIL;
		else
			e->rc = fpl_cli_call(s, &e->call);
		e->nruns = s->ls->result->nruns - e->first_run;
		e->ran = true;
		e->took_s = now_s() - t0;
		fpl_progress_step_done(&p->prog, t0 + e->took_s);
		if (s->progress_tty)
			fpl_cli_progress_clear();
		/*
		 * Every option was checked before the first measurement: a
		 * benchmark that refuses its parameters only once running has
		 * failed (its reason is on stderr), and the benchmarks done
		 * before it, and those after, still make the file.
		 */
		fail |= e->rc == FPL_EXIT_FAIL || e->rc == FPL_EXIT_USAGE;
		skipped += e->rc == FPL_EXIT_UNSUPPORTED;
	}
	s->budget_s = p->total_s;
	if (fail || *s->stop)
		return FPL_EXIT_FAIL;
	return p->n && skipped == p->n ? FPL_EXIT_UNSUPPORTED : FPL_EXIT_OK;
}

/* A benchmark planned more than once is named with its options: "signal --state avx512". */
static void print_entry_name(const struct plan *p, const struct entry *e, FILE *f)
{
	size_t same = 0;

	for (size_t i = 0; i < p->n; i++)
		same += p->e[i].b == e->b;
	fprintf(f, " %s", e->b->name);
	for (size_t k = 0; same > 1 && k < e->nopts; k++)
		fprintf(f, " --%s%s%s", e->opts[k].name, e->opts[k].value ? " " : "",
			e->opts[k].value ? e->opts[k].value : "");
}

/* Each planned benchmark into the result (host.ran), so that the document keeps the Ran: line. */
static int note_ran(const struct plan *p, struct fpl_result *r)
{
	for (size_t i = 0; i < p->n; i++) {
		const struct entry *e = &p->e[i];
		char *what = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&what, &len);
		int err;

		if (!f)
			return -ENOMEM;
		print_entry_name(p, e, f);
		if (fclose(f)) {
			free(what);
			return -ENOMEM;
		}
		err = fpl_result_note_ran_runs(r, what + 1, e->ran ? e->took_s : NAN,
					       !e->ran ? "not run" :
					       e->rc == FPL_EXIT_UNSUPPORTED ? "skipped" :
					       e->rc == FPL_EXIT_FAIL ? "failed or interrupted" : "ok",
					       e->first_run, e->nruns);
		free(what);
		if (err)
			return err;
	}
	return 0;
}

static int print_summary(const struct fpl_result *r, FILE *f, void *arg)
{
	const struct plan *p = arg;
	int err = fpl_summary_write_all(r, f, !p->document);

	return err ? err : fpl_summary_ran(r, f);
}

static bool all_skipped(const struct plan *p)
{
	for (size_t i = 0; i < p->n; i++)
		if (!p->e[i].skip_why)
			return false;
	return p->n > 0;
}

static int run_once(int argc, char **argv)
{
	struct plan p = { 0 };
	struct fpl_cli s;
	int rc;

	fpl_cli_init(&s, "run");
	if (!isatty(STDERR_FILENO))
		s.quiet = true;
	rc = parse(&p, &s, argc, argv);
	if (rc) {
		rc = fpl_cli_end(&s, rc);	/* nothing measured: only the session freed */
		goto out;
	}
	if (!p.named)
		s.quick = true;
	/* Named benchmarks none of which can measure anything here: 77, nothing measured. */
	if (p.named && all_skipped(&p)) {
		for (size_t i = 0; i < p.n; i++)
			fprintf(stderr, "fpulab run: %s: skipped: %s\n", p.e[i].b->name,
				p.e[i].skip_why);
		s.skip_why[0] = 0;	/* each said above */
		rc = fpl_cli_skip_unmeasured(&s, NULL, NULL, 0);
		for (size_t i = 0; i < p.n && rc == FPL_EXIT_UNSUPPORTED; i++) {
			p.e[i].rc = FPL_EXIT_UNSUPPORTED;
			p.e[i].ran = true;
			p.e[i].first_run = s.ls->result->nruns;
			if (fpl_session_skip(s.ls, p.e[i].b->name, p.e[i].opts, p.e[i].nopts,
					     p.e[i].skip_why) != -ENOTSUP)
				rc = fpl_cli_error("run", FPL_EXIT_FAIL, "out of memory");
			p.e[i].nruns = s.ls->result->nruns - p.e[i].first_run;
		}
		if (rc == FPL_EXIT_UNSUPPORTED && note_ran(&p, s.ls->result))
			rc = fpl_cli_error("run", FPL_EXIT_FAIL, "out of memory");
		goto end;
	}
	rc = fpl_cli_start(&s);
	if (rc == FPL_EXIT_OK && !p.named && default_suite(&p, s.ls->cpu, s.amx_by[0] != 0))
		rc = fpl_cli_error("run", FPL_EXIT_FAIL, "out of memory");
	if (rc == FPL_EXIT_OK)
		rc = prepare(&p, &s);
	if (rc == FPL_EXIT_OK) {
		rc = run_all(&p, &s);
		if (note_ran(&p, s.ls->result))
			rc = fpl_cli_error("run", FPL_EXIT_FAIL, "out of memory");
	}
end:
	p.document = s.out_path != NULL;
	/* Without the summary (--json, --format json|csv) its warnings go to stderr. */
	s.warn_stderr = s.json_stdout || (s.format_given && s.format != FPL_FMT_TABLE);
	rc = fpl_cli_end_own(&s, rc, NULL, print_summary, &p);
out:
	plan_free(&p);
	return rc;
}

/* --runs N: the whole line N times, each a fresh process (runs.c); without it or 1: once, here. */
static int run_main(int argc, char **argv)
{
	struct fpl_runs_opt o;
	int rc = fpl_runs_take("run", &argc, argv, &o);

	if (rc)
		return rc;
	return o.n > 1 ? fpl_runs_main("run", argc, argv, &o) : run_once(argc, argv);
}

const struct fpl_cmd fpl_cmd_run = {
	.name = "run",
	.summary = "the default suite (every benchmark, quick) or named benchmarks; a summary",
	.usage =
	"Usage: fpulab run [OPTIONS] [BENCH [BENCH-OPTIONS]]... \n"
	"Without BENCH: the default suite, every benchmark at quick settings (about 20 s),\n"
	"with the options that give the summary its figures (AVX-512 state where the CPU\n"
	"has it; on a CPU with AMX, xsave's tile rows last, AMX permission asked in this\n"
	"process just before them). With BENCH: those benchmarks, each with its own\n"
	"options, in order; a benchmark name (or '--') ends the options of the one\n"
	"before:\n"
	"  fpulab run xsave --mask avx512 -- ctxsw --state avx512 signal\n"
	"Then a summary: XSAVE cost of the full state, context switch with and without\n"
	"AVX-512 state, signal round trip, best xor routine, FPU section cost, each with\n"
	"its spread, unit and method, and warnings (clock drift, VM, noisy samples).\n"
	"\n"
	"Options (anywhere on the line, for the whole run):\n"
	"  -o FILE           write every run, all samples, to FILE (JSON, atomically)\n"
	"  --json            the results as JSON on stdout instead of the summary\n"
	"  --format F        table (every metric, then the summary), json or csv\n"
	"  --cpu N           pin to CPU N (default: the CPU the command starts on)\n"
	"  --quick           quick settings for named benchmarks too\n"
	"  --units U         with --format table: cycles (default), tsc, ns or all\n"
	"  --budget SECONDS  time for the whole run, shared among the benchmarks; with\n"
	"                    --runs, for each run\n"
	"  --kernel-trace    each benchmark's kernel trace (tracefs x86_fpu events; root) and\n"
	"                    the model against the kernel after the summary\n"
	"  -q                no self-check lines or progress on stderr\n"
	"  --runs N          the whole line N times, each run a freshly executed process,\n"
	"                    the benchmarks in the same order in each; one file with\n"
	"                    every run (observed.run_index); what fpulab compare tests\n"
	"  --no-aslr         run without address-space randomisation (as setarch -R)\n"
	"\n"
	"Progress (benchmark, how far, time left) goes to stderr when it is a terminal;\n"
	"the warnings too with --json or --format json|csv (no summary).\n"
	"With --runs, the report is one line per run (pid, CPU, core clock, load) and\n"
	"each metric's run medians with their spread; SIGINT keeps the runs completed.\n"
	"'fpulab list' names the benchmarks and their options.\n"
	"Exit status: 0 ok, 1 a benchmark failed or was interrupted, 2 usage, 77 every\n"
	"benchmark was skipped on this CPU.\n",
	.main = run_main,
};
