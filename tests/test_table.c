// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests for the tables for people: the xsave matrix, the generic table's notes, quiet K, warnings. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "report/table_internal.h"
#include "report/views.h"
#include "fpulab/report.h"
#include "fpulab/result.h"
#include "fpulab/stats.h"
#include "runcmd.h"

#define HOW "N reps per sample (extra.reps), N the smallest power of two; median of samples"
#define UCYC "core cycles estimated: TSC ticks x ratio"
#define UTSC "TSC ticks (lfence;rdtsc .. lfence;rdtsc;lfence)"
#define UNS "ns from TSC ticks at 2000000000 Hz"

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/*
 * A harness-like triple: cycles v, tsc v/2, ns v/4 for each of the samples,
 * one family (the prefix, or "time"), the method in its parts.
 */
static void triple(struct fpl_run *run, const char *pfx, const char *what, double v)
{
	static const char *const units[] = { "cycles", "tsc", "ns" }, *const up[] = { UCYC, UTSC, UNS };
	char name[64], family[64];
	struct fpl_metric *m[3];

	snprintf(family, sizeof(family), "%.*s", (int)(*pfx ? strlen(pfx) - 1 : 0), pfx);
	for (int k = 0; k < 3; k++) {
		snprintf(name, sizeof(name), "%s%s", pfx, units[k]);
		m[k] = fpl_run_add_metric(run, name, units[k], NULL);
		assert_non_null(m[k]);
		assert_int_equal(fpl_metric_set_method(m[k], what, HOW, up[k]), 0);
		assert_int_equal(fpl_metric_set_family(m[k], *family ? family : "time"), 0);
	}
	for (int i = 0; i < 5; i++) {
		assert_int_equal(fpl_metric_add(m[0], v + i - 2), 0);
		assert_int_equal(fpl_metric_add(m[1], (v + i - 2) / 2), 0);
		assert_int_equal(fpl_metric_add(m[2], (v + i - 2) / 4), 0);
	}
}

static struct fpl_run *cell(struct fpl_result *r, const char *insn, const char *mask,
			    const char *name, const char *state, const char *method, double v)
{
	struct fpl_run *run = fpl_result_add_run(r, "xsave");
	char what[256], generic[256], mn[32];
	size_t k;

	for (k = 0; insn[k] && insn[k] != '-'; k++)
		mn[k] = (char)(insn[k] - 'a' + 'A');
	strcpy(mn + k, "64");
	fpl_run_param_str(run, "insn", insn);
	fpl_run_param_str(run, "mask", mask);
	fpl_run_param_str(run, "mask_name", name);
	fpl_run_param_str(run, "state", state);
	fpl_run_param_str(run, "method", method);
	if (!strcmp(state, "modified")) {
		fpl_run_param_str(run, "modified_component", !strcmp(mask, "0x1") ? "x87" : "AVX");
		snprintf(what, sizeof(what), "%s: back-to-back (write one %s register; %s)", method,
			 !strcmp(mask, "0x1") ? "x87" : "AVX", mn);
		snprintf(generic, sizeof(generic), "%s: back-to-back (write one COMP register; "
			 "INSN)", method);
	} else if (!strcmp(state, "unmodified")) {
		snprintf(what, sizeof(what), "%s: %s to the buffer last XRSTORed from", method, mn);
		snprintf(generic, sizeof(generic), "%s: INSN to the buffer last XRSTORed from",
			 method);
	} else {
		snprintf(what, sizeof(what), "%s: back-to-back %s on one buffer", method, mn);
		snprintf(generic, sizeof(generic), "%s: back-to-back INSN on one buffer", method);
	}
	triple(run, "", what, v);
	/* as the benchmark writes them: the cell's words as INSN and COMP (what_generic) */
	for (size_t i = 0; i < run->nmetrics; i++)
		assert_int_equal(fpl_metric_set_what_generic(run->metrics[i], generic), 0);
	return run;
}

