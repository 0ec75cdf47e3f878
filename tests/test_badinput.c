// SPDX-License-Identifier: GPL-3.0-or-later
/* Bad input on every input path of every command: a clear message, exit 2, nothing written. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "fpulab/base.h"
#include "runcmd.h"
#include "clitest.h"
#include "fixtures.h"

/*
 * One row: a command line with fixture names (fixtures.h) in place of
 * files, and the exit codes allowed. An output that cannot be created (a
 * directory, a missing directory) may be 1 (failure) or 2 (usage); anything
 * a person typed wrong is 2.
 */
struct row {
	const char *args[12];
	int code, alt;		/* alt: a second accepted exit code, 0 for none */
	bool gnuplot;		/* plot reaches the input only where it finds a gnuplot */
	const char *says;	/* stderr must contain this (case-insensitive), or NULL */
	const char *needs;	/* run only when the command's --help mentions this */
};

#define E2 2, 0, false
#define E12 2, 1, false
/* plot looks for gnuplot (optional) before it reads its inputs: these only where it is found */
#define E2G 2, 0, true

static const struct row rows[] = {
	/* info */
	{ { "info", "extra" }, E2, "extra", NULL },
	{ { "info", "--no-such-option" }, E2, "no-such-option", NULL },
	{ { "info", "--cpuid" }, E2, NULL, "--cpuid" },
	{ { "info", "--cpuid", "@NOFILE" }, E2, "@NOFILE", "--cpuid" },
	{ { "info", "--cpuid", "@DIR" }, E2, "@DIR", "--cpuid" },
	{ { "info", "--cpuid", "@EMPTY" }, E2, "@EMPTY", "--cpuid" },
	{ { "info", "--cpuid", "@GARBAGE" }, E2, "@GARBAGE", "--cpuid" },
	{ { "info", "--cpuid", "@BADDUMP" }, E2, "@BADDUMP", "--cpuid" },
	{ { "info", "--cpuid", "@JSON" }, E2, "@JSON", "--cpuid" },
	{ { "info", "--cpuid", "/dev/zero" }, E2, "/dev/zero", "--cpuid" },
	{ { "info", "--dump-cpuid", "-o" }, E2, NULL, "--dump-cpuid" },
	{ { "info", "--dump-cpuid", "-o", "@DIR" }, E12, NULL, "--dump-cpuid" },
	{ { "info", "--dump-cpuid", "-o", "@NODIR/out" }, E12, NULL, "--dump-cpuid" },
	{ { "info", "--json", "--dump-cpuid", "extra", "-o", "@OUT" }, E2, NULL, "--dump-cpuid" },
	/* list */
	{ { "list", "--no-such-option" }, E2, "no-such-option", NULL },
	/* run */
	{ { "run", "no-such-benchmark" }, E2, "no-such-benchmark", NULL },
	{ { "run", "--no-such-option" }, E2, "no-such-option", NULL },
	{ { "run", "--quick", "--budget", "0", "-o", "@OUT" }, E2, "budget", NULL },
	{ { "run", "--quick", "--budget", "abc", "-o", "@OUT" }, E2, "budget", NULL },
	{ { "run", "--quick", "--cpu", "-1", "-o", "@OUT" }, E2, "cpu", NULL },
	{ { "run", "--quick", "--cpu", "100000", "-o", "@OUT" }, E2, "cpu", NULL },
	{ { "run", "--quick", "--format", "xml", "-o", "@OUT" }, E2, "format", NULL },
	{ { "run", "--quick", "-o" }, E2, NULL, NULL },
	/* benchmark options whose values are free text: what a person can get wrong */
	{ { "xsave", "--quick", "-q", "--mask", "nosuchthing", "-o", "@OUT" }, E2, "mask", "--mask" },
	{ { "xsave", "--quick", "-q", "--mask", "0x1000000000000000", "-o", "@OUT" }, E2, "mask",
	  "--mask" },
	{ { "ctxsw", "--quick", "-q", "--state", "nosuchthing", "-o", "@OUT" }, E2, "state",
	  "--state" },
	{ { "ctxsw", "--quick", "-q", "--ab", "avx512", "-o", "@OUT" }, E2, "ab", "--ab" },
	{ { "ctxsw", "--quick", "-q", "--ab", "avx512,nosuch", "-o", "@OUT" }, E2, "ab", "--ab" },
	/*
	 * APX state is never offered live (no CPU here has it): a state this CPU
	 * lacks in A must not hide a bad name in B, on every CPU (issue 31 item 5).
	 */
	{ { "ctxsw", "--quick", "-q", "--ab", "apx,nosuch", "-o", "@OUT" }, E2, "nosuch", "--ab" },
	{ { "ctxsw", "--quick", "-q", "--ab", "nosuch,apx", "-o", "@OUT" }, E2, "nosuch", "--ab" },
	{ { "kvm", "--quick", "-q", "--ab", "apx,nosuch", "-o", "@OUT" }, E2, "nosuch", "--ab" },
	{ { "signal", "--quick", "-q", "--ab", "apx,nosuch", "-o", "@OUT" }, E2, "nosuch", "--ab" },
	{ { "signal", "--quick", "-q", "--ab", "none,init", "-o", "@OUT" }, E2, "none", "--ab" },
	{ { "signal", "--quick", "-q", "--ab", "init", "-o", "@OUT" }, E2, "two states", "--ab" },
	{ { "ctxsw", "--wis", "-s", "abc" }, E2, NULL, "--wis" },
	{ { "ctxsw", "--wis", "-t", "0" }, E2, NULL, "--wis" },
	{ { "signal", "--quick", "-q", "--state", "nosuchthing", "-o", "@OUT" }, E2, "state",
	  "--state" },
	{ { "signal", "--quick", "-q", "--altstack", "16", "-o", "@OUT" }, E2, "altstack",
	  "--altstack" },
	{ { "section", "--quick", "-q", "--impl", "nosuch", "-o", "@OUT" }, E2, "impl", "--impl" },
	/* the error is the mismatch of workload and impl, not a missing build (issue 32 item 10) */
	{ { "section", "--quick", "-q", "--workload", "xor", "--impl", "chacha20/avx2", "-o", "@OUT" },
	  E2, "is a chacha20 implementation, and --workload is xor", "--impl" },
	{ { "section", "--quick", "-q", "--chunks", "100", "-o", "@OUT" }, E2, "chunks", "--chunks" },
	{ { "section", "--quick", "-q", "--chunks", "abc", "-o", "@OUT" }, E2, "chunks", "--chunks" },
	{ { "section", "--quick", "-q", "--chunks", "0", "-o", "@OUT" }, E2, "chunks", "--chunks" },
	{ { "xor", "--quick", "-q", "--impl", "nosuch", "-o", "@OUT" }, E2, "impl", "--impl" },
	{ { "xor", "--quick", "-q", "--sizes", "100", "-o", "@OUT" }, E2, "sizes", "--sizes" },
	{ { "xor", "--quick", "-q", "--sizes", "4k,,", "-o", "@OUT" }, E2, "sizes", "--sizes" },
	{ { "xor", "--quick", "-q", "--sizes", "99999999999999999999", "-o", "@OUT" }, E2, "sizes",
	  "--sizes" },
	{ { "xor", "--quick", "-q", "--arities", "7", "-o", "@OUT" }, E2, "arities", "--arities" },
	{ { "xor", "--quick", "-q", "--arities", "x", "-o", "@OUT" }, E2, "arities", "--arities" },
	/* will-it-scale names: its option letters (no huge -t: that would be a fork bomb) */
	{ { "context_switch1_processes", "-s", "abc" }, E2, NULL, NULL },
	{ { "context_switch1_processes", "-s", "-1" }, E2, NULL, NULL },
	{ { "context_switch1_processes", "-t", "0" }, E2, NULL, NULL },
	{ { "context_switch1_processes", "-t", "1x" }, E2, NULL, NULL },
	{ { "context_switch1_processes", "-z" }, E2, NULL, NULL },
	{ { "context_switch1_processes", "-t" }, E2, "needs a value", NULL },
	{ { "context_switch1_threads", "-t", "abc" }, E2, NULL, NULL },
	{ { "signal1_processes", "-s", "abc" }, E2, NULL, NULL },
	{ { "signal1_threads", "-t", "-3" }, E2, NULL, NULL },
	/* run, repro, plot */
	{ { "run", "--units", "furlongs", "--quick", "-q", "-o", "@OUT" }, E2, "units", "--units" },
	{ { "run", "xsave", "--mask", "nosuchthing", "-o", "@OUT" }, E2, "mask", NULL },
	/* a benchmark's own .check runs under `run` as under its command, naming the option */
	{ { "run", "xor", "--impl", "nosuch", "-o", "@OUT" }, E2, "--impl", NULL },
	{ { "run", "section", "--chunks", "100", "-o", "@OUT" }, E2, "--chunks", NULL },
	{ { "run", "xsave", "--no-such-option", "-o", "@OUT" }, E2, "no-such-option", NULL },
	/* an unknown option is named before what follows it is taken as an argument */
	{ { "xsave", "--no-such-option", "1", "-o", "@OUT" }, E2, "no-such-option", NULL },
	{ { "xsave", "--json=1", "-o", "@OUT" }, E2, "--json takes no value", NULL },
	{ { "repro" }, E2, NULL, NULL },
	{ { "repro", "nosuch" }, E2, "nosuch", NULL },
	{ { "repro", "rfbm", "--runs", "2" }, E2, "runs", "--runs" },
	{ { "repro", "rfbm", "--runs", "x" }, E2, "runs", "--runs" },
	{ { "repro", "rfbm", "--budget", "-1" }, E2, "budget", "--budget" },
	{ { "plot" }, E2, NULL, NULL },
	{ { "plot", "--label" }, E2, "needs a value", "--label" },
	{ { "plot", "-o" }, E2, "needs a value", NULL },
	{ { "plot", "@NOFILE", "-o", "@DIR/x.svg" }, E2G, "@NOFILE", NULL },
	{ { "plot", "@GARBAGE", "-o", "@DIR/x.svg" }, E2G, NULL, NULL },
	{ { "plot", "@JSON", "-o", "@DIR/x.svg" }, E2G, NULL, NULL },
	{ { "plot", "@BADJSON", "-o", "@DIR/x.svg" }, E2G, NULL, NULL },
	{ { "plot", "@NUMS", "@NUMS", "-o", "@DIR/x.txt" }, E2, NULL, NULL },
	{ { "plot", "@NUMS", "@NUMS" }, E2, NULL, NULL },
	{ { "plot", "@NUMS", "@NUMS", "-o", "@DIR/x.svg", "--chart", "nosuch" }, E2, "chart",
	  "--chart" },
	{ { "plot", "@NUMS", "@NUMS", "-o", "@DIR/x.svg", "--trim", "60" }, E2, "trim", "--trim" },
	{ { "plot", "@NUMS", "@TEXT", "-o", "@DIR/x.svg" }, E2G, "@TEXT", NULL },
	/* compare */
	{ { "compare" }, E2, NULL, NULL },
	{ { "compare", "@NOFILE", "@NUMS" }, E2, "@NOFILE", NULL },
	{ { "compare", "@EMPTY", "@NUMS" }, E2, "@EMPTY", NULL },
	{ { "compare", "@GARBAGE", "@NUMS" }, E2, "@GARBAGE", NULL },
	{ { "compare", "@TEXT", "@NUMS" }, E2, "@TEXT", NULL },
	{ { "compare", "@JSON", "@JSON" }, E2, "@JSON", NULL },
	{ { "compare", "@BADJSON", "@BADJSON" }, E2, "@BADJSON", NULL },
	{ { "compare", "@WISNOAVG", "@WISNOAVG" }, E2, "@WISNOAVG", NULL },
	{ { "compare", "@NUMS", "@WIS" }, E2, NULL, NULL },
	{ { "compare", "@INF", "@NUMS" }, E2, "@INF", NULL },
	{ { "compare", "--trim", "50", "@NUMS", "@NUMS" }, E2, "trim", "--trim" },
	{ { "compare", "--trim", "-1", "@NUMS", "@NUMS" }, E2, "trim", "--trim" },
	{ { "compare", "--trim", "abc", "@NUMS", "@NUMS" }, E2, "trim", "--trim" },
	{ { "compare", "--confidence", "100", "@NUMS", "@NUMS" }, E2, "confidence", "--confidence" },
	{ { "compare", "--confidence", "0", "@NUMS", "@NUMS" }, E2, "confidence", "--confidence" },
	{ { "compare", "--confidence", "nan", "@NUMS", "@NUMS" }, E2, "confidence", "--confidence" },
	{ { "compare", "--bootstrap=-5", "@NUMS", "@NUMS" }, E2, "bootstrap", "--bootstrap" },
	{ { "compare", "--bootstrap=99999999999999999999", "@NUMS", "@NUMS" }, E2, "bootstrap", "--bootstrap" },
	{ { "compare", "--seed=x", "@NUMS", "@NUMS" }, E2, "seed", "--seed" },
	{ { "compare", "--format", "xml", "@NUMS", "@NUMS" }, E2, "format", "--format" },
	{ { "compare", "--metric", "no-such-metric*", "@NUMS", "@NUMS" }, E2, NULL, "--metric" },
	/* decode */
	{ { "decode" }, E2, NULL, NULL },
	{ { "decode", "@NOFILE" }, E2, "@NOFILE", NULL },
	{ { "decode", "-" }, E2, NULL, NULL },
	{ { "decode", "/dev/zero" }, E2, "/dev/zero", NULL },
	{ { "decode", "@DIR" }, E2, NULL, NULL },
	{ { "decode", "@EMPTY" }, E2, "@EMPTY", NULL },
	{ { "decode", "@TEXT" }, E2, NULL, NULL },
	{ { "decode", "--format", "zz", "@IMAGE" }, E2, "format", "--format" },
	{ { "decode", "--cpuid", "@NOFILE", "@IMAGE" }, E2, "@NOFILE", "--cpuid" },
	{ { "decode", "--cpuid", "@BADDUMP", "@IMAGE" }, E2, "@BADDUMP", "--cpuid" },
	{ { "decode", "--rfbm", "nosuch", "@IMAGE" }, E2, "rfbm", "--rfbm" },
	{ { "decode", "--to", "sideways", "-o", "@OUT", "@IMAGE" }, E2, "to", "--to" },
	{ { "decode", "--to", "standard", "@IMAGE" }, E2, NULL, "--to" },
	{ { "decode", "-o", "@OUT", "@IMAGE" }, E2, NULL, NULL },
	{ { "decode", "--to", "standard", "-o", "@OUT", "@EMPTY" }, E2, NULL, "--to" },
	{ { "decode", "--to", "standard", "-o", "@OUT", "@TEXT" }, E2, NULL, "--to" },
	{ { "decode", "--to", "standard", "-o", "@DIR", "@IMAGE" }, E12, NULL, "--to" },
};

