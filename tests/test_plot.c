// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests for src/report/plot.c and fpulab plot: scripts of results, binned samples, box-plot titles, the ECDF's ticks. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <jansson.h>

#include "report/plot.h"
#include "fpulab/result.h"
#include "clitest.h"
#include "handmade.h"

static void plot_script_of_handmade_result(void **state)
{
	struct fpl_result *r = handmade();
	struct fpl_diag diag = { "" };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_int_equal(fpl_plot_available(r), FPL_PLOT_XSAVE | FPL_PLOT_XOR);
	assert_int_equal(fpl_plot_script(r, FPL_PLOT_ALL, FPL_PLOT_SVG, "x.svg", f, &diag), 0);
	fclose(f);
	assert_non_null(strstr(buf, "set terminal svg"));
	assert_non_null(strstr(buf, "set multiplot layout 3,1"));	/* 2 xsave + xor */
	assert_non_null(strstr(buf, "4096 100005"));
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_int_equal(fpl_plot_script(r, FPL_PLOT_CTXSW, FPL_PLOT_PNG, "x.png", f, &diag),
			 -EINVAL);
	fclose(f);
	free(buf);
	assert_int_equal(fpl_plot_term_of("a/b.PNG"), FPL_PLOT_PNG);
	assert_int_equal(fpl_plot_term_of("a.svgz"), -1);
	fpl_result_free(r);
}

/* plot of many samples bins them first: the script stays small, min and max are in it. */
static void test_plot_bins_many_samples(void **state)
{
	char *dir = tmpdir(), path[600], *out = NULL;
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), "%s/big.txt", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	/* 200 000 values 1000..1199 and one far outlier, 9999 */
	for (unsigned i = 0; i < 200000; i++)
		fprintf(f, "%u\n", 1000 + (i * 7919u) % 200);
	fputs("9999\n", f);
	fclose(f);
	rc = sh(&out, "cd %s && %s plot --script big.txt big.txt -o x.svg", dir, cmd_fpl_bin());
	assert_int_equal(rc, 0);
	print_message("  script of 2 x 200001 samples: %zu bytes\n", strlen(out));
	/* raw, it would be 2 x 1.2 MB */
	assert_true(strlen(out) < 200000);
	assert_non_null(strstr(out, "\n9999\n"));
	assert_non_null(strstr(out, "\n1000\n"));
	assert_non_null(strstr(out, "\n1199\n"));
	free(out);
	tmpdir_done(dir);
}

/* Every "set title" line of a script holds want and none holds avoid (NULL: not checked). */
static void titles_say(const char *script, const char *want, const char *avoid)
{
	size_t n = 0;

	for (const char *p = script; (p = strstr(p, "\nset title ")); p++) {
		char *line = strndup(p + 1, strcspn(p + 1, "\n"));

		if (!strstr(line, want) || (avoid && strstr(line, avoid)))
			fail_msg("'%s': wanted '%s'%s%s", line, want, avoid ? ", not " : "",
				 avoid ? avoid : "");
		free(line);
		n++;
	}
	assert_true(n > 0);
}

/*
 * Box plots name the cases as people did (issue 14): the file or directory
 * name, or --label, on the axis, the boxes and the panel titles; the titles
 * say the metric in words, not raw k=v params or 'value'.
 */