/* xsave (masks 0x0: init only, 0x1), xsaveopt (0x1, 0x4 with unmod/modif), misc, RFBM. */
static struct fpl_result *xsave_result(void)
{
	static const char *const methods[] = { "throughput", "latency" };
	struct fpl_result *r = fpl_result_new();
	struct fpl_run *run;
	struct fpl_metric *d;

	for (int m = 0; m < 2; m++) {
		cell(r, "xsave", "0x0", "0", "init", methods[m], 100 + m);
		cell(r, "xsave", "0x1", "x87", "init", methods[m], 110 + m);
		cell(r, "xsave", "0x1", "x87", "live", methods[m], 120 + m);
	}
	for (int m = 0; m < 2; m++)
		for (int k = 0; k < 2; k++) {
			const char *mask = k ? "0x4" : "0x1", *name = k ? "avx" : "x87";

			cell(r, "xsaveopt", mask, name, "init", methods[m], 200 + 10 * k + m);
			cell(r, "xsaveopt", mask, name, "unmodified", methods[m], 230 + 10 * k + m);
			cell(r, "xsaveopt", mask, name, "modified", methods[m], 260 + 10 * k + m);
		}
	run = fpl_result_add_run(r, "xsave");
	fpl_run_param_str(run, "insn", "ldmxcsr");
	fpl_run_param_str(run, "pattern", "same value");
	fpl_run_param_str(run, "method", "throughput");
	triple(run, "", "throughput: back-to-back LDMXCSR", 3);
	run = fpl_result_add_run(r, "xsave");
	fpl_run_param_str(run, "experiment", "rfbm");
	fpl_run_param_str(run, "insn", "xrstor-c");
	fpl_run_param_str(run, "component", "AVX");
	triple(run, "with_", "throughput: XRSTOR64 (compacted image), RFBM with AVX", 360);
	triple(run, "without_", "throughput: XRSTOR64 (compacted image), RFBM without AVX", 385);
	d = fpl_run_add_metric(run, "diff_cycles", "cycles", "with minus without, per round");
	fpl_metric_add(d, -25);
	d->extra = json_pack("{s:f, s:[f,f], s:s}", "trimmed_mean_diff", -24.987, "ci95", -25.98,
			     -24.01, "test", "Yuen 20% trimmed, Welch df");
	fpl_result_warn(r, "machine loaded");
	return r;
}

typedef int table_fn(const struct fpl_result *r, const struct fpl_table_opts *o, FILE *f);

static char *table_by(table_fn *fn, const struct fpl_result *r, enum fpl_units u, bool warnings)
{
	struct fpl_table_opts o = { .units = u, .warnings = warnings };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(fn(r, &o, f), 0);
	fclose(f);
	return buf;
}

static char *table(const struct fpl_result *r, enum fpl_units u, bool warnings, bool xsave)
{
	return table_by(xsave ? fpl_table_xsave : fpl_view_generic_table, r, u, warnings);
}

/* The line that starts with start (after a newline). */
static char *line_of(const char *buf, const char *start)
{
	char key[128], *p, *e;

	snprintf(key, sizeof(key), "\n%s", start);
	p = strstr(buf, key);
	if (!p)
		return NULL;
	p++;
	e = strchr(p, '\n');
	return strndup(p, e ? (size_t)(e - p) : strlen(p));
}

