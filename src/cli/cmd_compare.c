// SPDX-License-Identifier: GPL-3.0-or-later
/* fpulab compare: A/B/C comparison of runs with trimmed statistics and significance tests. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fpulab/compare.h"
#include "cli.h"

#define BOOT_DEFAULT 2000
/* Resamples: each costs a pass over the cases; beyond a million the interval no longer moves. */
#define BOOT_MAX 1000000

static int parse_real(const char *s, double lo, double hi, double *v)
{
	char *end;

	*v = strtod(s, &end);
	return end != s && !*end && *v >= lo && *v < hi ? 0 : -EINVAL;
}

static int parse_count(const char *s, unsigned long *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoul(s, &end, 10);
	return !*end && !errno ? 0 : -EINVAL;
}

/* "--bootstrap 500": take the count from the next word only when it is no file. */
static bool next_is_count(int argc, char **argv)
{
	unsigned long v;
	struct stat st;

	return optind < argc && !parse_count(argv[optind], &v) && stat(argv[optind], &st);
}

#define USAGE(...) fpl_cli_usage_error("compare", __VA_ARGS__)

static int parse_format(const char *s, enum fpl_cmp_format *fmt)
{
	if (!strcmp(s, "table"))
		*fmt = FPL_CMP_TABLE;
	else if (!strcmp(s, "json"))
		*fmt = FPL_CMP_JSON;
	else if (!strcmp(s, "csv"))
		*fmt = FPL_CMP_CSV;
	else
		return USAGE("--format is table, json or csv, not '%s'", s);
	return 0;
}

/* One option of parse_opts: 0, or the exit code of a usage error already reported. */
static int one_opt(int opt, int argc, char **argv, struct fpl_cmp_opts *o,
		   enum fpl_cmp_format *fmt)
{
	unsigned long n;

	switch (opt) {
	case 'm':
		o->metric = optarg;
		break;
	case 't':
		if (parse_real(optarg, 0, 50, &o->trim))
			return USAGE("--trim wants a percentage in [0, 50), not '%s'", optarg);
		break;
	case 'c':
		if (parse_real(optarg, 1e-9, 100, &o->confidence))
			return USAGE("--confidence wants a percentage in (0, 100), not '%s'",
				     optarg);
		break;
	case 'b':
		n = BOOT_DEFAULT;
		if (optarg ? parse_count(optarg, &n) :
		    next_is_count(argc, argv) && parse_count(argv[optind++], &n))
			return USAGE("--bootstrap wants a count");
		if (n < 100 || n > BOOT_MAX)
			return USAGE("--bootstrap wants %d to %d resamples", 100, BOOT_MAX);
		o->bootstrap = n;
		break;
	case 's':
		if (parse_count(optarg, &n))
			return USAGE("--seed wants a number, not '%s'", optarg);
		o->seed = n;
		break;
	case 'f':
		if (parse_format(optarg, fmt))
			return FPL_EXIT_USAGE;
		break;
	case 'k':
		*fmt = FPL_CMP_KERNEL;
		break;
	case 'M':
		*fmt = FPL_CMP_MINISTAT;
		break;
	case 'C':
		if (parse_count(optarg, &n) || n < 1 || n > 1000)
			return USAGE("-C wants a column number from 1, not '%s'", optarg);
		o->column = (unsigned)n;
		break;
	case 'v':
		o->verbose = true;
		break;
	case 'P':
		o->per_metric = true;
		break;
	case 'W':
		o->within_run = true;
		break;
	case 'A':
		o->paired = true;
		break;
	case 'V':
		if (!strchr(optarg, ','))
			return USAGE("--variants wants two words joined by a comma (without,with or "
				     "_a,_b), not '%s'", optarg);
		o->variants = optarg;
		break;
	case 'I':
		if (!*optarg)
			return fpl_cli_usage_error("compare", "--ignore-param: a params key, "
						   "or several separated by commas");
		o->ignore_params = optarg;
		break;
	default:
		return fpl_cli_getopt_error("compare", opt, argc, argv);
	}
	return 0;
}

