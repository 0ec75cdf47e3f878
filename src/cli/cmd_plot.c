// SPDX-License-Identifier: GPL-3.0-or-later
/* fpulab plot: charts of results, or box plots comparing several, through gnuplot. */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fpulab/compare.h"
#include "report/plot.h"
#include "cli.h"

#define MAX_PANELS 6

/*
 * An ending signal (INT, TERM, HUP, QUIT) while drawing: gnuplot is killed,
 * so that it cannot create the temporary file again, then the temporary file
 * is removed and the signal takes effect (plot_end_on_signal).
 */
static volatile sig_atomic_t plot_signo;
static volatile pid_t plot_child;
static struct sigaction plot_old[FPL_CLI_NEND_SIGS];

static void plot_on_signal(int sig)
{
	plot_signo = sig;
	if (plot_child > 0)
		kill(plot_child, SIGKILL);
}

static void plot_catch(bool on)
{
	if (on)
		fpl_cli_catch_end(plot_on_signal, plot_old);
	else
		fpl_cli_uncatch_end(plot_old);
}

/* After the temporary file is gone: end as the signal would have ended us. */
static void plot_end_on_signal(void)
{
	int sig = plot_signo;

	plot_catch(false);
	if (!sig)
		return;
	signal(sig, SIG_DFL);
	raise(sig);
}

/* gnuplot from $FPL_GNUPLOT or the PATH; NULL when there is none. */
static char *find_gnuplot(void)
{
	const char *env = getenv("FPL_GNUPLOT"), *path = getenv("PATH");
	char *dirs, *d, *save = NULL, *hit = NULL;

	if (env && *env)
		return access(env, X_OK) ? NULL : strdup(env);
	dirs = strdup(path && *path ? path : "/usr/bin:/bin");
	for (d = dirs ? strtok_r(dirs, ":", &save) : NULL; d && !hit;
	     d = strtok_r(NULL, ":", &save)) {
		if (asprintf(&hit, "%s/gnuplot", *d ? d : ".") < 0) {
			hit = NULL;
			break;
		}
		if (access(hit, X_OK)) {
			free(hit);
			hit = NULL;
		}
	}
	free(dirs);
	return hit;
}

/* Feed the script to gnuplot on its stdin; 0 when it exits 0. */
static int run_gnuplot(const char *gp, const char *script, size_t len)
{
	int fd[2], status;
	pid_t pid;
	void (*old)(int);

	if (pipe(fd))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return -errno;
	}
	if (!pid) {
		dup2(fd[0], STDIN_FILENO);
		close(fd[0]);
		close(fd[1]);
		execl(gp, "gnuplot", (char *)NULL);
		_exit(127);
	}
	plot_child = pid;
	if (plot_signo)
		kill(pid, SIGKILL);
	close(fd[0]);
	old = signal(SIGPIPE, SIG_IGN);
	for (size_t off = 0; off < len;) {
		ssize_t w = write(fd[1], script + off, len - off);

		if (w <= 0)
			break;
		off += (size_t)w;
	}
	close(fd[1]);
	signal(SIGPIPE, old);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	plot_child = 0;
	if (plot_signo)
		return -EINTR;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -EIO;
}

/* The script for one file's charts, or for box plots of several. Exit code. */
/* What the user chose: the charts of one file, or the cases' names and metrics. */
struct plot_opts {
	unsigned charts;
	const char *metric;
	double trim;
	const char **labels;	/* --label per case, in order; NULL entries: the file's name */
	size_t nlabels;
	enum fpl_plot_term term;
};

static int make_script(char **paths, size_t n, const struct plot_opts *po, const char *tmp,
		       char **buf, size_t *len)
{
	struct fpl_diag diag = { "" };
	FILE *f = open_memstream(buf, len);
	int err;

	if (!f)
		return fpl_cli_error("plot", FPL_EXIT_FAIL, "out of memory");
	if (n == 1) {
		struct fpl_result *r = NULL;

		err = fpl_result_load(paths[0], &r, &diag);
		if (!err)
			err = fpl_plot_script(r, po->charts, po->term, tmp, f, &diag);
		fpl_result_free(r);
	} else {
		struct fpl_cmp_opts o = { .trim = po->trim, .confidence = 95, .metric = po->metric,
					  .seed = 1 };
		struct fpl_cmp *c = NULL;

		err = fpl_cmp_run(paths, n, &o, &c, &diag);
		if (!err) {
			err = fpl_plot_compare_script(c, po->labels, MAX_PANELS, po->term, tmp,
						      f, &diag);
			if (!err && c->nm > MAX_PANELS)
				fprintf(stderr,
					"fpulab plot: %zu metrics match; the first %d are drawn "
					"(choose with --metric)\n",
					c->nm, MAX_PANELS);
		}
		fpl_cmp_free(c);
	}
	if (fclose(f) && !err)
		err = -EIO;
	if (err == -ENOMEM)
		return fpl_cli_error("plot", FPL_EXIT_FAIL, "out of memory");
	if (err)
		return fpl_cli_error("plot", FPL_EXIT_USAGE, "%s", diag.msg[0] ? diag.msg :
				     strerror(-err));
	return FPL_EXIT_OK;
}