static void test_xsave_matrix(void **state)
{
	struct fpl_result *r = xsave_result();
	char *t = table(r, FPL_UNITS_CYCLES, false, true), *l;

	assert_non_null(strstr(t, "XSAVE family: core cycles per instruction, median (IQR)"));
	/* rows: instruction x mask; columns throughput init, live, latency init, live */
	l = line_of(t, "xsave    0x0  0 ");
	assert_non_null(l);
	assert_non_null(strstr(l, "100.0 (2.0)"));
	assert_non_null(strstr(l, "101.0 (2.0)"));
	assert_int_equal(count(l, " -"), 2);	/* no live state with nothing in RFBM */
	free(l);
	l = line_of(t, "         0x1  x87");
	assert_non_null(l);
	assert_non_null(strstr(l, "110.0 (2.0)  120.0 (2.0)  111.0 (2.0)  121.0 (2.0)"));
	free(l);
	/* XSAVEOPT's own block: init, unmod, modif under each method */
	assert_non_null(strstr(t, "init [1]   unmod [3]   modif [4]    init [2]   unmod [5]   "
				  "modif [6]"));
	l = line_of(t, "xsaveopt 0x1  x87");
	assert_non_null(l);
	assert_non_null(strstr(l, "200.0 (2.0) 230.0 (2.0) 260.0 (2.0) 201.0 (2.0) 231.0 (2.0) "
				  "261.0 (2.0)"));
	free(l);
	l = line_of(t, "         0x4  avx");
	assert_non_null(l);
	assert_non_null(strstr(l, "270.0 (2.0)"));
	free(l);
	/* each method once, the instruction and component written INSN and COMP */
	assert_int_equal(count(t, "throughput: back-to-back INSN on one buffer"), 1);
	assert_int_equal(count(t, "latency: back-to-back INSN on one buffer"), 1);
	assert_int_equal(count(t, "back-to-back (write one COMP register; INSN)"), 2);
	assert_int_equal(count(t, "N reps per sample"), 1);
	assert_int_equal(count(t, "core cycles estimated"), 1);
	assert_null(strstr(t, "TSC ticks (lfence"));
	/* the other instructions and the RFBM experiment */
	l = line_of(t, "ldmxcsr, same value");
	assert_non_null(l);
	assert_non_null(strstr(l, "3.0 (2.0) ["));
	free(l);
	l = line_of(t, "AVX               xrstor-c");
	assert_non_null(l);
	assert_non_null(strstr(l, "360.0 (2.0)"));
	assert_non_null(strstr(l, "385.0 (2.0)"));
	assert_non_null(strstr(l, "-24.99 [-25.98, -24.01]"));
	assert_non_null(strstr(l, "faster"));
	free(l);
	assert_non_null(strstr(t, "test: Yuen 20% trimmed, Welch df"));
	/* the warning counted, not repeated (it is on stderr) */
	assert_non_null(strstr(t, "1 warning: on stderr"));
	assert_null(strstr(t, "machine loaded"));
	/* 100 columns at most */
	for (char *p = t, *e; *p; p = e + 1) {
		e = strchr(p, '\n');
		assert_non_null(e);
		assert_true(e - p <= 100);
	}
	free(t);
	/* what is left out above: the TSC note in TSC ticks, the warning in full for a file */
	t = table(r, FPL_UNITS_TSC, true, true);
	assert_int_equal(count(t, "TSC ticks (lfence"), 1);
	assert_non_null(strstr(t, "warning: machine loaded"));
	free(t);
	fpl_result_free(r);
}

/*
 * --method and --state leave methods and states out: the table has columns
 * for what was measured only, each method named over its columns. With
 * --method latency an empty "init live" throughput pair of "-" stood unnamed
 * ("----------") beside it; with --state init the one throughput column was
 * too narrow for its name ("------------  - latency -").
 */
static void test_xsave_some_methods(void **state)
{
	struct fpl_result *r = fpl_result_new();
	char *t, *l = NULL;

	cell(r, "xsave", "0xe0", "avx512", "init", "latency", 150);
	cell(r, "xsave", "0xe0", "avx512", "live", "latency", 160);
	cell(r, "xsavec", "0xe0", "avx512", "init", "latency", 120);
	cell(r, "xsavec", "0xe0", "avx512", "live", "latency", 170);
	t = table(r, FPL_UNITS_CYCLES, false, true);
	if (strstr(t, "throughput") || !strstr(t, " latency ") ||
	    !(l = line_of(t, "xsave    0xe0 avx512")))
		fail_msg("%s", t);
	/* no empty cells: two columns, both measured */
	assert_int_equal(count(l, " -"), 0);
	assert_non_null(strstr(l, "150.0 (2.0)  160.0 (2.0)"));
	free(l);
	free(t);
	fpl_result_free(r);
	r = fpl_result_new();
	cell(r, "xsave", "0xe0", "avx512", "init", "throughput", 148);
	cell(r, "xsave", "0xe0", "avx512", "init", "latency", 150);
	t = table(r, FPL_UNITS_CYCLES, false, true);
	if (!strstr(t, " throughput ") || !strstr(t, " latency ") ||
	    !(l = line_of(t, "xsave    0xe0 avx512")))
		fail_msg("%s", t);
	assert_non_null(strstr(l, "148.0 (2.0)"));
	free(l);
	free(t);
	fpl_result_free(r);
}