/* 0, or the exit code of a usage error already reported. */
static int parse_opts(int argc, char **argv, struct fpl_cmp_opts *o, enum fpl_cmp_format *fmt)
{
	static const struct option longopts[] = {
		{ "metric", required_argument, NULL, 'm' },
		{ "trim", required_argument, NULL, 't' },
		{ "confidence", required_argument, NULL, 'c' },
		{ "bootstrap", optional_argument, NULL, 'b' },
		{ "seed", required_argument, NULL, 's' },
		{ "format", required_argument, NULL, 'f' },
		{ "kernel-style", no_argument, NULL, 'k' },
		{ "ministat", no_argument, NULL, 'M' },
		{ "column", required_argument, NULL, 'C' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "per-metric", no_argument, NULL, 'P' },
		{ "within-run", no_argument, NULL, 'W' },
		{ "ignore-param", required_argument, NULL, 'I' },
		{ "paired", no_argument, NULL, 'A' },
		{ "variants", required_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, rc;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":m:t:c:b::s:f:kMvC:", longopts, NULL)) != -1)
		if ((rc = one_opt(opt, argc, argv, o, fmt)))
			return rc;
	if (o->variants && argc - optind != 1)
		return USAGE("--variants makes two cases of one results file: give one file, "
			     "not %d", argc - optind);
	if (!o->variants && argc - optind < 2)
		return USAGE("at least two cases are needed (the first is the baseline)");
	if ((o->paired || o->variants) && (*fmt == FPL_CMP_MINISTAT || o->within_run))
		return USAGE("%s pairs run values by run: not with %s", o->variants ?
			     "--variants" : "--paired", o->within_run ? "--within-run (every "
			     "sample pooled)" : "--ministat (ministat's unpaired t)");
	if (*fmt == FPL_CMP_MINISTAT && isnan(fpl_ministat_t(o->confidence, 2)))
		return USAGE("--ministat knows the confidence levels 80, 90, 95, 98, 99 and 99.5,"
			     " not %g", o->confidence);
	if (*fmt == FPL_CMP_MINISTAT && argc - optind > 7)
		return USAGE("--ministat draws at most 7 cases");
	/* ministat reads the first field of a line ("1 a" is 1) unless -C says another */
	if (*fmt == FPL_CMP_MINISTAT && !o->column)
		o->column = 1;
	return 0;
}

/* ministat refuses a data set of fewer than 3 points; so does --ministat. */
static int ministat_enough(struct fpl_cmp *c)
{
	for (size_t j = 0; j < c->nm; j++)
		for (size_t i = 0; i < c->ncases; i++)
			if (c->m[j].s[i].n < 3) {
				int rc = fpl_cli_error("compare", FPL_EXIT_USAGE, "--ministat: %s: "
						       "Dataset %s must contain at least 3 data "
						       "points", c->m[j].label, c->paths[i]);

				fpl_cmp_free(c);
				return rc;
			}
	return 0;
}

static int compare_main(int argc, char **argv)
{
	struct fpl_cmp_opts o = { .trim = 0, .confidence = 95, .seed = 1 };
	enum fpl_cmp_format fmt = FPL_CMP_TABLE;
	struct fpl_diag diag = { "" };
	struct fpl_cmp *c;
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;
	int err;

	err = parse_opts(argc, argv, &o, &fmt);
	if (err)
		return err;
	err = fpl_cmp_run(argv + optind, argc - optind, &o, &c, &diag);
	if (err == -ENOMEM)
		return fpl_cli_error("compare", FPL_EXIT_FAIL, "out of memory");
	if (err)
		return fpl_cli_error("compare", FPL_EXIT_USAGE, "%s", diag.msg);
	if (fmt == FPL_CMP_MINISTAT && (err = ministat_enough(c)))
		return err;
	/* Everything goes out at once or not at all. */
	mem = open_memstream(&buf, &len);
	err = mem ? fpl_cmp_emit(c, fmt, mem) : -ENOMEM;
	if (mem)
		fclose(mem);
	fpl_cmp_free(c);
	if (err) {
		free(buf);
		return fpl_cli_error("compare", FPL_EXIT_FAIL, "cannot format the output: %s",
				     strerror(-err));
	}
	fwrite(buf, 1, len, stdout);
	free(buf);
	return fflush(stdout) ? FPL_EXIT_FAIL : FPL_EXIT_OK;
}

