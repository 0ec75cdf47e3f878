// SPDX-License-Identifier: GPL-3.0-or-later
/* What LKP does with fpulab's stats (index-perf directions, skips, install lists, split-job), against lkp-tests where FPL_LKP_SRC names one. */
#include "lkptest.h"

#define CHECK "ruby tests/lkp_check.rb "
#define INDEX "contrib/lkp/index-perf-fpulab.yaml"
#define DOCS "docs/lkp.md"
#define AMX_JOB "fpulab-ctxsw-ab-amx-ctxsw-10-1-init_amx.yaml"

/* At least this share of the suite's stats must tell LKP which way is better. */
#define MIN_DIRECTED 0.90

/* The lines of text that start with prefix, with it and the rest of the line; NULL-free, malloc'd.
 */
static char *lines_starting(const char *text, const char *indent, const char *prefix)
{
	char *got = calloc(1, strlen(text) + 1), *g = got;
	size_t ni = strlen(indent);

	assert_non_null(got);
	for (const char *l = text; *l;) {
		const char *e = strchr(l, '\n');
		size_t n = e ? (size_t)(e - l) : strlen(l);

		if (n > ni && !strncmp(l, indent, ni) && !strncmp(l + ni, prefix, strlen(prefix))) {
			memcpy(g, l + ni, n - ni);
			g += n - ni;
			*g++ = '\n';
		}
		l += n + !!e;
	}
	return got;
}

/* The directions (-1, 1 or none) of names through the helper's mode (directions INDEX, or
 * lkp-directions). */
static char *directions(const char *env, const char *mode, const char *names)
{
	char path[32], *out;

	temp_text(path, names);
	assert_int_equal(shf(&out, "%s " CHECK "%s < %s", env, mode, path), 0);
	unlink(path);
	return out;
}

/* The direction the helper's output gives name: "-1", "1" or "none". */
static const char *direction_of(const char *out, const char *name)
{
	static const char *const dirs[] = {"-1", "1", "none"};
	char *hay, needle[1024];
	const char *dir = NULL;

	assert_true(asprintf(&hay, "\n%s", out) > 0);
	for (size_t i = 0; i < 3 && !dir; i++) {
		snprintf(needle, sizeof(needle), "\n%s %s\n", dirs[i], name);
		if (strstr(hay, needle))
			dir = dirs[i];
	}
	free(hay);
	if (!dir)
		fail_msg("no direction for %s", name);
	return dir;
}

/* Share of the names in out (helper's output) with a direction. */
static double directed_share(const char *out, int *n)
{
	*n = lines_with(out, " fpulab.");
	assert_true(*n > 0);
	return 1.0 - (double)lines_with(out, "none fpulab.") / *n;
}

/* The docs give the lines add-to-lkp-tests puts into etc/index-perf-all.yaml, no others. */
static void docs_give_the_shipped_index_lines(void **state)
{
	char *docs = slurp_path(DOCS), *in_docs = lines_starting(docs, "    ", "fpulab\\."),
	     *shipped;

	/* the file: comments, then the lines */
	assert_int_equal(sh("grep -v '^#' " INDEX, &shipped), 0);
	assert_int_equal(lines_with(shipped, "fpulab\\."), 3);
	assert_string_equal(in_docs, shipped);
	free(docs);
	free(in_docs);
	free(shipped);
}

/* The names of a golden list as LKP stores them: fpulab. before each. */
static char *lkp_names(const char *keys_file)
{
	char *out;

	assert_int_equal(shf(&out, "sed 's/^/fpulab./' '%s'", keys_file), 0);
	return out;
}

/*
 * The index lines applied as lib/stats.rb applies them (/^LINE$/, the first
 * that matches) give at least 90% of the suite's stats a direction, and the
 * right one: times -1, rates +1; meta.yaml's results (the headline xsave
 * cycles first among them) all, but the kernel's counts, which like the
 * skips and section's speedup have none by design.
 */
