// SPDX-License-Identifier: GPL-3.0-or-later
/* fpulab show: a results document (-o FILE) printed again as the command that wrote it did. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* -o names the document itself: the text would replace what it shows. */
static bool same_file(const char *a, const char *b)
{
	struct stat x, y;

	return strcmp(a, "-") && !stat(a, &x) && !stat(b, &y) && x.st_dev == y.st_dev &&
	       x.st_ino == y.st_ino;
}

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
	if (o->out && same_file(o->path, o->out))
		return fpl_cli_usage_error(CMD, "-o %s is FILE itself: it would be replaced by "
					   "what it shows", o->out);
	if (o->all && o->format != FPL_FMT_TABLE)
		return fpl_cli_usage_error(CMD, "--all is a table: not with --format json or csv");
	return o->out ? fpl_cli_check_out_path(CMD, o->out) : FPL_EXIT_OK;
}

/* Standard input, whole, into *buf (the caller frees): 0 or -errno with diag. */
static int read_stdin(char **buf, size_t *len, struct fpl_diag *diag)
{
	size_t cap = 0, k;

	*buf = NULL;
	*len = 0;
	do {
		if (*len == cap) {
			char *b = cap < MAX_DOC ? realloc(*buf, cap = cap ? 2 * cap : 1 << 16) : NULL;

			if (!b)
				return cap >= MAX_DOC ? fpl_diag_set(diag, -EFBIG, "standard input: "
								     "over %lu bytes", MAX_DOC) :
				       -ENOMEM;
			*buf = b;
		}
		k = fread(*buf + *len, 1, cap - *len, stdin);
		*len += k;
	} while (k);
	return ferror(stdin) ? fpl_diag_set(diag, -EIO, "standard input: read error") : 0;
}

/* The document at o->path ("-": standard input). Exit code; *r the caller's. */
static int load(const struct show_opts *o, struct fpl_result **r)
{
	struct fpl_diag diag = { "" };
	char *buf = NULL;
	size_t len = 0;
	int err;

	if (strcmp(o->path, "-")) {
		err = fpl_result_load(o->path, r, &diag);
	} else {
		err = read_stdin(&buf, &len, &diag);
		if (!err)
			err = fpl_result_load_buf(buf, len, "standard input", r, &diag);
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

	int err;

	if (o->format != FPL_FMT_TABLE)
		return fpl_emit(r, (enum fpl_format)o->format, f, diag);
	if (o->all)
		return fpl_view_generic_table(r, &to, f) ?
		       fpl_diag_set(diag, -EIO, "writing the table failed") : 0;
	err = fpl_view_document(r, &to, f, diag);
	/* what the command said on stderr (a series', repro's warnings), after its report */
	if (!err)
		fpl_view_document_stderr(r, f);
	return err;
}

/* buf (len bytes, NULs included) with the bytes that could drive a terminal escaped. */
static void put_text(const char *buf, size_t len, FILE *f)
{
	for (size_t i = 0; i < len; i += strlen(buf + i) + 1) {
		fpl_cli_put_escaped(buf + i, f);
		if (i + strlen(buf + i) < len)
			fputs("\\x00", f);
	}
}


/* A document that loads but that its view cannot print (parts missing) is bad input too. */
static int print_failure(const struct show_opts *o, int err, const struct fpl_diag *diag)
{
	if (err == -EINVAL)
		return fpl_cli_error(CMD, FPL_EXIT_USAGE, "%s: %s", o->path, diag->msg);
	return fpl_cli_error(CMD, FPL_EXIT_FAIL, "%s", diag->msg[0] ? diag->msg :
			     "writing the report failed");
}

/* The text to -o (whole or nothing) or standard output; JSON and CSV as they are. */
static int write_out(const struct show_opts *o, const char *buf, size_t len)
{
	char *esc = NULL;
	size_t elen = 0;
	FILE *f;
	int rc;

	if (o->format == FPL_FMT_TABLE) {
		f = open_memstream(&esc, &elen);
		if (!f)
			return fpl_cli_error(CMD, FPL_EXIT_FAIL, "out of memory");
		put_text(buf, len, f);
		fclose(f);
		buf = esc;
		len = elen;
	}
	if (o->out)
		rc = fpl_cli_write_file(CMD, o->out, buf, len);
	else if (fwrite(buf, 1, len, stdout) != len || fflush(stdout))
		rc = fpl_cli_error(CMD, FPL_EXIT_FAIL, "writing to standard output failed");
	else
		rc = FPL_EXIT_OK;
	free(esc);
	return rc;
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

		fclose(f);
		rc = err ? print_failure(&o, err, &diag) : write_out(&o, buf, len);
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
	"not keep), then the warning lines a --runs series or repro wrote on stderr.\n"
	"The command is read from the document's host.command; in a file from an\n"
	"fpulab before it, from what the runs are. FILE - reads standard input.\n"
	"Nothing is measured: a document from another machine shows that machine.\n"
	"\n"
	"Options:\n"
	"  --units U         the table's times: cycles (core cycles, default), tsc, ns\n"
	"                    or all (the suite's summary and repro's tables keep theirs)\n"
	"  --all             every metric of every run in the generic table, with the\n"
	"                    run's warnings, instead of the command's view (in the unit\n"
	"                    of --units; --units all: every metric in every unit)\n"
	"  --format F        table (default), json or csv: the document itself in that\n"
	"                    format (json: as the current fpulab writes it)\n"
	"  --json            same as --format json\n"
	"  -o OUT            write to OUT (atomically) instead of standard output; not\n"
	"                    FILE itself\n"
	"\n"
	"Exit status: 0 ok, 1 failure, 2 usage, or a FILE that is not a results document\n"
	"or that its view cannot print (named in the message; nothing written).\n",
	.main = show_main,
};