/* Names of the commands this build has, from `fpulab --help`, will-it-scale's too. */
static struct fplrun_cmds cmds;

static void read_commands(void)
{
	assert_int_equal(fplrun_commands(&cmds, true), 0);
	assert_int_equal(cmds.code, 0);
	assert_true(cmds.n > 0);
}

static char helps[64][4096];

/* The command's --help text, or "" when the command is not in this build. */
static const char *help_of(const char *cmd)
{
	for (size_t i = 0; i < cmds.n; i++) {
		const char *argv[] = { cmd_fpl_bin(), cmd, "--help", NULL };
		struct cmd_out o;

		if (strcmp(cmds.name[i], cmd))
			continue;
		if (!helps[i][0]) {
			assert_int_equal(cmd_run(argv, 30, &o), 0);
			snprintf(helps[i], sizeof(helps[i]), "%s", o.out);
			cmd_out_free(&o);
		}
		return helps[i];
	}
	return "";
}

/* Run one command line in a fresh fixture directory and check the rules. */
static void check_row(const struct row *r, bool *ran)
{
	struct fixtures fx;
	const char *argv[16] = { cmd_fpl_bin() };
	char line[512] = "fpulab", says[256] = "";
	struct cmd_out o;
	size_t n = 1;
	int code;

	*ran = false;
	if (!fplrun_has_command(&cmds, r->args[0]) ||
	    (r->needs && !strstr(help_of(r->args[0]), r->needs)))
		return;
	if (r->gnuplot && !cmd_have_gnuplot()) {
		print_message("  %s %s: no gnuplot here (optional): its input is not reached\n",
			      r->args[0], r->args[1]);
		return;
	}
	*ran = true;
	fx_create(&fx);
	for (size_t i = 0; r->args[i]; i++) {
		argv[n++] = fx_subst(&fx, r->args[i]);
		snprintf(line + strlen(line), sizeof(line) - strlen(line), " %s", r->args[i]);
	}
	argv[n] = NULL;
	if (r->says)
		snprintf(says, sizeof(says), "%s", fx_subst(&fx, r->says));
	assert_int_equal(cmd_run(argv, 60, &o), 0);
	code = cmd_code(&o);
	if (o.timed_out || WIFSIGNALED(o.status))
		bad("%s: %s (signal %d)\n%s", line, o.timed_out ? "timed out" : "killed",
		    WIFSIGNALED(o.status) ? WTERMSIG(o.status) : 0, o.err);
	else if (code != r->code && !(r->alt && code == r->alt))
		bad("%s: exit %d, expected %d\n  stdout: %.300s\n  stderr: %.500s", line, code,
		    r->code, o.out, o.err);
	else if (!strstr(o.err, "fpulab"))
		bad("%s: exit %d without a message of fpulab's on stderr: '%.300s'", line, code,
		    o.err);
	else if (says[0] && !strcasestr(o.err, says))
		bad("%s: the message does not name '%s': %.300s", line, says, o.err);
	if (!fx_untouched(&fx, line, bad))
		print_message("  (fixtures of the failing line kept in %s)\n", fx.dir);
	else
		fx_destroy(&fx);
	cmd_out_free(&o);
}