static void test_xsave_units(void **state)
{
	struct fpl_result *r = xsave_result();
	char *t, *l;

	fpl_run_warn(r->runs[0], "XINUSE was not what the state claimed");
	t = table(r, FPL_UNITS_TSC, true, true);
	assert_non_null(strstr(t, "XSAVE family: TSC ticks per instruction"));
	l = line_of(t, "xsave    0x0  0 ");
	assert_non_null(l);
	assert_non_null(strstr(l, "50.0 (1.0)!"));	/* the cell whose run warned */
	free(l);
	assert_non_null(strstr(t, "!: the cell's run has a warning (1 cells)"));
	assert_non_null(strstr(t, "warning (xsave): XINUSE was not what the state claimed"));
	assert_int_equal(count(t, "TSC ticks (lfence"), 1);
	assert_non_null(strstr(t, "warning: machine loaded"));
	free(t);
	t = table(r, FPL_UNITS_ALL, true, true);
	assert_int_equal(count(t, "XSAVE family:"), 3);
	assert_non_null(strstr(t, "XSAVE family: ns per instruction"));
	assert_non_null(strstr(t, "25.00 (0.50)"));
	/* the RFBM table once, in core cycles */
	assert_int_equal(count(t, "RFBM experiment"), 1);
	free(t);
	fpl_result_free(r);
}

static void test_generic_notes_and_quiet(void **state)
{
	struct fpl_result *r = fpl_result_new();
	struct fpl_run *a = fpl_result_add_run(r, "demo"), *b = fpl_result_add_run(r, "demo");
	struct fpl_metric *m;
	char *t;

	triple(a, "", "throughput: back-to-back FOO", 10);
	triple(b, "", "throughput: back-to-back FOO", 20);
	fpl_run_param_int(b, "size", 2);
	/* 2 quiet rounds of 5: not shown; 5 of 20 samples: shown */
	a->metrics[0]->extra = json_pack("{s:f, s:i}", "quiet_median", 1.5, "quiet_rounds", 2);
	m = fpl_run_add_metric(b, "rate", "ops/s", "ops per second");
	for (int i = 0; i < 40; i++)
		fpl_metric_add(m, i);
	m->extra = json_pack("{s:f, s:i}", "quiet_median", 7.25, "quiet_rounds", 12);
	fpl_run_warn(b, "odd");
	/* not a harness triple: its method is one note, whatever it says */
	m = fpl_run_add_metric(b, "rt", "tsc", "round trip; TSC ticks per signal");
	fpl_metric_add(m, 5);
	t = table(r, FPL_UNITS_CYCLES, true, false);
	assert_non_null(strstr(t, "    rt 5.00 tsc (IQR 0.00) [3]; n=1\n"));
	assert_non_null(strstr(t, "[3] round trip; TSC ticks per signal\n"));
	assert_non_null(strstr(t, "    cycles 10.00 cycles (IQR 2.00) [1, u1]; n=5\n"));
	assert_non_null(strstr(t, "    cycles 20.00 cycles (IQR 2.00) [1, u1]; n=5\n"));
	assert_non_null(strstr(t, "rate 19.50 ops/s (IQR 19.50) [2] quiet 12: 7.25; n=40"));
	assert_null(strstr(t, "quiet 2:"));
	/* one method note, one unit note, no TSC or ns figures unless asked */
	assert_int_equal(count(t, "throughput: back-to-back FOO"), 1);
	assert_int_equal(count(t, "core cycles estimated"), 1);
	assert_null(strstr(t, " tsc [1, u"));
	assert_null(strstr(t, "TSC ticks (lfence"));
	assert_non_null(strstr(t, "warning (demo): odd"));
	free(t);
	t = table(r, FPL_UNITS_ALL, false, false);
	assert_non_null(strstr(t, "time 10.00 cycles (IQR 2.00) [1, u1] = 5.00 tsc [1, u2] = "
				  "2.50 ns [1, u3]; n=5"));
	assert_int_equal(count(t, "throughput: back-to-back FOO"), 1);
	assert_int_equal(count(t, "TSC ticks (lfence"), 1);
	assert_non_null(strstr(t, "1 warning: on stderr"));
	free(t);
	fpl_result_free(r);
}

