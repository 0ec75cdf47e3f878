// SPDX-License-Identifier: GPL-3.0-or-later
/* SIGINT at random moments to every command that writes a file: afterwards no file or a whole one. */
#include <dirent.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>
#include <jansson.h>

#include "fpulab/base.h"
#include "runcmd.h"
#include "fixtures.h"

/*
 * What the written file must be. SAME: byte for byte what an uninterrupted
 * run wrote (a converted image). LINES: as many lines as that, the same
 * first and last (a CPUID dump: the APIC ID in leaf 1 EBX changes from run
 * to run on this VM, even pinned; a dump cut at a line boundary still loads,
 * so loading proves nothing). RESULTS: a whole fpulab/2 document
 * (measurements differ from run to run; a cut document does not parse).
 */
enum kind { SAME, LINES, RESULTS };

struct target {
	const char *args[14];
	enum kind kind;
	const char *needs;	/* the command's --help must mention it */
	unsigned tries;
	const char *out;	/* the file written, in the fixture directory; NULL: out.json (@OUT) */
};

static const struct target fixed_targets[] = {
	{ { "info", "--dump-cpuid", "-o", "@OUT" }, LINES, "--dump-cpuid", 24, NULL },
	{ { "decode", "--to", "standard", "-o", "@OUT", "@IMAGE" }, SAME, "--to", 24, NULL },
	{ { "decode", "--to", "compacted", "-o", "@OUT", "@IMAGE" }, SAME, "--to", 12, NULL },
	{ { "run", "--quick", "-q", "--budget", "0.05", "-o", "@OUT" }, RESULTS, "-o FILE", 4, NULL },
	{ { "run", "--quick", "-q", "--budget", "0.05", "--runs", "2", "-o", "@OUT" }, RESULTS,
	  "--runs N", 4, NULL },
	{ { "plot", "@NUMS", "@NUMS", "-o", "@DIR/../plot.svg" }, SAME, "--output", 12, "plot.svg" },
};

static size_t count_lines(const char *s, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += s[i] == '\n';
	return k;
}

/* Same line count, same first line, same last leaf, ends with a newline. */
static bool same_lines(const char *a, size_t na, const char *b, size_t nb)
{
	const char *ea, *eb, *la, *lb;

	if (!na || !nb || a[na - 1] != '\n' || count_lines(a, na) != count_lines(b, nb))
		return false;
	ea = strchr(a, '\n');
	eb = strchr(b, '\n');
	if (ea - a != eb - b || memcmp(a, b, ea - a))
		return false;
	for (la = a + na - 1; la > a && la[-1] != '\n'; la--)
		;
	for (lb = b + nb - 1; lb > b && lb[-1] != '\n'; lb--)
		;
	/* the leaf and subleaf ("cpuid 0x80000021 0x00"): values may change between runs */
	return a + na - la >= 22 && b + nb - lb >= 22 && !memcmp(la, lb, 22);
}

static bool whole_results(const char *path, char *why, size_t n)
{
	json_error_t e;
	json_t *doc = json_load_file(path, 0, &e);
	bool ok;

	if (!doc) {
		snprintf(why, n, "does not parse: %s at line %d", e.text, e.line);
		return false;
	}
	ok = json_is_string(json_object_get(doc, "schema")) &&
	     !strncmp(json_string_value(json_object_get(doc, "schema")), "fpulab/", 7) &&
	     json_is_array(json_object_get(doc, "runs"));
	if (!ok)
		snprintf(why, n, "parses, but is not an fpulab results document");
	json_decref(doc);
	return ok;
}

/* Substitute fixtures into a command line. */
static size_t build_argv(struct fixtures *fx, const struct target *t, const char **argv,
			 char *line, size_t n)
{
	size_t k = 1;

	argv[0] = cmd_fpl_bin();
	snprintf(line, n, "fpulab");
	for (size_t i = 0; t->args[i]; i++) {
		argv[k++] = fx_subst(fx, t->args[i]);
		snprintf(line + strlen(line), n - strlen(line), " %s", t->args[i]);
	}
	argv[k] = NULL;
	return k;
}