static void index_lines_direct_the_suite(void **state)
{
	char *names = lkp_names(DATA "suite.keys"), *out, *meta, *results;
	double share;
	int n;

	if (!have_ruby())
		skip();
	out = directions("", "directions " INDEX, names);
	share = directed_share(out, &n);
	print_message("  suite fixture: %.1f%% of %d stats with a direction\n", 100 * share, n);
	assert_true(share >= MIN_DIRECTED);
	assert_string_equal(direction_of(out, "fpulab.xsave.cycles.insn=fxsave.mask=0x3."
					      "method=latency.state=init"),
			    "-1");
	assert_string_equal(direction_of(out, "fpulab.xor.speed_MBps.arity=2.isa=AVX-512F."
					      "mode=sweep.size=65536.template=avx512"),
			    "1");
	assert_string_equal(direction_of(out, "fpulab.xor.bytes_per_cycle.arity=2.isa=AVX-512F."
					      "mode=sweep.size=65536.template=avx512"),
			    "1");
	assert_int_equal(lines_with(out, "none fpulab.section.speedup_pct."),
			 lines_with(out, " fpulab.section.speedup_pct."));
	free(names);
	free(out);
	meta = slurp_path(PROG "meta.yaml");
	results = lines_starting(meta, "  ", "fpulab.");
	for (char *c = results; (c = strstr(c, ":\n"));)
		memmove(c, c + 1, strlen(c)); /* the names without their ':' */
	out = directions("", "directions " INDEX, results);
	assert_int_equal(lines_with(out, "none "), lines_with(out, ".kernel_"));
	assert_string_equal(direction_of(out, "fpulab.xsave.cycles.insn=xsavec.mask=0xe7."
					      "method=throughput.state=live"),
			    "-1");
	free(out);
	free(meta);
	free(results);
}

/* A/B rates (_per_s_a), repro's values, the kernel's counts and the skips. */
static void index_lines_direct_each_kind(void **state)
{
	char *names, *out, *skipped;
	int code;

	if (!have_ruby())
		skip();
	names = lkp_names(DATA "ctxsw-ab-ktrace.keys");
	out = directions("", "directions " INDEX, names);
	assert_string_equal(
	    direction_of(out, "fpulab.ctxsw.round_trips_per_s_a.mode=processes."
			      "placement=same.refresh=write.state_a=init.state_b=avx512"),
	    "1");
	assert_string_equal(
	    direction_of(out, "fpulab.ctxsw.difference_ns.mode=processes."
			      "placement=same.refresh=write.state_a=init.state_b=avx512"),
	    "-1");
	assert_int_equal(lines_with(out, "none "), 3);
	assert_int_equal(lines_with(out, "none fpulab.ctxsw.kernel_"), 3);
	free(names);
	free(out);
	names = lkp_names(DATA "rfbm.keys");
	out = directions("", "directions " INDEX, names);
	assert_int_equal(lines_with(out, "1 fpulab.repro.value_per_sec."), 3);
	assert_int_equal(lines_with(out, "-1 fpulab.repro.value_cycles."), 4);
	free(names);
	free(out);
	/* a skip has none, even where its reason ends as a time would */
	skipped = parse_file(DATA "ctxsw-amx-skipped.json", &code);
	assert_int_equal(code, 0);
	assert_non_null(strstr(skipped, ".skip: 1"));
	assert_true(asprintf(&names,
			     "fpulab.%.*s\nfpulab.xsave.too_few_cycles.skip\n"
			     "xfpulab.xsave.cycles.insn=xsavec\nfpulab.xsave.cycles.insn=xsavec\n",
			     (int)strcspn(skipped, ":"), skipped) > 0);
	out = directions("", "directions " INDEX, names);
	assert_int_equal(lines_with(out, "none "), 3);
	assert_string_equal(direction_of(out, "fpulab.xsave.cycles.insn=xsavec"), "-1");
	free(skipped);
	free(names);
	free(out);
}

/*
 * A scratch lkp-tests for one test: the checkout src as a tree of links in
 * dir (the lists that add-to-lkp-tests changes become files of their own),
 * fpulab added, and hosts/fpulab-test as `lkp install` writes it (split-job
 * refuses a box without one). Returns the tree's path (in dir).
 */