/* Draw into a temporary file beside out, then rename: out is whole or untouched. */
static int draw(const char *gp, char **paths, size_t n, const struct plot_opts *po,
		const char *out)
{
	char *dir = strdup(out), *tmp = NULL, *script = NULL;
	size_t len = 0;
	int fd = -1, rc;

	if (dir && !gp) {
		/* --script: the script as it would draw out itself. */
		rc = make_script(paths, n, po, out, &script, &len);
		if (rc == FPL_EXIT_OK)
			fwrite(script, 1, len, stdout);
		goto out;
	}
	if (!dir || asprintf(&tmp, "%s/.fpulab-plot.XXXXXX", dirname(dir)) < 0) {
		free(dir);
		return fpl_cli_error("plot", FPL_EXIT_FAIL, "out of memory");
	}
	plot_catch(true);
	fd = mkstemp(tmp);
	if (fd < 0) {
		rc = fpl_cli_error("plot", FPL_EXIT_USAGE, "%s: cannot write there: %s", out,
				   strerror(errno));
		plot_catch(false);
		goto out;
	}
	{
		mode_t um = umask(0);

		umask(um);
		fchmod(fd, 0666 & ~um);	/* mkstemp's 0600 is not what a chart should have */
	}
	close(fd);
	rc = make_script(paths, n, po, tmp, &script, &len);
	if (plot_signo) {
		rc = FPL_EXIT_FAIL;
	} else if (rc == FPL_EXIT_OK && run_gnuplot(gp, script, len)) {
		rc = plot_signo ? FPL_EXIT_FAIL : fpl_cli_error("plot", FPL_EXIT_FAIL, "gnuplot (%s) failed; its messages are "
				   "above; 'fpulab plot --script' prints what it was given", gp);
	} else if (rc == FPL_EXIT_OK) {
		struct stat st;

		if (stat(tmp, &st) || !st.st_size || rename(tmp, out))
			rc = fpl_cli_error("plot", FPL_EXIT_FAIL,
					   "%s: gnuplot wrote nothing, or the "
					   "file could not be renamed: %s",
					   out, strerror(errno));
	}
	if (rc != FPL_EXIT_OK || plot_signo)
		unlink(tmp);
	plot_end_on_signal();
out:
	free(script);
	free(tmp);
	free(dir);
	return rc;
}

#define MAX_LABELS ((size_t)32)

/*
 * The options of plot into po, -o into *out, --label values into given (room
 * for MAX_LABELS), --script into *script_only: 0, or the exit code
 * of a usage error already reported.
 */
static int parse_plot(int argc, char **argv, struct plot_opts *po, const char **given,
		      const char **out, bool *script_only)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "chart", required_argument, NULL, 'c' },
		{ "metric", required_argument, NULL, 'm' },
		{ "trim", required_argument, NULL, 't' },
		{ "script", no_argument, NULL, 's' },
		{ "label", required_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int opt;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":o:c:m:t:l:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			*out = optarg;
			break;
		case 'c':
			po->charts = fpl_plot_by_name(optarg);
			if (!po->charts)
				return fpl_cli_usage_error("plot",
							   "--chart: '%s' is not xsave, xor, "
							   "ctxsw or all",
							   optarg);
			break;
		case 'm':
			po->metric = optarg;
			break;
		case 'l':
			if (po->nlabels == MAX_LABELS)
				return fpl_cli_usage_error("plot", "--label: at most %zu",
							   MAX_LABELS);
			given[po->nlabels++] = optarg;
			break;
		case 't':
			po->trim = strtod(optarg, &end);
			if (*end || end == optarg || !(po->trim >= 0 && po->trim < 50))
				return fpl_cli_usage_error("plot",
							   "--trim: '%s' is not a percentage "
							   "in [0, 50)",
							   optarg);
			break;
		case 's':
			*script_only = true;
			break;
		default:
			return fpl_cli_getopt_error("plot", opt, argc, argv);
		}
	}
	return 0;
}