static bool have_option(const char *cmd, const char *needs)
{
	const char *argv[] = { cmd_fpl_bin(), cmd, "--help", NULL };
	struct cmd_out o;
	bool have;

	assert_int_equal(cmd_run(argv, 30, &o), 0);
	have = cmd_code(&o) == 0 && strstr(o.out, needs);
	cmd_out_free(&o);
	return have;
}

/* Anything in the directory that is neither a fixture nor the output is litter. */
static void check_litter(const struct fixtures *fx, const char *out, const char *line,
			 double at)
{
	struct dirent *d;
	DIR *dir = opendir(fx->dir);

	assert_non_null(dir);
	while ((d = readdir(dir))) {
		bool known = d->d_name[0] == '.' || !strcmp(d->d_name, "subdir");

		for (size_t i = 0; i < FX_N && !known; i++)
			known = !strcmp(d->d_name, fx_table[i].file);
		if (!known && out && !strcmp(d->d_name, out))
			known = true;
		/* the partial result of a run that found a file there (kept) */
		if (!known && !strcmp(d->d_name, "out.json.interrupted"))
			known = true;
		if (!known)
			bad("%s, SIGINT at %.4f s: left %s behind", line, at, d->d_name);
	}
	closedir(dir);
}

/*
 * One run of t with SIGINT at seconds after its start (existed: over an
 * existing file):
 * no file, the old one untouched, or a whole new one like ref; nothing left.
 */
static void interrupted_run(const struct target *t, bool existed, double at, const char *ref,
			    size_t ref_len, unsigned *runs)
{
	const char *argv[20];
	char line[512], out_path[600], why[200];
	struct fixtures fx;
	struct cmd_out o;
	size_t got_len;
	char *got;
	const void *sentinel;
	size_t sentinel_len;

	fx_create(&fx);
	build_argv(&fx, t, argv, line, sizeof(line));
	fx_path(&fx, t->out ? t->out : "out.json", out_path, sizeof(out_path));
	fx_content(&fx_table[0], &sentinel, &sentinel_len);
	if (!existed) {
		unlink(out_path);
	} else if (t->out) {
		FILE *f = fopen(out_path, "wb");

		assert_non_null(f);
		assert_int_equal(fwrite(sentinel, 1, sentinel_len, f), sentinel_len);
		fclose(f);
	}
	assert_int_equal(cmd_run_sig(argv, 120, SIGINT, at, &o), 0);
	(*runs)++;
	if (o.timed_out)
		bad("%s, SIGINT at %.4f s: still running after 120 s", line, at);
	else if (WIFSIGNALED(o.status) && WTERMSIG(o.status) != SIGINT)
		bad("%s, SIGINT at %.4f s: killed by signal %d\n%s", line, at,
		    WTERMSIG(o.status), o.err);
	else if (WIFEXITED(o.status) && cmd_code(&o) != 0 && cmd_code(&o) != 1 &&
		 cmd_code(&o) != 130)
		bad("%s, SIGINT at %.4f s: exit %d\n%s", line, at, cmd_code(&o), o.err);
	cmd_out_free(&o);

	got = cmd_slurp(out_path, &got_len);
	if (!got) {
		if (existed)
			bad("%s, SIGINT at %.4f s: removed the existing file", line, at);
	} else if (existed && got_len == sentinel_len && !memcmp(got, sentinel, got_len)) {
		/* untouched */
	} else if (t->kind == LINES && !same_lines(got, got_len, ref, ref_len)) {
		bad("%s, SIGINT at %.4f s: a partial file (%zu bytes, %zu lines; whole: %zu "
		    "bytes, %zu lines)", line, at, got_len, count_lines(got, got_len), ref_len,
		    count_lines(ref, ref_len));
	} else if (t->kind == SAME && (got_len != ref_len || memcmp(got, ref, got_len))) {
		bad("%s, SIGINT at %.4f s: a partial file (%zu of %zu bytes)", line, at,
		    got_len, ref_len);
	} else if (t->kind == RESULTS && !whole_results(out_path, why, sizeof(why))) {
		bad("%s, SIGINT at %.4f s: the file %s", line, at, why);
	}
	free(got);
	/* An interrupted run keeps the file it found and writes its own beside it. */
	fx_path(&fx, "out.json.interrupted", out_path, sizeof(out_path));
	if (!access(out_path, F_OK)) {
		if (t->kind != RESULTS || !existed)
			bad("%s, SIGINT at %.4f s: wrote %s, but no file was there", line, at,
			    out_path);
		else if (!whole_results(out_path, why, sizeof(why)))
			bad("%s, SIGINT at %.4f s: the partial file %s", line, at, why);
	}
	check_litter(&fx, t->out, line, at);
	fx_destroy(&fx);
}