static void test_plot_box_titles(void **state)
{
	const char *j = "tests/data/compare/json/";
	char *out = NULL;
	int rc;

	rc = sh(&out, "%s plot --script %sa.json %sb.json -o x.svg", cmd_fpl_bin(), j, j);
	assert_int_equal(rc, 0);
	titles_say(out, "a.json vs b.json", "insn=");
	assert_non_null(strstr(out, "set title 'cycles (xsave; insn xsavec, mask 0x7): a.json vs "
				    "b.json'"));
	assert_non_null(strstr(out, "set xtics ('a.json' 1, 'b.json' 2)"));
	assert_non_null(strstr(out, "with boxplot lt 1 title 'a.json'"));
	free(out);
	rc = sh(&out, "%s plot --script %sa.json %sb.json -o x.svg --label 'old kernel' -l new",
		cmd_fpl_bin(), j, j);
	assert_int_equal(rc, 0);
	titles_say(out, "old kernel vs new", "a.json");
	assert_non_null(strstr(out, "set xtics ('old kernel' 1, 'new' 2)"));
	free(out);
	/* directories (a trailing slash too) and a comma list; plain numbers, will-it-scale */
	rc = sh(&out, "%s plot --script tests/data/compare/wis/case1/ tests/data/compare/wis/case2 "
		"-o x.svg", cmd_fpl_bin());
	assert_int_equal(rc, 0);
	titles_say(out, "will-it-scale average: case1 vs case2", NULL);
	free(out);
	rc = sh(&out, "%s plot --script tests/data/compare/ms/big-a,tests/data/compare/ms/diff-a "
		"tests/data/compare/ms/big-b -o x.svg", cmd_fpl_bin());
	assert_int_equal(rc, 0);
	titles_say(out, "big-a,diff-a vs big-b", "value");
	free(out);
	/* --label for one case, or more than the cases: usage errors */
	rc = sh(&out, "%s plot --script %sa.json -o x.svg --label x 2>&1", cmd_fpl_bin(), j);
	assert_int_equal(rc, 2);
	assert_non_null(strstr(out, "--label"));
	free(out);
	rc = sh(&out, "%s plot --script %sa.json %sb.json -o x.svg -l x -l y -l z 2>&1",
		cmd_fpl_bin(), j, j);
	assert_int_equal(rc, 2);
	assert_non_null(strstr(out, "3 --label for 2 cases"));
	free(out);
}

/*
 * The context-switch ECDF's log axis is readable whatever its range: at
 * least 4 ticks, inside the range, increasing. 850..1093 (a range under a
 * factor of 2.5) once had one; 2100..12000 (this Zen 4, under two decades)
 * had two (5000, 10000) with the median at 2450 unlabelled.
 */
static unsigned plot_ticks(double lo, double span)
{
	struct fpl_result *r = fpl_result_new();
	struct fpl_run *run = fpl_result_add_run(r, "ctxsw");
	struct fpl_metric *m;
	struct fpl_diag diag = { "" };
	char *text = NULL, *t;
	size_t len = 0;
	unsigned ticks = 0;
	double last = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(run);
	assert_int_equal(fpl_run_param_str(run, "mode", "processes"), 0);
	assert_int_equal(fpl_run_param_str(run, "placement", "same"), 0);
	assert_int_equal(fpl_run_param_str(run, "state", "none"), 0);
	m = fpl_run_add_metric(run, "switch", "ns", "test");
	assert_non_null(m);
	for (int i = 0; i < 200; i++)
		assert_int_equal(fpl_metric_add(m, lo + span * ((i * 37) % 200) / 199.0), 0);
	assert_int_equal(fpl_plot_script(r, FPL_PLOT_CTXSW, FPL_PLOT_SVG, "x.svg", f, &diag), 0);
	fclose(f);
	t = strstr(text, "set xtics (");
	assert_non_null(t);
	for (const char *p = strchr(t, '\''); p && p < strchr(t, ')'); p = strchr(p + 1, '\'')) {
		double v = strtod(p + 1, NULL);

		if (v < lo * 0.9 || v > (lo + span) * 1.1 || v <= last)
			fail_msg("tick %g out of [%g, %g] or not increasing: %.120s", v, lo, lo + span, t);
		last = v;
		ticks++;
		p = strchr(p + 1, '\'');	/* the label's closing quote */
	}
	print_message("  [%g, %g]: %u ticks: %.100s\n", lo, lo + span, ticks, t);
	free(text);
	fpl_result_free(r);
	return ticks;
}

static void test_plot_ticks(void **state)
{
	assert_true(plot_ticks(850, 243) >= 4);
	assert_true(plot_ticks(2100, 9900) >= 4);
	assert_true(plot_ticks(300, 90000) >= 4);
	assert_true(plot_ticks(7000, 600) >= 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(plot_script_of_handmade_result),
		cmocka_unit_test(test_plot_bins_many_samples),
		cmocka_unit_test(test_plot_box_titles),
		cmocka_unit_test(test_plot_ticks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