static void test_table(void **state)
{
	failures = 0;
	size_t ran = 0, skipped = 0;
	char missing[256] = "";

	read_commands();
	for (size_t i = 0; i < FPL_ARRAY_SIZE(rows); i++) {
		bool did;

		check_row(&rows[i], &did);
		if (did) {
			ran++;
		} else {
			skipped++;
			if (!strstr(missing, rows[i].args[0]))
				snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing),
					 " %s", rows[i].args[0]);
		}
	}
	print_message("  %zu bad command lines checked, %zu skipped (command, option or gnuplot "
		      "not here:%s)\n", ran, skipped, missing);
	assert_true(ran > 0);
	assert_int_equal(failures, 0);
}

/* Every command, whatever it is: an unknown option is a usage error naming it. */
static void test_unknown_option_everywhere(void **state)
{
	failures = 0;
	read_commands();
	for (size_t i = 0; i < cmds.n; i++) {
		struct row r = { { cmds.name[i], "--no-such-option-zz" }, E2, "no-such-option-zz",
				 NULL };
		bool did;

		check_row(&r, &did);
	}
	/* and the dispatcher itself */
	{
		const char *none[] = { cmd_fpl_bin(), NULL };
		const char *unknown[] = { cmd_fpl_bin(), "no-such-command", NULL, NULL };
		struct cmd_out o;

		assert_int_equal(cmd_run(none, 30, &o), 0);
		if (cmd_code(&o) != 2 || !o.nerr)
			bad("fpulab without a command: exit %d, expected 2 and the usage", cmd_code(&o));
		cmd_out_free(&o);
		assert_int_equal(cmd_run(unknown, 30, &o), 0);
		if (cmd_code(&o) != 2 || !strstr(o.err, "no-such-command"))
			bad("fpulab no-such-command: exit %d: %s", cmd_code(&o), o.err);
		cmd_out_free(&o);
		unknown[2] = unknown[1];
		unknown[1] = "help";
		assert_int_equal(cmd_run(unknown, 30, &o), 0);
		if (cmd_code(&o) != 2 || !strstr(o.err, "no-such-command") || o.nout)
			bad("fpulab help no-such-command: exit %d: %s", cmd_code(&o), o.err);
		cmd_out_free(&o);
	}
	print_message("  %zu commands checked\n", cmds.n);
	assert_int_equal(failures, 0);
}