static int plot_main(int argc, char **argv)
{
	struct plot_opts po = { .charts = FPL_PLOT_ALL };
	const char *out = NULL, *given[MAX_LABELS];
	bool script_only = false;
	char *gp = NULL;
	int term, rc;
	size_t ncases;

	rc = parse_plot(argc, argv, &po, given, &out, &script_only);
	if (rc)
		return rc;
	ncases = optind < argc ? (size_t)(argc - optind) : 0;
	if (po.nlabels && ncases < 2)
		return fpl_cli_usage_error("plot", "--label names the cases of a comparison: "
					   "give two CASEs or more");
	if (po.nlabels > ncases)
		return fpl_cli_usage_error("plot", "%zu --label for %zu cases: one for each case, "
					   "in order, at most", po.nlabels, ncases);
	if (optind >= argc)
		return fpl_cli_usage_error("plot", "which results file(s)?");
	if (!out)
		return fpl_cli_usage_error("plot", "-o OUT.svg or -o OUT.png is needed");
	term = fpl_plot_term_of(out);
	if (term < 0)
		return fpl_cli_usage_error("plot", "-o %s: the name must end in .svg or .png", out);
	/* Before gnuplot draws anything: a directory or an unwritable place is bad input. */
	if (!script_only && (rc = fpl_cli_check_out_path("plot", out)))
		return rc;
	if (!script_only) {
		gp = find_gnuplot();
		if (!gp)
			return fpl_cli_error("plot", FPL_EXIT_USAGE, "gnuplot is not installed (or "
					     "FPL_GNUPLOT names no program); install it with:\n"
					     "  sudo apt-get install gnuplot-nox");
	}
	po.term = (enum fpl_plot_term)term;
	if (po.nlabels) {
		/* one entry per case; the ones not named stay NULL */
		po.labels = calloc(ncases, sizeof(*po.labels));
		if (!po.labels) {
			free(gp);
			return fpl_cli_error("plot", FPL_EXIT_FAIL, "out of memory");
		}
		memcpy(po.labels, given, po.nlabels * sizeof(*given));
	}
	rc = draw(gp, argv + optind, ncases, &po, out);
	free(po.labels);
	free(gp);
	return rc;
}

const struct fpl_cmd fpl_cmd_plot = {
	.name = "plot",
	.summary = "charts of results through gnuplot (SVG or PNG)",
	.usage =
	"Usage: fpulab plot RESULTS -o OUT.svg|OUT.png [--chart xsave|xor|ctxsw|all]\n"
	"       fpulab plot CASE CASE... -o OUT.svg|OUT.png [--metric PATTERN] [--trim P]\n"
	"                   [--label NAME]...\n"
	"Draw through gnuplot. From one results file (fpulab run -o, a benchmark's -o):\n"
	"  xsave   the XSAVE matrix: core cycles by instruction and RFBM, a panel each for\n"
	"          components in their init state and live (median, quartile bars)\n"
	"  xor     MB/s by buffer size, a line per routine (the sweep)\n"
	"  ctxsw   context-switch distributions (ECDF of ns per switch), a line per state\n"
	"every chart the file has data for unless --chart chooses. From several CASEs\n"
	"(files or directories, as fpulab compare reads them): box plots of each\n"
	"metric's values per case, a panel per metric (the first 6), the cases named\n"
	"by --label or their file names on the axis and in the titles.\n"
	"\n"
	"Options:\n"
	"  -o, --output FILE     the chart; .svg or .png chooses the format. Written to a\n"
	"                        temporary file and renamed: whole or not at all\n"
	"  -c, --chart NAME      xsave, xor, ctxsw or all (default all)\n"
	"  -m, --metric PATTERN  with several cases: only metrics matching the pattern\n"
	"  -t, --trim P          with several cases: as fpulab compare --trim (matching)\n"
	"  -l, --label NAME      with several cases: the next case's name (once per case,\n"
	"                        in order); default: its file or directory name\n"
	"      --script          print the gnuplot script instead of running gnuplot\n"
	"\n"
	"gnuplot comes from $FPL_GNUPLOT or the PATH. Exit status: 0 ok, 1 gnuplot\n"
	"failed, 2 usage, bad input, nothing to plot, or gnuplot missing.\n",
	.main = plot_main,
};