static void check_target(const struct target *t, unsigned *runs)
{
	const char *argv[20];
	char line[512], out_path[600], why[200];
	struct fixtures fx;
	struct cmd_out o;
	char *ref = NULL;
	size_t ref_len = 0;
	double t0, dur;

	/* An uninterrupted run: how long it takes, and the reference output. */
	fx_create(&fx);
	build_argv(&fx, t, argv, line, sizeof(line));
	fx_path(&fx, t->out ? t->out : "out.json", out_path, sizeof(out_path));
	t0 = cmd_now();
	assert_int_equal(cmd_run(argv, 120, &o), 0);
	dur = cmd_now() - t0;
	if (cmd_code(&o) == 77) {
		print_message("  %s: not supported here (77), skipped\n", line);
		cmd_out_free(&o);
		fx_destroy(&fx);
		return;
	}
	if (cmd_code(&o) != 0) {
		bad("%s: exit %d without an interruption\n%s", line, cmd_code(&o), o.err);
		cmd_out_free(&o);
		return;
	}
	cmd_out_free(&o);
	ref = cmd_slurp(out_path, &ref_len);
	assert_non_null(ref);
	if (t->kind == RESULTS && !whole_results(out_path, why, sizeof(why)))
		bad("%s: uninterrupted output %s", line, why);
	fx_destroy(&fx);

	for (unsigned i = 0; i < t->tries; i++)
		/* Half the runs overwrite an existing file, half create one. */
		interrupted_run(t, i % 2 == 0, dur * 1.2 * (double)rand() / RAND_MAX, ref, ref_len,
				runs);
	print_message("  %-60s %2u interruptions in [0, %.3f s]\n", line, t->tries, dur * 1.2);
	free(ref);
}

static struct fplrun_cmds cmds;

static void test_sigint(void **state)
{
	unsigned runs = 0, covered = 0;
	const char *seed_env = getenv("FPL_TEST_SEED");
	unsigned seed = seed_env ? (unsigned)strtoul(seed_env, NULL, 0) : (unsigned)time(NULL);
	cpu_set_t one;

	/* CPUID differs per CPU (APIC IDs): keep every run on this one. */
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	sched_setaffinity(0, sizeof(one), &one);
	print_message("  seed %u (FPL_TEST_SEED repeats a run)\n", seed);
	srand(seed);
	failures = 0;
	assert_int_equal(fplrun_commands(&cmds, true), 0);
	for (size_t i = 0; i < FPL_ARRAY_SIZE(fixed_targets); i++) {
		const struct target *t = &fixed_targets[i];

		if (!fplrun_has_command(&cmds, t->args[0]) || !have_option(t->args[0], t->needs))
			continue;
		if (!strcmp(t->args[0], "plot") && !cmd_have_gnuplot()) {
			print_message("  no gnuplot here (optional): plot not interrupted\n");
			continue;
		}
		check_target(t, &runs);
		covered++;
	}
	/* Every benchmark command (its --help lists the common options), with a tiny budget. */
	for (size_t i = 0; i < cmds.n; i++) {
		struct target t = { { cmds.name[i], "--quick", "-q", "--budget", "0.02", "-o", "@OUT" },
				    RESULTS, "Common options:", 3, NULL };

		if (!strcmp(cmds.name[i], "run") || !have_option(cmds.name[i], t.needs))
			continue;
		/* xor sweeps up to 64 MiB whatever the budget: keep it to one size */
		if (!strcmp(cmds.name[i], "xor")) {
			t.args[7] = "--sizes";
			t.args[8] = "4k";
			t.args[9] = "--arities";
			t.args[10] = "2";
		}
		check_target(&t, &runs);
		covered++;
	}
	print_message("  %u command lines, %u interrupted runs\n", covered, runs);
	assert_int_equal(failures, 0);
	if (!covered)
		skip();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sigint),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