/* A metric of name in unit, family fam, method text, one sample v. */
static struct fpl_metric *fam_metric(struct fpl_run *run, const char *name, const char *unit,
				     const char *fam, const char *method, double v)
{
	struct fpl_metric *m = fpl_run_add_metric(run, name, unit, method);

	assert_non_null(m);
	assert_int_equal(fpl_metric_set_family(m, fam), 0);
	assert_int_equal(fpl_metric_add(m, v), 0);
	return m;
}

/*
 * The generic table finds a figure's three units by family, not by name,
 * and splits a method where the metric says, not where its words look like
 * the harness's: names without a unit suffix form one figure, names with
 * one in different families do not, and a "; core cycles " in a method that
 * has no unit part stays in its one note.
 */
static void test_generic_by_family(void **state)
{
	struct fpl_result *r = fpl_result_new();
	struct fpl_run *run = fpl_result_add_run(r, "demo");
	struct fpl_metric *m;
	char *t;

	(void)state;
	m = fam_metric(run, "fast", "cycles", "op", NULL, 30);
	assert_int_equal(fpl_metric_set_method(m, "op timed", NULL, "core cycles from ticks"), 0);
	m = fam_metric(run, "ticks", "tsc", "op", NULL, 15);
	assert_int_equal(fpl_metric_set_method(m, "op timed", NULL, "TSC ticks as read"), 0);
	m = fam_metric(run, "nanos", "ns", "op", NULL, 7.5);
	assert_int_equal(fpl_metric_set_method(m, "op timed", NULL, "ns from TSC ticks"), 0);
	fam_metric(run, "x_cycles", "cycles", "p", "p; core cycles estimated: words", 1);
	fam_metric(run, "x_tsc", "tsc", "q", "q timed", 2);
	fam_metric(run, "x_ns", "ns", "r", "r timed", 3);
	t = table(r, FPL_UNITS_ALL, false, false);
	if (!strstr(t, "    op_time 30.00 cycles (IQR 0.00) [1, u1] = 15.00 tsc [1, u2] = 7.50 ns "
		    "[1, u3]; n=1\n") || strstr(t, "    ticks ") || strstr(t, "x_time") ||
	    !strstr(t, "    x_cycles 1.00 cycles (IQR 0.00) [2]; n=1\n") ||
	    !strstr(t, "    x_tsc 2.00 tsc (IQR 0.00) [3]; n=1\n") ||
	    !strstr(t, "[2] p; core cycles estimated: words\n") || strstr(t, "[u4]"))
		fail_msg("%s", t);
	free(t);
	/* one unit asked: the figure in that unit, under the metric's own name */
	t = table(r, FPL_UNITS_TSC, false, false);
	if (!strstr(t, "    ticks 15.00 tsc (IQR 0.00) [1, u1]; n=1\n") || strstr(t, "fast"))
		fail_msg("%s", t);
	free(t);
	t = table(r, FPL_UNITS_CYCLES, false, false);
	if (!strstr(t, "    fast 30.00 cycles (IQR 0.00) [1, u1]; n=1\n") ||
	    strstr(t, "    ticks "))
		fail_msg("%s", t);
	free(t);
	fpl_result_free(r);
}

/*
 * A ctxsw --ab verdict is never broken over two lines, however wide its
 * interval: a loaded machine gives intervals of -12% .. +15% (two digits
 * each), and the batch medians' "no difference proven" line was then
 * wrapped inside its CI, which test_ctxsw's test_ctxsw_ab_table
 * reads as a CI not closed on its line.
 */