/*
 * Benchmark commands (their --help lists "Common options"): each of their
 * own options given a bad value, and the common flags with bad values.
 */
static void bench_rows(const char *cmd, const char *help, size_t *count)
{
	static const char *const common[][2] = {
		{ "--budget", "0" }, { "--budget", "-1" }, { "--budget", "1e9" },
		{ "--budget", "x" }, { "--budget", "nan" }, { "--budget", "inf" },
		{ "--cpu", "-1" }, { "--cpu", "999999" }, { "--cpu", "1x" },
		{ "--cpu", "zero" }, { "--format", "xml" },
	};
	char *copy = strdup(help), *save = NULL;
	bool own = false;

	for (size_t i = 0; i < FPL_ARRAY_SIZE(common); i++) {
		struct row r = { { cmd, "--quick", "-q", common[i][0], common[i][1], "-o", "@OUT" },
				 E2, common[i][0] + 2, NULL };
		bool did;

		check_row(&r, &did);
		(*count)++;
	}
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char name[64], kind[16] = "";
		char opt[80], bad[3][80];
		size_t nbad = 0;
		double lo, hi;
		const char *br;

		if (!strncmp(l, "Options:", 8))
			own = true;
		if (!strncmp(l, "Common options:", 15))
			break;
		if (!own || sscanf(l, "  --%63s %15s", name, kind) < 1 || l[2] != '-')
			continue;
		snprintf(opt, sizeof(opt), "--%s", name);
		if (!strcmp(kind, "N") || !strcmp(kind, "X")) {
			snprintf(bad[nbad++], sizeof(bad[0]), "not-a-number");
			br = strstr(l, " [");
			if (br && sscanf(br, " [%lg..%lg]", &lo, &hi) == 2) {
				snprintf(bad[nbad++], sizeof(bad[0]), "%.17g", hi * 2 + 1);
				if (lo > 0 || lo < 0)
					snprintf(bad[nbad++], sizeof(bad[0]), "%.17g",
						 lo < 0 ? lo * 2 - 1 : lo / 2 - 1);
			}
		} else if (!strcmp(kind, "TEXT") && strchr(l, '|')) {
			snprintf(bad[nbad++], sizeof(bad[0]), "not-a-choice");
		} else if (strcmp(kind, "TEXT")) {
			/* a flag given a value */
			snprintf(opt, sizeof(opt), "--%s=zz", name);
		}
		for (size_t k = 0; k < (nbad ? nbad : 1); k++) {
			char arg[400];
			struct row r = { { cmd, "--quick", "-q", arg, "-o", "@OUT" }, E2, name,
					 NULL };
			bool did;

			if (nbad)
				snprintf(arg, sizeof(arg), "%s=%s", opt, bad[k]);
			else if (strchr(opt, '='))
				snprintf(arg, sizeof(arg), "%s", opt);
			else
				continue;	/* free text: nothing is bad */
			check_row(&r, &did);
			(*count)++;
		}
	}
	free(copy);
}