const struct fpl_cmd fpl_cmd_compare = {
	.name = "compare",
	.summary = "A/B/C comparison of cases of runs: run-level tests, Holm, verdicts",
	.usage =
	"Usage: fpulab compare [OPTIONS] CASE CASE...\n"
	"       fpulab compare [OPTIONS] --variants W1,W2 RESULTS\n"
	"Compare cases of runs; the first CASE is the baseline. A CASE is a set of runs:\n"
	"a file, a directory (its files), or files joined by commas (a.json,b.json).\n"
	"Files are read by content:\n"
	"  fpulab results JSON  every metric, matched across cases by benchmark,\n"
	"                       parameters and metric name; runs of one configuration\n"
	"                       (in one file or several) are the runs of the case\n"
	"  will-it-scale output its 'average:' line, one run per file\n"
	"  plain numbers        one a line, '#' starts a comment (as ministat reads):\n"
	"                       each number a run, or one run per file of a directory\n"
	"\n"
	"The run is the unit: each run gives one value per metric (the median of its\n"
	"samples, or their trimmed mean with --trim), and the cases are tested on\n"
	"those values: Welch's t (Yuen's trimmed t when trimming), Mann-Whitney U\n"
	"alongside, a bootstrap over runs on request, Holm's correction across every\n"
	"comparison. With fewer than 3 runs in a case there is no verdict; one line\n"
	"says how many runs the between-run spread seen would need.\n"
	"The output starts with a summary (metrics, how many differ, the differing\n"
	"ones by effect), then one line per metric (per benchmark above 40 metrics).\n"
	"\n"
	"Options:\n"
	"  -m, --metric PATTERN   only metrics whose name, bench/name or label match\n"
	"                         the shell PATTERN\n"
	"  -t, --trim P           each run's value is the P%-trimmed mean of its\n"
	"                         samples, and the test between cases Yuen's with P%\n"
	"                         cut from each end of the run values (default 0)\n"
	"  -c, --confidence C     confidence level in percent (default 95)\n"
	"  -b, --bootstrap[=N]    also a percentile bootstrap interval of the ratio of\n"
	"                         central values over the runs, N resamples (default\n"
	"                         2000)\n"
	"      --seed S           bootstrap seed (default 1: the same answer every run)\n"
	"  -v, --verbose          every metric's full block: distribution plot, every\n"
	"                         statistic, the tests, the verdict; every note\n"
	"      --per-metric       one line per metric however many there are\n"
	"      --within-run       test every sample pooled instead of the run values:\n"
	"                         ignores run-to-run variation (a verdict then says\n"
	"                         only that these runs differ), needs no 3 runs\n"
	"      --ignore-param K   match runs without params key K (K,K2...: several),\n"
	"                         so that one configuration setting is what the cases\n"
	"                         differ in: --ignore-param state compares a ctxsw\n"
	"                         --state init file with a --state avx512 one\n"
	"      --paired           the cases are variants from the same runs: pair each\n"
	"                         run of case 1 with the run of case N that has its run\n"
	"                         identity (observed run_index, run_pid, run_started,\n"
	"                         from --runs) and test the per-run differences (paired\n"
	"                         t; paired Yuen with --trim): the run's level cancels.\n"
	"                         Runs that do not match: refused. Two kernels or boots\n"
	"                         are different runs: leave them unpaired\n"
	"      --variants W1,W2   one results file, two cases: each metric whose name\n"
	"                         contains W1 against its run's metric named with W2 in\n"
	"                         its place, as pairs: without,with (xsave --part rfbm),\n"
	"                         _a,_b (ctxsw --ab)\n"
	"  -f, --format FMT       table (default), json or csv (both carry everything,\n"
	"                         a 'different' flag per metric and case)\n"
	"  -k, --kernel-style     'case 1: 16444675.45 Set as 1' / 'case 2: ..., 99.80%'\n"
	"  -M, --ministat         ministat's output on the run values: its statistics\n"
	"                         (pooled Student's t, upper median), layout and plot;\n"
	"                         with --trim, of the values left after trimming.\n"
	"                         Levels 80 90 95 98 99 99.5. As ministat: the first\n"
	"                         field of a line, fewer than 3 points refused\n"
	"  -C, --column N         plain numbers: the Nth blank-separated field of each\n"
	"                         line (ministat -C N); lines without it are skipped\n"
	"  -h, --help             this text\n"
	"\n"
	"Exit status: 0 ok, 1 failure, 2 bad usage or bad input (a line that is not a\n"
	"number, an empty case, fewer than 2 values after trimming, a pattern that\n"
	"matches nothing, mixed units or input kinds, --paired files whose runs do not\n"
	"match, --variants words that pair no metric).\n",
	.main = compare_main,
};