static void test_ab_verdicts_whole(void **state)
{
	static const char *const keys[] = { "b_minus_a_median", "b_minus_a_welch",
					     "b_minus_a_yuen" };
	static const char *const verdicts[] = {
		"no difference proven at 95% (CI -12.079% .. +15.684%)",
		"no difference proven at 95% (CI -123.456% .. +234.567%)",
		"+101.985% (95% CI +100.536% .. +103.433%)",
		"-0.985% (95% CI -1.433% .. -0.536%)",
	};
	struct fpl_metric *m;

	(void)state;
	for (size_t v = 0; v < FPL_ARRAY_SIZE(verdicts); v++) {
		struct fpl_result *r = fpl_result_new();
		struct fpl_run *run = fpl_result_add_run(r, "ctxsw");
		char *t;

		fpl_run_param_str(run, "mode", "processes");
		fpl_run_param_str(run, "placement", "same");
		fpl_run_param_str(run, "state_a", "init");
		fpl_run_param_str(run, "state_b", "sse");
		m = fpl_run_add_metric(run, "difference", "ns", "B - A per round");
		assert_non_null(m);
		assert_int_equal(fpl_metric_add(m, 1), 0);
		for (size_t k = 0; k < FPL_ARRAY_SIZE(keys); k++)
			assert_int_equal(fpl_run_obs_str(run, keys[k], verdicts[v]), 0);
		t = table(r, FPL_UNITS_CYCLES, false, false);
		/* each verdict whole, and each line within the 100-column terminal */
		assert_int_equal(count(t, verdicts[v]), FPL_ARRAY_SIZE(keys));
		for (const char *p = t, *e; *p; p = e + 1) {
			e = strchr(p, '\n');
			if (!e)
				break;
			if (e - p > 100)
				fail_msg("a line of %zu columns: %.*s", (size_t)(e - p), (int)(e - p), p);
		}
		for (size_t k = 0; k < FPL_ARRAY_SIZE(keys); k++) {
			char key[64];

			snprintf(key, sizeof(key), "(%s)", keys[k]);
			assert_int_equal(count(t, key), 1);
		}
		free(t);
		fpl_result_free(r);
	}
}

/*
 * The matrix row of insn and "mask name": rows of one instruction follow
 * the one that names it, with the name column blank.
 */
static char *row_of(const char *t, const char *insn, const char *label)
{
	char cur[16] = "";

	for (const char *p = t, *e; *p; p = e + 1) {
		e = strchr(p, '\n');
		if (!e)
			break;
		if (e - p < 24 || strncmp(p + 9, "0x", 2)) {
			cur[0] = 0;
			continue;
		}
		if (p[0] != ' ')
			sscanf(p, "%15s", cur);
		if (!strcmp(cur, insn) && !strncmp(p + 9, label, strlen(label)) &&
		    p[9 + strlen(label)] == ' ')
			return strndup(p, (size_t)(e - p));
	}
	return NULL;
}