static void test_benchmark_options(void **state)
{
	size_t count = 0, nbench = 0;

	failures = 0;

	read_commands();
	for (size_t i = 0; i < cmds.n; i++) {
		const char *argv[] = { cmd_fpl_bin(), cmds.name[i], "--help", NULL };
		struct cmd_out o;

		assert_int_equal(cmd_run(argv, 30, &o), 0);
		if (cmd_code(&o) == 0 && strstr(o.out, "Common options:") &&
		    strcmp(cmds.name[i], "run")) {
			bench_rows(cmds.name[i], o.out, &count);
			nbench++;
		}
		cmd_out_free(&o);
	}
	print_message("  %zu bad option values over %zu benchmark commands\n", count, nbench);
	if (!nbench)
		skip();
	assert_int_equal(failures, 0);
}

/*
 * -o onto what is not a plain file: a symbolic link stays a link (its target
 * gets the output) and a FIFO stays a FIFO (a reader gets the output). A
 * rename over them would replace them: as root, -o /dev/stdout would replace
 * the system's /dev/stdout.
 */
static void test_output_targets(void **state)
{
	char dir[] = "/tmp/fpl-out-XXXXXX", link[64], target[64], fifo[64];
	const char *dump[] = { cmd_fpl_bin(), "info", "--dump-cpuid", "-o", link, NULL };
	const char *drain[] = { "cat", fifo, NULL };
	struct cmd_job reader;
	struct cmd_out o;
	struct stat st;

	read_commands();
	if (!strstr(help_of("info"), "--dump-cpuid"))
		skip();
	assert_non_null(mkdtemp(dir));
	snprintf(link, sizeof(link), "%s/link", dir);
	snprintf(target, sizeof(target), "%s/target", dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	assert_int_equal(symlink("target", link), 0);
	assert_int_equal(cmd_run(dump, 30, &o), 0);
	assert_int_equal(cmd_code(&o), 0);
	cmd_out_free(&o);
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(stat(target, &st), 0);
	assert_true(S_ISREG(st.st_mode) && st.st_size > 0);

	assert_int_equal(mkfifo(fifo, 0600), 0);
	/* drain the FIFO so the writer can finish */
	assert_int_equal(cmd_start(drain, &reader), 0);
	dump[4] = fifo;
	assert_int_equal(cmd_run(dump, 30, &o), 0);
	assert_int_equal(cmd_code(&o), 0);
	cmd_out_free(&o);
	cmd_finish(&reader, 30, NULL, NULL, &o);
	cmd_out_free(&o);
	assert_int_equal(lstat(fifo, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	unlink(link);
	unlink(target);
	unlink(fifo);
	rmdir(dir);
}

/* -o that names a directory: refused before anything is drawn or printed. */
static void test_out_is_directory(void **state)
{
	struct fixtures fx;
	char svg[600];
	const char *plot[] = { cmd_fpl_bin(), "plot", NULL, NULL, "-o", svg, NULL };
	const char *decode[] = { cmd_fpl_bin(), "decode", "--to", "standard", "-o", NULL, NULL,
				 NULL };
	struct cmd_out o;
	struct stat st;

	failures = 0;
	read_commands();
	fx_create(&fx);
	plot[2] = fx_subst(&fx, "@NUMS");
	plot[3] = fx_subst(&fx, "@NUMS");
	snprintf(svg, sizeof(svg), "%s", fx_subst(&fx, "@DIR/x.svg"));
	assert_int_equal(mkdir(svg, 0755), 0);
	assert_int_equal(cmd_run(plot, 60, &o), 0);
	if (cmd_code(&o) != 2 || !strstr(o.err, svg) || o.nout)
		bad("fpulab plot ... -o DIR/x.svg (a directory): exit %d, stdout %zu bytes: %s",
		    cmd_code(&o), o.nout, o.err);
	cmd_out_free(&o);
	assert_int_equal(stat(svg, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(rmdir(svg), 0);
	if (strstr(help_of("decode"), "--to")) {
		decode[5] = fx_subst(&fx, "@DIR");
		decode[6] = fx_subst(&fx, "@IMAGE");
		assert_int_equal(cmd_run(decode, 60, &o), 0);
		if (cmd_code(&o) != 2 || !strstr(o.err, decode[5]) || o.nout)
			bad("fpulab decode --to standard -o DIR IMAGE: exit %d, stdout %zu bytes: %s",
			    cmd_code(&o), o.nout, o.err);
		cmd_out_free(&o);
	}
	assert_true(fx_untouched(&fx, "-o DIR", bad));
	fx_destroy(&fx);
	assert_int_equal(failures, 0);
}

/* Raw input bytes in messages are escaped: a terminal escape sequence is not sent as is. */
static void test_messages_escape_input(void **state)
{
	char *dir = tmpdir(), *out = NULL;
	int rc;

	write_text(dir, "esc.txt", "1\n2\n3\n\033]0;pwned\007\n");
	write_text(dir, "esc.cpuid", "# fpulab cpuid dump 1\ncpuid \033[31mRED\n");
	rc = sh(&out, "cd %s && %s compare esc.txt esc.txt 2>&1", dir, cmd_fpl_bin());
	assert_int_equal(rc, 2);
	/* the line is quoted, each raw byte written as its escape */
	assert_non_null(strstr(out, "esc.txt:4: "));
	assert_non_null(strstr(out, "'\\x1b]0;pwned\\x07'"));
	assert_null(strchr(out, '\033'));
	assert_null(strchr(out, '\007'));
	free(out);
	rc = sh(&out, "cd %s && %s info --cpuid esc.cpuid 2>&1", dir, cmd_fpl_bin());
	assert_int_equal(rc, 2);
	assert_non_null(strstr(out, "esc.cpuid:2: "));
	assert_non_null(strstr(out, "'cpuid \\x1b[31mRED'"));
	assert_null(strchr(out, '\033'));
	free(out);
	tmpdir_done(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_unknown_option_everywhere),
		cmocka_unit_test(test_benchmark_options),
		cmocka_unit_test(test_output_targets),
		cmocka_unit_test(test_out_is_directory),
		cmocka_unit_test(test_messages_escape_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