static const char *scratch_lkp(const char *src, char *dir, char *tree, size_t len)
{
	char *out;

	strcpy(dir, "/tmp/fpl-lkp-tree-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(tree, len, "%s/lkp", dir);
	assert_int_equal(shf(&out,
			     "cp -as '%s' '%s' && contrib/lkp/add-to-lkp-tests '%s' && "
			     "rm -f '%s/hosts/fpulab-test' && printf 'nr_cpu: 2\\nmemory: 4G\\n"
			     "hdd_partitions:\\nssd_partitions:\\nlocal_run: 1\\n' "
			     ">'%s/hosts/fpulab-test'",
			     src, tree, tree, tree, tree),
			 0);
	free(out);
	return tree;
}

/* bin/run-stats fpulab on raw (the log run kept) in a result root under dir; its stats file's path
 * in stats. */
static void run_stats(const char *tree, const char *dir, const char *raw, char *stats, size_t len)
{
	char *out;

	assert_int_equal(
	    shf(&out, "rm -rf %s/rr && mkdir %s/rr && echo 'category: benchmark' >%s/rr/job.yaml",
		dir, dir, dir),
	    0);
	free(out);
	snprintf(stats, len, "%s/rr/fpulab", dir);
	{
		FILE *f = fopen(stats, "w");

		assert_non_null(f);
		fputs(raw, f);
		assert_int_equal(fclose(f), 0);
	}
	assert_int_equal(shf(&out,
			     "env -i PATH=\"$PATH\" LKP_SRC='%s' RESULT_ROOT='%s/rr' "
			     "'%s/bin/run-stats' fpulab",
			     tree, dir, tree),
			 0);
	free(out);
	snprintf(stats, len, "%s/rr/fpulab.json", dir);
	if (access(stats, R_OK))
		snprintf(stats, len, "%s/rr/fpulab.json.gz", dir);
}

/* Whether run-stats marked the result root in dir incomplete. */
static bool incomplete(const char *dir)
{
	char path[PATH_MAX], *s;
	bool yes;

	snprintf(path, sizeof(path), "%s/rr/last_state", dir);
	s = cmd_slurp(path, NULL);
	yes = s && strstr(s, "is_incomplete_run: 1");
	free(s);
	return yes;
}

/* The raw log run keeps for a document: the command line, then parse --reduce of it. */
static char *raw_log(const char *doc)
{
	char *reduced, *raw;
	int code;

	reduced = parse_file_args(doc, "--reduce", &code);
	assert_int_equal(code, 0);
	assert_true(asprintf(&raw,
			     "2026-12-01 20:00:00 /lkp/benchmarks/fpulab/bin/fpulab run "
			     "--json -q\n%s",
			     reduced) > 0);
	free(reduced);
	return raw;
}

/*
 * A skipped run through LKP's own bin/run-stats and sbin/dump-stat: its
 * .skip stat is kept, LKP's etc/test-result-definition.yml reads it as a
 * skip, and the run is not marked incomplete. Without it (no stat at all,
 * what a skipped run gave before) run-stats does mark it.
 */
static void lkp_skipped_run_is_complete(void **state)
{
	char src[PATH_MAX], dir[32], tree[64], stats[PATH_MAX], *raw, *out;

	if (!lkp_src_real(src, sizeof(src)) || !have_ruby())
		skip();
	scratch_lkp(src, dir, tree, sizeof(tree));
	raw = raw_log(DATA "ctxsw-amx-skipped.json");
	run_stats(tree, dir, raw, stats, sizeof(stats));
	assert_false(incomplete(dir));
	assert_int_equal(shf(&out, CHECK "stats '%s'", stats), 0);
	assert_string_equal(out, "fpulab.ctxsw.state_amx_mask_0x60000_has_components_this_task_"
				 "cannot_make.skip\n");
	free(out);
	/* LKP reads a skip as one; a figure is no test result */
	assert_int_equal(
	    shf(&out,
		"printf 'fpulab.ctxsw.state_amx_mask.skip\\nfpulab.xsave.cycles.state=init\\n' "
		"| LKP_SRC='%s' " CHECK "result-type",
		tree),
	    0);
	assert_string_equal(
	    out, "skip fpulab.ctxsw.state_amx_mask.skip\nnone fpulab.xsave.cycles.state=init\n");
	free(out);
	/* the control: the command line alone, no document */
	*strchr(raw, '\n') = 0;
	run_stats(tree, dir, raw, stats, sizeof(stats));
	assert_true(incomplete(dir));
	free(raw);
	assert_int_equal(cmd_rm_rf(dir), 0);
}

/*
 * The suite's stats through run-stats into dump-stat's file (fpulab.json.gz:
 * more than 1000 stats) and LKP's own kpi_stat_direction with the lines
 * add-to-lkp-tests put into etc/index-perf-all.yaml: at least 90% directed.
 */
static void lkp_suite_stats_get_directions(void **state)
{
	char src[PATH_MAX], dir[32], tree[64], stats[PATH_MAX], env[128], *raw, *names, *out;
	double share;
	int n;

	if (!lkp_src_real(src, sizeof(src)) || !have_ruby())
		skip();
	scratch_lkp(src, dir, tree, sizeof(tree));
	raw = raw_log(DATA "suite.json.gz");
	run_stats(tree, dir, raw, stats, sizeof(stats));
	assert_false(incomplete(dir));
	assert_non_null(strstr(stats, "/fpulab.json.gz"));
	assert_int_equal(shf(&names, CHECK "stats '%s'", stats), 0);
	assert_true(lines_with(names, "fpulab.") > 1000);
	snprintf(env, sizeof(env), "LKP_SRC='%s'", tree);
	out = directions(env, "lkp-directions", names);
	share = directed_share(out, &n);
	print_message("  suite fixture through LKP: %.1f%% of %d stats with a direction\n",
		      100 * share, n);
	assert_true(share >= MIN_DIRECTED);
	assert_string_equal(direction_of(out, "fpulab.xsave.cycles.insn=fxsave.mask=0x3."
					      "method=latency.state=init"),
			    "-1");
	free(raw);
	free(names);
	free(out);
	assert_int_equal(cmd_rm_rf(dir), 0);
}

/*
 * What lkp install and split-job see: fpulab:: where lkp-exec/install
 * looks (grep -w "^fpulab:" distro/adaptation-pkg/DISTRO), the names
 * split-job gives the four jobs as docs/lkp.md says them, and the AMX
 * job's filter as `lkp run` runs it (Job2sh#expand_params): kept exactly
 * where /proc/cpuinfo has amx_tile; a flag every x86 has kept, none dropped.
 */
static void lkp_install_and_split_job(void **state)
{
	char src[PATH_MAX], dir[32], tree[64], *docs, *names, *out, *want;
	int amx;

	if (!lkp_src_real(src, sizeof(src)) || !have_ruby())
		skip();
	/* what the AMX job's filter reads on a local installation */
	amx = !sh("grep -qw amx_tile /proc/cpuinfo", &out);
	free(out);
	scratch_lkp(src, dir, tree, sizeof(tree));
	assert_int_equal(
	    shf(&out,
		"cd '%s' && grep -w '^fpulab:' distro/adaptation-pkg/debian "
		"distro/adaptation-pkg/ubuntu && grep -qx fpulab etc/linux-perf-test-cases",
		tree),
	    0);
	free(out);
	assert_int_equal(
	    shf(&out,
		"cd %s && mkdir jobs && env -i PATH=\"$PATH\" LKP_SRC='%s' "
		"'%s/sbin/split-job' -t fpulab-test -o jobs '%s'/programs/fpulab/jobs/*.yaml "
		">/dev/null 2>&1 && LC_ALL=C ls jobs",
		dir, tree, tree, tree),
	    0);
	docs = slurp_path(DOCS);
	names = lines_starting(docs, "    # => ./", "fpulab-");
	assert_int_equal(lines_with(names, ".yaml"), 4);
	assert_string_equal(out, names);
	free(out);
	assert_int_equal(
	    shf(&out,
		"cd %s/jobs && for f in fpu no_such_flag; do sed \"s/^need_cpu_flags: "
		"amx_tile/need_cpu_flags: $f/\" " AMX_JOB " >$f.yaml; done && cd - >/dev/null && "
		"LKP_SRC='%s' " CHECK "expand %s/jobs/fpu.yaml %s/jobs/no_such_flag.yaml "
		"%s/jobs/" AMX_JOB " 2>/dev/null",
		dir, tree, dir, dir, dir),
	    0);
	assert_true(asprintf(&want,
			     "kept %s/jobs/fpu.yaml\ndropped %s/jobs/no_such_flag.yaml\n"
			     "%s %s/jobs/" AMX_JOB "\n",
			     dir, dir, amx ? "kept" : "dropped", dir) > 0);
	assert_string_equal(out, want);
	free(want);
	free(out);
	free(docs);
	free(names);
	assert_int_equal(cmd_rm_rf(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(docs_give_the_shipped_index_lines),
	    cmocka_unit_test(index_lines_direct_the_suite),
	    cmocka_unit_test(index_lines_direct_each_kind),
	    cmocka_unit_test(lkp_skipped_run_is_complete),
	    cmocka_unit_test(lkp_suite_stats_get_directions),
	    cmocka_unit_test(lkp_install_and_split_job),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