/* A real run of every instruction this CPU has: every cell of the JSON is in its row. */
static void test_xsave_real_run(void **state)
{
	const char *argv[] = { cmd_fpl_bin(), "xsave", "--part", "matrix", "--budget", "0.05",
			       "-q", "--json", NULL };
	struct fpl_result *r = NULL;
	struct fpl_diag diag = { "" };
	struct cmd_out o;
	json_t *doc;
	char *t;

	assert_int_equal(cmd_run(argv, FPLRUN_LIMIT_S, &o), 0);
	if (cmd_code(&o) == 77) {
		/* no XSAVE here: test_xsave covers the command's exit codes */
		const char *why = strstr(o.out, "\"skip_reason\"");

		why = why ? why : o.err;
		print_message("  xsave --part matrix: exit 77, not supported on this CPU: %.*s\n",
			      (int)strcspn(why, "\n"), why);
		cmd_out_free(&o);
		skip();
	}
	if (cmd_code(&o) != 0 || !o.nout)
		fail_msg("xsave --part matrix --json: exit %d, %zu bytes out\n%s", cmd_code(&o),
			 o.nout, o.err);
	doc = json_loads(o.out, 0, NULL);
	assert_non_null(doc);
	assert_int_equal(fpl_result_from_json(doc, &r, &diag), 0);
	assert_true(r->nruns > 0);
	t = table(r, FPL_UNITS_CYCLES, true, true);
	for (size_t i = 0; i < r->nruns; i++) {
		const struct fpl_run *run = r->runs[i];
		const char *insn = json_string_value(json_object_get(run->params, "insn"));
		const char *mask = json_string_value(json_object_get(run->params, "mask"));
		const char *name = json_string_value(json_object_get(run->params, "mask_name"));
		struct fpl_metric *m = fpl_run_find_metric(run, "cycles");
		struct fpl_summary s;
		char label[64], cellt[64], *l;
		double below;

		/*
		 * A cell this CPU cannot measure (an XSAVEOPT "modified" loop for a
		 * component without one, AMX tiles without permission) is a skipped
		 * run with its reason and no metric: the table's business is the rest.
		 */
		if (run->skipped) {
			assert_non_null(run->skip_reason);
			continue;
		}
		assert_true(insn && mask && name && m);
		snprintf(label, sizeof(label), "%-4s %s", mask, name);
		l = row_of(t, insn, label);
		if (!l)
			fail_msg("no row for %s %s", insn, label);
		assert_int_equal(fpl_metric_summary(m, 10, &s), 0);
		/*
		 * A cell a quarter of whose samples or more lie either side of
		 * zero (the latency method's difference on a loaded host, under
		 * ASan) is "below resolution", by the table's own rule.
		 */
		if (fpl_tbl_below_resolution(r, m, 1, &below))
			snprintf(cellt, sizeof(cellt), "below resolution: < %.1f", below);
		else
			snprintf(cellt, sizeof(cellt), "%.1f (", s.median);
		if (!strstr(l, cellt))
			fail_msg("%s %s: %s not in '%s'", insn, label, cellt, l);
		free(l);
	}
	free(t);
	json_decref(doc);
	fpl_result_free(r);
	cmd_out_free(&o);
}

/* A metric of one sample with a median interval in extra, as the section benchmark leaves it. */
static void ci_metric(struct fpl_run *run, const char *name, const char *unit, double est,
		      double half)
{
	struct fpl_metric *m = fpl_run_add_metric(run, name, unit, "synthetic");

	assert_non_null(m);
	assert_int_equal(fpl_metric_add(m, est), 0);
	m->extra = json_pack("{s:f, s:f, s:f}", "estimate", est, "ci95_lo", est - half,
			     "ci95_hi", est + half);
}

/*
 * One eager section run: inside 40000 cycles (20000 tsc, 10000 ns, the
 * triple's halves), outside 4000, bare 3600; the costs in each unit with
 * figures of their own, so that a table showing one unit's costs in
 * another's columns is seen.
 */
static struct fpl_result *section_result(void)
{
	static const char *const units[] = { "cycles", "tsc", "ns" };
	static const double cost[] = { 555, 277, 138.75 }, one[] = { 400, 200, 100.5 };
	struct fpl_result *r = fpl_result_new();
	struct fpl_run *run = fpl_result_add_run(r, "section");
	char name[32];

	fpl_run_param_str(run, "workload", "xor");
	fpl_run_param_str(run, "impl", "avx");
	fpl_run_param_int(run, "chunk", 1024);
	fpl_run_param_str(run, "policy", "eager");
	triple(run, "inside_", "one call, a section around each chunk", 40000);
	triple(run, "outside_", "one call, one section around all", 4000);
	triple(run, "bare_", "one call, no section", 3600);
	ci_metric(run, "speedup_pct", "percent", 900, 1);
	for (size_t u = 0; u < 3; u++) {
		snprintf(name, sizeof(name), "section_%s", units[u]);
		ci_metric(run, name, units[u], cost[u], cost[u] / 100);
		snprintf(name, sizeof(name), "one_section_%s", units[u]);
		ci_metric(run, name, units[u], one[u], 0);
	}
	return r;
}

