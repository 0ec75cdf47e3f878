// SPDX-License-Identifier: GPL-3.0-or-later
/* fpulab show: a results document (-o FILE) printed again as the command that wrote it did. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpulab/report.h"
#include "fpulab/result.h"
#include "report/views.h"
#include "cli.h"

#define CMD "show"
/* Larger than any document fpulab writes (a repro all with --runs 50 is a few MB). */
#define MAX_DOC (1ul << 30)

struct show_opts {
	const char *path, *out;
	int format;			/* enum fpl_format */
	int units;			/* enum fpl_units */
	bool all;
};

static int parse(struct show_opts *o, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "json", no_argument, NULL, 'j' },
		{ "units", required_argument, NULL, 'u' },
		{ "all", no_argument, NULL, 'a' },
		{ "output", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->format = FPL_FMT_TABLE;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:", lo, NULL)) != -1) {
		switch (c) {
		case 'f':
			o->format = fpl_format_by_name(optarg);
			if (o->format < 0)
				return fpl_cli_usage_error(CMD, "--format: '%s' is not table, json or "
							   "csv", optarg);
			break;
		case 'j':
			o->format = FPL_FMT_JSON;
			break;
		case 'u':
			o->units = fpl_units_by_name(optarg);
			if (o->units < 0)
				return fpl_cli_usage_error(CMD, "--units: '%s' is not cycles, tsc, ns "
							   "or all", optarg);
			break;
		case 'a':
			o->all = true;
			break;
		case 'o':
			if (!*optarg)
				return fpl_cli_usage_error(CMD, "-o needs a file name");
			o->out = optarg;
			break;
		default:
			return fpl_cli_getopt_error(CMD, c, argc, argv);
		}
	}
	if (optind >= argc)
		return fpl_cli_usage_error(CMD, "no FILE given (a results document, or - for "
					   "standard input)");
	if (optind != argc - 1)
		return fpl_cli_usage_error(CMD, "one FILE only ('%s' is extra)", argv[optind + 1]);
	o->path = argv[optind];
	if (o->all && o->format != FPL_FMT_TABLE)
		return fpl_cli_usage_error(CMD, "--all is a table: not with --format json or csv");
	return o->out ? fpl_cli_check_out_path(CMD, o->out) : FPL_EXIT_OK;
}

/* The document at o->path ("-": standard input). Exit code; *r the caller's. */
static int load(const struct show_opts *o, struct fpl_result **r)
{
	struct fpl_diag diag = { "" };
	char *buf = NULL;
	size_t len = 0, k;
	int err;

	if (strcmp(o->path, "-")) {
		err = fpl_result_load(o->path, r, &diag);
	} else {
		buf = malloc(MAX_DOC + 1);
		if (!buf)
			return fpl_cli_error(CMD, FPL_EXIT_FAIL, "out of memory");
		while (len <= MAX_DOC && (k = fread(buf + len, 1, MAX_DOC + 1 - len, stdin)))
			len += k;
		err = len > MAX_DOC ? fpl_diag_set(&diag, -EFBIG, "standard input: over %lu bytes",
						   MAX_DOC) :
		      ferror(stdin) ? fpl_diag_set(&diag, -EIO, "standard input: read error") :
		      fpl_result_load_buf(buf, len, "standard input", r, &diag);
		free(buf);
	}
	if (err == -ENOMEM)
		return fpl_cli_error(CMD, FPL_EXIT_FAIL, "out of memory");
	/* a file that is not there or not a results document: bad input */
	return err ? fpl_cli_error(CMD, FPL_EXIT_USAGE, "%s", diag.msg) : FPL_EXIT_OK;
}

/* What goes out: the command's view, every metric (--all), or the document in a format. */
static int render(const struct show_opts *o, const struct fpl_result *r, FILE *f,
		  struct fpl_diag *diag)
{
	struct fpl_table_opts to = { .units = (enum fpl_units)o->units, .warnings = true };

	if (o->format != FPL_FMT_TABLE)
		return fpl_emit(r, (enum fpl_format)o->format, f, diag);
	if (o->all)
		return fpl_view_generic_table(r, &to, f) ?
		       fpl_diag_set(diag, -EIO, "writing the table failed") : 0;
	return fpl_view_document(r, &to, f, diag);
}

static int show_main(int argc, char **argv)
{
	struct show_opts o;
	struct fpl_result *r = NULL;
	struct fpl_diag diag = { "" };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int rc = parse(&o, argc, argv);

	if (!rc)
		rc = load(&o, &r);
	if (rc)
		return rc;
	/* whole or nothing: rendered first, then written */
	f = open_memstream(&buf, &len);
	if (!f) {
		rc = fpl_cli_error(CMD, FPL_EXIT_FAIL, "out of memory");
	} else {
		int err = render(&o, r, f, &diag);

		if (fclose(f) || err)
			rc = fpl_cli_error(CMD, FPL_EXIT_FAIL, "%s", diag.msg[0] ? diag.msg :
					   "writing the report failed");
		else if (o.out)
			rc = fpl_cli_write_file(CMD, o.out, buf, len);
		else if (fwrite(buf, 1, len, stdout) != len || fflush(stdout))
			rc = fpl_cli_error(CMD, FPL_EXIT_FAIL, "writing to standard output failed");
	}
	free(buf);
	fpl_result_free(r);
	return rc;
}

const struct fpl_cmd fpl_cmd_show = {
	.name = "show",
	.summary = "a results document (-o FILE) printed again as its command printed it",
	.usage =
	"Usage: fpulab show [OPTIONS] FILE\n"
	"Print a results document that fpulab wrote (-o FILE, --json) for people again,\n"
	"as the command that wrote it did: a benchmark's own table, the summary of\n"
	"`fpulab run`, the first run's table and the series of --runs N, or the tables\n"
	"of `fpulab repro` (without its --kernel-trace lines, which a document does\n"
	"not keep). The command is read from the document's host.command; in a file\n"
	"from an fpulab before it, from what the runs are. FILE - reads standard input.\n"
	"Nothing is measured: a document from another machine shows that machine.\n"
	"\n"
	"Options:\n"
	"  --units U         the table's times: cycles (core cycles, default), tsc, ns\n"
	"                    or all\n"
	"  --all             every metric of every run in the generic table, with the\n"
	"                    run's warnings, instead of the command's view (in the unit\n"
	"                    of --units; --units all: every metric in every unit)\n"
	"  --format F        table (default), json or csv: the document itself in that\n"
	"                    format (json: as the current fpulab writes it)\n"
	"  --json            same as --format json\n"
	"  -o FILE           write to FILE (atomically) instead of standard output\n"
	"\n"
	"Exit status: 0 ok, 1 failure, 2 usage or a FILE that is not a results document.\n",
	.main = show_main,
};
