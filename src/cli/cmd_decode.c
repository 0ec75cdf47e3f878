// SPDX-License-Identifier: GPL-3.0-or-later
/* fpulab decode: read an XSAVE image, show its registers, judge it as XRSTOR and the kernel would. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fpulab/image.h"
#include "fpulab/report.h"
#include "cli.h"

#define CMD "decode"
/* Larger than any XSAVE area (AMX's is about 11 KiB) by far; stops reading a wrong file. */
#define MAX_IMAGE (1u << 20)

struct decode_opts {
	const char *path, *cpuid, *to, *out, *rfbm;
	int format, tracee;
	bool json;
};

static int read_image(const char *path, uint8_t **buf, size_t *len)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : dup(0);
	size_t cap = MAX_IMAGE + 1, n = 0;
	struct stat st;
	uint8_t *b;

	if (fd < 0)
		return fpl_cli_error(CMD, FPL_EXIT_USAGE, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		return fpl_cli_error(CMD, FPL_EXIT_USAGE, "%s: is a directory", path);
	}
	/* 64-byte aligned, as XRSTOR wants: alignment is the address's, not the file's. */
	b = fpl_xstate_alloc(cap);
	if (!b) {
		close(fd);
		return fpl_cli_error(CMD, FPL_EXIT_FAIL, "out of memory");
	}
	while (n < cap) {
		ssize_t r = read(fd, b + n, cap - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			close(fd);
			free(b);
			return fpl_cli_error(CMD, FPL_EXIT_USAGE, "%s: %s", path, strerror(e));
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (n > MAX_IMAGE) {
		free(b);
		return fpl_cli_error(CMD, FPL_EXIT_USAGE,
				     "%s: more than %u bytes, too large for an XSAVE image", path,
				     MAX_IMAGE);
	}
	*buf = b;
	*len = n;
	return 0;
}

static int parse_args(int argc, char **argv, struct decode_opts *o)
{
	static const struct option lo[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "cpuid", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "to", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ "rfbm", required_argument, NULL, 'r' },
		{ "tracee", required_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:", lo, NULL)) != -1) {
		switch (c) {
		case 'f':
			o->format = fpl_image_format_by_name(optarg);
			if (o->format < 0)
				return fpl_cli_usage_error(CMD, "--format '%s': expected raw, "
							   "compacted, signal, ptrace or auto", optarg);
			break;
		case 'c':
			o->cpuid = optarg;
			break;
		case 'j':
			o->json = true;
			break;
		case 't':
			if (strcmp(optarg, "standard") && strcmp(optarg, "compacted"))
				return fpl_cli_usage_error(CMD, "--to '%s': expected standard or "
							   "compacted", optarg);
			o->to = optarg;
			break;
		case 'o':
			o->out = optarg;
			break;
		case 'r':
			o->rfbm = optarg;
			break;
		case 'T':
			o->tracee = fpl_ptrace_tracee_by_name(optarg);
			if (o->tracee < 0)
				return fpl_cli_usage_error(CMD, "--tracee '%s': expected no-perm, "
							   "perm-unused or tiles-used", optarg);
			break;
		default:
			return fpl_cli_getopt_error(CMD, c, argc, argv);
		}
	}
	if (optind >= argc)
		return fpl_cli_usage_error(CMD, "no IMAGE given");
	if (optind != argc - 1)
		return fpl_cli_usage_error(CMD, "one IMAGE only ('%s' is extra)", argv[optind + 1]);
	o->path = argv[optind];
	if (!o->to != !o->out)
		return fpl_cli_usage_error(CMD, "--to and -o go together");
	/* Before the table: a bad -o prints nothing. */
	return o->out ? fpl_cli_check_out_path(CMD, o->out) : 0;
}

static int load_cpu(const struct decode_opts *o, struct fpl_cpu *cpu, struct fpl_xstate *xs)
{
	struct fpl_diag diag = { "" };
	int err;

	if (o->cpuid) {
		err = fpl_cpu_load(cpu, o->cpuid, &diag);
		if (err)
			return fpl_cli_error(CMD, FPL_EXIT_USAGE, "--cpuid %s: %s", o->cpuid,
					     diag.msg[0] ? diag.msg : strerror(-err));
	} else {
		fpl_cpu_read(cpu);
	}
	err = fpl_xstate_init(xs, cpu);
	if (err)
		return fpl_cli_error(CMD, FPL_EXIT_USAGE, "%s: no usable CPUID 0xD: %s",
				     cpu->source, strerror(-err));
	return 0;
}

static int convert(const struct decode_opts *o, const struct fpl_image *img, uint64_t mask)
{
	struct fpl_diag diag = { "" };
	size_t len;
	void *out;
	int err, rc;

	if (fpl_image_rejected(img))
		return fpl_cli_error(CMD, FPL_EXIT_USAGE, "%s: not converted, %s not written: "
				     "the image is rejected", o->path, o->out);
	err = fpl_image_convert(img, !strcmp(o->to, "compacted"), mask, &out, &len, &diag);
	if (err)
		return fpl_cli_error(CMD, err == -ENOMEM ? FPL_EXIT_FAIL : FPL_EXIT_USAGE,
				     "%s: cannot convert: %s", o->path,
				     diag.msg[0] ? diag.msg : strerror(-err));
	rc = fpl_cli_write_file(CMD, o->out, out, len);
	free(out);
	return rc;
}

static int run(const struct decode_opts *o, struct fpl_cpu *cpu, struct fpl_xstate *xs,
	       struct fpl_image *img)
{
	struct fpl_diag diag = { "" };
	struct fpl_image_cfg cfg;
	uint64_t mask = xs->xcr0;
	uint8_t *buf = NULL;
	size_t len = 0;
	int rc;

	fpl_image_cfg_init(&cfg, cpu, xs);
	/*
	 * A frame is judged for the task that wrote it, taken to have used every
	 * component (a frame with tile data says so in its own xfeatures), not
	 * for this decode process, which has never used AMX.
	 */
	cfg.task_mask = fpl_xstate_xcr0(xs);
	cfg.format = o->format;
	cfg.tracee = (enum fpl_ptrace_tracee)o->tracee;	/* default: no-perm, the strictest */
	if (o->rfbm) {
		/* "all" is the judged CPU's XCR0 here, not what this process may use. */
		if (!strcasecmp(o->rfbm, "all"))
			mask = xs->xcr0;
		else if (fpl_xstate_parse_mask(xs, o->rfbm, &mask, &diag))
			return fpl_cli_usage_error(CMD, "--rfbm '%s': %s", o->rfbm, diag.msg);
		cfg.rfbm = mask;
	}
	rc = read_image(o->path, &buf, &len);
	if (rc)
		return rc;
	if (fpl_image_decode(buf, len, &cfg, img, &diag)) {
		free(buf);
		return fpl_cli_error(CMD, FPL_EXIT_USAGE, "%s: %s", o->path, diag.msg);
	}
	rc = o->json ? fpl_json_decode(stdout, o->path, cpu, &cfg, img) :
		       fpl_table_decode(stdout, o->path, cpu, &cfg, img);
	if (rc || fflush(stdout) || ferror(stdout))
		rc = fpl_cli_error(CMD, FPL_EXIT_FAIL, "writing the output failed");
	if (!rc && fpl_image_rejected(img)) {
		const struct fpl_image_finding *f = fpl_image_first_rejection(img);

		rc = fpl_cli_error(CMD, FPL_EXIT_USAGE, "%s: rejected: %s at byte %zu: %s",
				   o->path, f->rule, f->offset, f->msg);
		if (o->to)
			fpl_cli_error(CMD, FPL_EXIT_USAGE, "%s not written", o->out);
	} else if (!rc && o->to) {
		rc = convert(o, img, mask);
	}
	free(buf);
	return rc;
}

static int decode_main(int argc, char **argv)
{
	struct fpl_cpu *cpu = malloc(sizeof(*cpu));
	struct fpl_xstate *xs = malloc(sizeof(*xs));
	struct fpl_image *img = malloc(sizeof(*img));
	struct decode_opts o;
	int rc;

	if (!cpu || !xs || !img)
		rc = fpl_cli_error(CMD, FPL_EXIT_FAIL, "out of memory");
	else if (!(rc = parse_args(argc, argv, &o)) && !(rc = load_cpu(&o, cpu, xs)))
		rc = run(&o, cpu, xs, img);
	free(cpu);
	free(xs);
	free(img);
	return rc;
}

const struct fpl_cmd fpl_cmd_decode = {
	.name = "decode",
	.summary = "decode and validate an XSAVE image (raw, compacted, signal frame, ptrace)",
	.usage =
	"Usage: fpulab decode IMAGE [--format raw|compacted|signal|ptrace|auto] [--cpuid DUMP]\n"
	"                     [--json] [--rfbm MASK] [--tracee CASE]\n"
	"                     [--to standard|compacted -o FILE]\n"
	"Decode an XSAVE image and judge it as XRSTOR (and, for signal frames and ptrace\n"
	"dumps, the kernel) would on the CPU described by --cpuid (default: this one).\n\n"
	"  IMAGE          a file, or - for standard input\n"
	"  --format F     raw (standard XSAVE area), compacted, signal (a signal frame's\n"
	"                 fpstate: _fpx_sw_bytes at 464, magic2 after the image), ptrace\n"
	"                 (NT_X86_XSTATE: XCR0 at 464), auto (default: detect)\n"
	"  --cpuid DUMP   judge against a captured CPU (XCR0, layout, vendor rules)\n"
	"  --rfbm MASK    the XRSTOR's EDX:EAX (number or names: x87,sse,avx,avx512,...);\n"
	"                 default all of XCR0 (signal frames: xfeatures)\n"
	"  --tracee CASE  ptrace: the tracee PTRACE_SETREGSET writes to: no-perm (no AMX\n"
	"                 permission; the default, the strictest), perm-unused (permission,\n"
	"                 no tile used yet) or tiles-used. Tile data (XSTATE_BV bit 18) is\n"
	"                 refused (EINVAL) until the tracee's first tile use\n"
	"  --json         one JSON document instead of the table\n"
	"  --to FORM -o FILE  write the image converted to standard or compacted form\n"
	"                 (compacted: XCOMP_BV = MASK of --rfbm, as XSAVEC writes it);\n"
	"                 written to a temporary file and renamed\n\n"
	"Exit status: 0 accepted, 2 rejected by XRSTOR or the kernel (the rule and byte\n"
	"offset are printed) or bad input, 1 failure.\n",
	.main = decode_main,
};