/* --units (issue 14): the section table's times and costs are in the unit chosen, or in each. */
static void test_section_units(void **state)
{
	struct fpl_result *r = section_result();
	char *t, *l;

	t = table_by(fpl_table_section, r, FPL_UNITS_CYCLES, true);
	assert_non_null(strstr(t, "FPU sections: times in core cycles [u1]"));
	assert_non_null(strstr(t, "cycles/section [CI]"));
	l = line_of(t, "xor ");
	assert_non_null(l);
	assert_non_null(strstr(l, " 40000        4000 "));
	assert_non_null(strstr(l, "+900.0 [+899.0, +901.0]"));
	assert_non_null(strstr(l, " 555 [549, 561] "));
	assert_non_null(strstr(l, " 400 "));
	free(l);
	assert_null(strstr(t, "tsc/section"));
	assert_non_null(strstr(t, "[u1] core cycles estimated"));
	assert_non_null(strstr(t, "Units (--units tsc|ns|all for the others"));
	free(t);

	t = table_by(fpl_table_section, r, FPL_UNITS_TSC, true);
	assert_non_null(strstr(t, "FPU sections: times in TSC ticks [u1]"));
	assert_non_null(strstr(t, "tsc/section [CI]"));
	assert_null(strstr(t, "cycles/section"));
	l = line_of(t, "xor ");
	assert_non_null(l);
	assert_non_null(strstr(l, " 20000        2000 "));
	assert_non_null(strstr(l, " 277 [274, 280] "));
	assert_non_null(strstr(l, " 200 "));
	free(l);
	assert_non_null(strstr(t, "Units (--units cycles|ns|all for the others"));
	free(t);

	t = table_by(fpl_table_section, r, FPL_UNITS_NS, true);
	assert_non_null(strstr(t, "us/call"));
	l = line_of(t, "xor ");
	assert_non_null(l);
	assert_non_null(strstr(l, " 10.000       1.000 "));
	assert_non_null(strstr(l, " 138.8 [137.4, 140.1] "));
	assert_non_null(strstr(l, " 100.5 "));
	free(l);
	free(t);

	t = table_by(fpl_table_section, r, FPL_UNITS_ALL, true);
	assert_int_equal(count(t, "FPU sections: times in"), 3);
	assert_int_equal(count(t, "+900.0 [+899.0, +901.0]"), 3);
	assert_non_null(strstr(t, "[u3] ns from TSC ticks"));
	assert_non_null(strstr(t, "Units:\n"));
	free(t);
	fpl_result_free(r);
}

/*
 * One section (outside - bare) is a cost: printed with its interval, as the
 * cost per section is. chacha20/scalar's 800k-cycle calls in a quick run
 * gave a median of -213416 cycles, shown bare; its interval holds 0.
 */
static void test_section_one_interval(void **state)
{
	struct fpl_result *r = section_result();
	struct fpl_metric *m = fpl_run_find_metric(r->runs[0], "one_section_cycles");
	char *t, *l;

	json_decref(m->extra);
	m->extra = json_pack("{s:f, s:f, s:f}", "estimate", -213416.0, "ci95_lo", -268073.0,
			     "ci95_hi", 3403.0);
	t = table_by(fpl_table_section, r, FPL_UNITS_CYCLES, true);
	l = line_of(t, "xor ");
	if (!l || !strstr(l, " -213416 [-268073, 3403] ") || !strstr(t, "cycles [CI]"))
		fail_msg("%s", t);
	free(l);
	free(t);
	fpl_result_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xsave_matrix),
		cmocka_unit_test(test_xsave_units),
		cmocka_unit_test(test_xsave_some_methods),
		cmocka_unit_test(test_generic_notes_and_quiet),
		cmocka_unit_test(test_generic_by_family),
		cmocka_unit_test(test_ab_verdicts_whole),
		cmocka_unit_test(test_xsave_real_run),
		cmocka_unit_test(test_section_units),
		cmocka_unit_test(test_section_one_interval),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
