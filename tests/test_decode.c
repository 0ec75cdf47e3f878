// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests of `fpulab decode` itself ($FPL_BIN): exit codes, messages, JSON, conversion output. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <jansson.h>

#include "fpulab/base.h"
#include "runcmd.h"
#include "tilecfg_truth.h"

#define IMAGES "tests/data/images/"
#define HOST "--cpuid=" IMAGES "host.cpuid"

struct out {
	int rc;
	char *out, *err;
};

static char tmpdir[64];

/* Run fpulab with the NULL-terminated arguments; stdout and stderr are captured whole. */
static struct out run(const char *arg, ...)
{
	const char *argv[16];
	struct out o = { -1, NULL, NULL };
	struct cmd_out c;
	va_list ap;
	int n = 0;

	argv[n++] = cmd_fpl_bin();
	va_start(ap, arg);
	for (const char *a = arg; a && n < 15; a = va_arg(ap, const char *))
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	assert_int_equal(cmd_run(argv, FPLRUN_LIMIT_S, &c), 0);
	o.rc = cmd_code(&c);
	o.out = c.out;
	o.err = c.err;
	return o;
}

static void out_free(struct out *o)
{
	free(o->out);
	free(o->err);
}

static void has(const char *text, const char *needle)
{
	if (!strstr(text, needle))
		fail_msg("'%s' not in:\n%s", needle, text);
}

static void tmp_path(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", tmpdir, name);
}

/* Copy a fixture to the temporary directory, changing len bytes at off (if len). */
static void put_variant(const char *dst, const char *fixture, size_t off, const void *b, size_t len,
			size_t trunc)
{
	char src[128];
	uint8_t buf[16384];
	size_t n;
	FILE *f;

	snprintf(src, sizeof(src), IMAGES "%s", fixture);
	f = fopen(src, "rb");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	if (len)
		memcpy(buf + off, b, len);
	if (trunc)
		n = trunc;
	f = fopen(dst, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, n, f), n);
	fclose(f);
}

/* Nothing but the named files in the temporary directory (no leftover temp files). */
static unsigned tmp_entries(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	unsigned n = 0;

	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");  /* temporaries are dot files */
	closedir(d);
	return n;
}

static int setup(void **state)
{
	strcpy(tmpdir, "/tmp/fpl-decode-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	return cmd_rm_rf(tmpdir);
}

static void test_accepts_captures(void **state)
{
	static const char *const files[][2] = {
		{ IMAGES "signal.bin", "format      signal" },
		{ IMAGES "ptrace.bin", "format      ptrace" },
		{ IMAGES "xsave.bin", "format      raw" },
		{ IMAGES "xsavec.bin", "format      compacted" },
	};

	for (unsigned i = 0; i < 4; i++) {
		struct out o = run("decode", files[i][0], HOST, NULL);

		if (o.rc != 0)
			fail_msg("%s: rc %d: %s", files[i][0], o.rc, o.err);
		has(o.out, files[i][1]);
		has(o.out, "verdict     accepted");
		has(o.out, "MXCSR  0x");
		has(o.out, "st7");
		out_free(&o);
	}
}

/*
 * A signal frame from a CPU whose frame is larger than this one's task
 * (signal.bin, 2432 bytes, read as the Zen 3 guest with XCR0 0x7, 832): both
 * magics are there, so it is a signal frame whose size does not fit, and
 * sigreturn would restore x87/SSE only (issue 32 item 11: it was "raw ... no
 * signal-frame magics").
 */
static void test_foreign_signal_frame(void **state)
{
	struct out o = run("decode", IMAGES "signal.bin",
			   "--cpuid=tests/data/cpuid/amd-zen3-kvm.cpuid", NULL);

	has(o.out, "format      signal (signal frame: magic1 at 464, magic2 at 2432; its "
		   "xstate_size 2432 does not fit this CPU's task (832 bytes)");
	has(o.out, "sigframe.xstate_size");
	has(o.out, "FXRSTOR x87/SSE only");
	assert_null(strstr(o.out, "no signal-frame magics"));
	out_free(&o);
}

/* A dump's name and the brand were once printed glued ("genoa.cpuidAMD EPYC"). */
static void test_cpu_line_separator(void **state)
{
	struct out o = run("decode", IMAGES "xsave.bin", "--cpuid=tests/data/cpuid/genoa.cpuid", NULL);

	assert_int_equal(o.rc, 0);
	has(o.out, "genoa.cpuid: AMD EPYC");
	out_free(&o);
}

static void test_json(void **state)
{
	struct out o = run("decode", IMAGES "signal.bin", HOST, "--json", NULL);
	json_error_t je;
	json_t *j, *v;

	assert_int_equal(o.rc, 0);
	j = json_loads(o.out, 0, &je);
	if (!j)
		fail_msg("JSON: %s: %s", je.text, o.out);
	assert_string_equal(json_string_value(json_object_get(j, "format")), "signal");
	v = json_object_get(j, "verdict");
	assert_true(json_is_true(json_object_get(v, "accepted")));
	assert_int_equal(json_array_size(json_object_get(v, "findings")), 0);
	v = json_object_get(json_object_get(j, "registers"), "vectors");
	assert_true(json_array_size(v) == 16 || json_array_size(v) == 32);
	assert_int_equal(json_array_size(json_object_get(json_object_get(j, "x87"), "st")), 8);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "sw_bytes"),
							    "xstate_size")) + 4,
			 json_integer_value(json_object_get(j, "size")));
	json_decref(j);
	out_free(&o);
}

/*
 * The AMX captures (hw/README.md: tiles 0 and 3 hold (i*7+1) & 0xff, the
 * others zero), against their CPU: TILECFG decoded, TILEDATA per tile, the
 * rules named for that Intel CPU, not for an AMD part.
 */
static void test_amx_captures(void **state)
{
	static const char *const files[] = {
		"xsave_std_amx_live.bin", "xsavec_amx_live.bin", "sigframe_xstate_amx_live.bin",
		"ptrace_nt_x86_xstate_amx_live.bin", "xsavec_amx_released.bin",
		"sigframe_xstate_noperm.bin",
	};
	const char *cpuid = "--cpuid=tests/data/amx/spr-amx-kvm.cpuid";

	for (unsigned i = 0; i < FPL_ARRAY_SIZE(files); i++) {
		char path[128];
		bool live = i < 4;
		struct out o, j;
		json_error_t je;
		json_t *doc, *amx, *tiles;

		/* The ptrace dump is of a tracee that had used its tiles (the default assumes none). */
		const char *tracee = strstr(files[i], "ptrace") ? "--tracee=tiles-used" : NULL;

		snprintf(path, sizeof(path), "tests/data/amx/%s", files[i]);
		o = run("decode", path, cpuid, tracee, NULL);
		if (o.rc != 0)
			fail_msg("%s: rc %d: %s", path, o.rc, o.err);
		has(o.out, "verdict     accepted");
		has(o.out, "GenuineIntel family 0x6 model 0xa7");
		assert_null(strstr(o.out, "1Ah"));
		if (live) {
			has(o.out, "AMX TILECFG  a valid configuration: palette 1, start_row 0");
			has(o.out, "tile 7   16 rows x  64 bytes");
			has(o.out, "tile 3  rows 0-15");
			has(o.out, "tile 4  rows none");
		} else {
			has(o.out, "AMX TILEDATA init");
		}
		j = tracee ? run("decode", path, cpuid, "--json", tracee, NULL) :
			     run("decode", path, cpuid, "--json", NULL);
		assert_int_equal(j.rc, 0);
		doc = json_loads(j.out, 0, &je);
		if (!doc)
			fail_msg("JSON: %s", je.text);
		amx = json_object_get(doc, "amx");
		assert_int_equal(json_is_true(json_object_get(json_object_get(amx, "tilecfg"),
								 "valid")), live);
		tiles = json_object_get(json_object_get(amx, "tiledata"), "tiles");
		assert_int_equal(json_array_size(tiles), live ? 8 : 0);
		for (size_t t = 0; t < json_array_size(tiles); t++)
			assert_string_equal(json_string_value(json_object_get(
				json_array_get(tiles, t), "nonzero_rows")),
				t == 0 || t == 3 ? "0xffff" : "0x0");
		json_decref(doc);
		out_free(&o);
		out_free(&j);
	}
	/* --rfbm all is the judged CPU's XCR0, tile data included, whatever this process may use. */
	{
		struct out o = run("decode", "tests/data/amx/xsave_std_amx_live.bin", cpuid,
				   "--rfbm", "all", NULL);

		assert_int_equal(o.rc, 0);
		has(o.out, "RFBM        0x600e7");
		out_free(&o);
	}
	/* The AMD words are there for an AMD CPU: header byte 24 set, judged on the host's dump. */
	{
		char p[128];
		uint8_t one = 1;
		struct out o;

		tmp_path(p, sizeof(p), "amd-header24.bin");
		put_variant(p, "xsave.bin", 536, &one, 1, 0);
		o = run("decode", p, HOST, NULL);
		assert_int_equal(o.rc, 0);
		has(o.out, "AuthenticAMD");
		has(o.out, "header byte 24 is 0x01");
		has(o.out, "measured on AMD family 1Ah");
		out_free(&o);
		assert_int_equal(unlink(p), 0);
	}
}

/* An 11008-byte standard image at path: XSTATE_BV bv, cfg at 2752, tile data 0x5a if in bv. */
static void tilecfg_image(const char *path, uint64_t bv, const uint8_t *cfg)
{
	static uint8_t img[11008];
	FILE *f;

	memset(img, 0, sizeof(img));
	memcpy(img + 512, &bv, 8);
	memcpy(img + 2752, cfg, 64);
	if (bv & 0x40000)
		memset(img + 2816, 0x5a, 8192);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(img, 1, sizeof(img), f), sizeof(img));
	fclose(f);
}

/*
 * `fpulab decode --cpuid <the SPR guest>` of the 64 TILECFG variants
 * (tests/data/amx/tilecfg-truth.txt) in a standard image, as the probe's
 * XRSTOR read them: accepted every time (XRSTOR never faulted),
 * amx.tilecfg.valid exactly when the CPU loaded the configuration; with
 * TILEDATA in XSTATE_BV too, what follows when TILECFG goes to init.
 */
static void test_tilecfg_truth(void **state)
{
	struct tilecfg_truth *v = calloc(TILECFG_TRUTH_N, sizeof(*v));
	const char *cpuid = "--cpuid=tests/data/amx/spr-amx-kvm.cpuid";
	char p[128];

	assert_non_null(v);
	assert_int_equal(tilecfg_truth_read(v), TILECFG_TRUTH_N);
	tmp_path(p, sizeof(p), "tilecfg.bin");
	for (unsigned i = 0; i < TILECFG_TRUTH_N; i++) {
		for (uint64_t bv = 0x20000; bv <= 0x60000; bv += 0x40000) {
			bool data = bv & 0x40000;
			struct out j, o;
			json_error_t je;
			json_t *doc, *amx;
			const char *after;

			tilecfg_image(p, bv, v[i].cfg);
			j = run("decode", p, cpuid, "--format=raw", "--json", NULL);
			if (j.rc != 0)
				fail_msg("%s (XSTATE_BV 0x%llx): rc %d: %s", v[i].name,
					 (unsigned long long)bv, j.rc, j.err);
			doc = json_loads(j.out, 0, &je);
			if (!doc)
				fail_msg("JSON: %s", je.text);
			assert_true(json_is_true(json_object_get(json_object_get(doc, "verdict"),
								 "accepted")));
			amx = json_object_get(doc, "amx");
			if (json_is_true(json_object_get(json_object_get(amx, "tilecfg"), "valid")) !=
			    v[i].loaded)
				fail_msg("%s: amx.tilecfg.valid %s, the CPU %s it", v[i].name,
					 v[i].loaded ? "false" : "true",
					 v[i].loaded ? "loaded" : "did not load");
			after = json_string_value(json_object_get(json_object_get(amx, "tilecfg"),
								  "after_xrstor"));
			assert_non_null(after);
			assert_int_equal(!strncmp(after, "loaded", 6), v[i].loaded);
			assert_int_equal(json_is_true(json_object_get(json_object_get(amx,
				"tiledata"), "unconfigured_after_xrstor")), data && !v[i].loaded);
			json_decref(doc);
			out_free(&j);
			if (!data || v[i].loaded)
				continue;
			/* The table says what follows. */
			o = run("decode", p, cpuid, "--format=raw", NULL);
			assert_int_equal(o.rc, 0);
			has(o.out, "verdict     accepted");
			has(o.out, "xrstor.tiles_unconfigured");
			has(o.out, "TILEDATA restored, but TILECFG goes to init: no tile is "
				   "configured, the next tile instruction (TILESTORED) raises #UD");
			out_free(&o);
		}
	}
	/*
	 * TILECFG alone restored (tile data not in RFBM) over an invalid
	 * config: the task's live tiles, if any, are left unconfigured.
	 */
	{
		struct out o;

		assert_true(v[9].gp);
		tilecfg_image(p, 0x20000, v[9].cfg);
		o = run("decode", p, cpuid, "--format=raw", "--rfbm", "x87,sse,tilecfg", NULL);
		assert_int_equal(o.rc, 0);
		has(o.out, "after XRSTOR: TILECFG init (XINUSE bit 17 clear); TILEDATA not in RFBM: "
			   "TILEDATA stays as the task had it; live tile data is left unconfigured");
		out_free(&o);
	}
	assert_int_equal(unlink(p), 0);
	free(v);
}

/*
 * `fpulab decode --format ptrace --tracee CASE` against the kernel's answers
 * on the Sapphire Rapids guest (tests/data/amx/ptrace-setregset.txt): exit 0
 * where PTRACE_SETREGSET took the image, 2 where it refused it, and the
 * output names the case judged; without --tracee, the strictest, said so.
 */
static void test_ptrace_tracee(void **state)
{
	const char *cpuid = "--cpuid=tests/data/amx/spr-amx-kvm.cpuid";
	FILE *f = fopen("tests/data/amx/ptrace-setregset.txt", "r"), *d;
	static uint8_t dump[16384], img[16384];
	char line[256], p[128];
	unsigned lines = 0;
	size_t n;

	assert_non_null(f);
	d = fopen("tests/data/amx/ptrace_nt_x86_xstate_amx_live.bin", "rb");
	assert_non_null(d);
	n = fread(dump, 1, sizeof(dump), d);
	fclose(d);
	assert_int_equal(n, 11008);
	tmp_path(p, sizeof(p), "ptrace.bin");
	while (fgets(line, sizeof(line), f)) {
		char tracee[16], answer[16], opt[40];
		unsigned long long bv;
		unsigned len;
		struct out o;
		json_error_t je;
		json_t *doc;
		FILE *w;

		if (line[0] == '#')
			continue;
		assert_int_equal(sscanf(line, "%15s %u %llx %15s", tracee, &len, &bv, answer), 4);
		memset(img, 0, sizeof(img));
		memcpy(img, dump, n);
		memcpy(img + 512, &bv, 8);
		w = fopen(p, "wb");
		assert_non_null(w);
		assert_int_equal(fwrite(img, 1, len, w), len);
		fclose(w);
		snprintf(opt, sizeof(opt), "--tracee=%s", tracee);
		o = run("decode", p, cpuid, "--format=ptrace", opt, "--json", NULL);
		if (o.rc != (strcmp(answer, "0") ? 2 : 0))
			fail_msg("%s: exit %d, the kernel answered %s: %s", line, o.rc, answer, o.err);
		doc = json_loads(o.out, 0, &je);
		if (!doc)
			fail_msg("JSON: %s", je.text);
		assert_string_equal(json_string_value(json_object_get(json_object_get(doc,
			"ptrace_tracee"), "case")), tracee);
		if (!strcmp(answer, "EINVAL"))
			has(o.err, "ptrace.xstate_bv_unused");
		if (!strcmp(answer, "EFAULT"))
			has(o.err, "ptrace.size");
		json_decref(doc);
		out_free(&o);
		lines++;
	}
	fclose(f);
	assert_int_equal(lines, 30);
	/* The captured dump (tiles live), judged without --tracee: the strictest case, named. */
	{
		struct out o = run("decode", "tests/data/amx/ptrace_nt_x86_xstate_amx_live.bin", cpuid,
				   NULL);

		assert_int_equal(o.rc, 2);
		has(o.out, "tracee      no-perm: a tracee without AMX permission (the default, the "
			   "strictest; --tracee names another); XSTATE_BV may hold 0x200e7");
		has(o.err, "ptrace.xstate_bv_unused");
		out_free(&o);
		o = run("decode", "tests/data/amx/ptrace_nt_x86_xstate_amx_live.bin", cpuid,
			"--tracee", "perm-unused", NULL);
		assert_int_equal(o.rc, 2);
		has(o.out, "tracee      perm-unused");
		out_free(&o);
		o = run("decode", "tests/data/amx/ptrace_nt_x86_xstate_amx_live.bin", cpuid,
			"--tracee", "used", NULL);
		assert_int_equal(o.rc, 2);
		assert_string_equal(o.out, "");
		has(o.err, "--tracee 'used'");
		out_free(&o);
	}
	assert_int_equal(unlink(p), 0);
}

static void test_rejected_names_rule_and_offset(void **state)
{
	char p[128];
	uint64_t one = 1;
	struct out o;
	json_t *j;

	tmp_path(p, sizeof(p), "bad.bin");
	put_variant(p, "xsave.bin", 520, &one, 8, 0);	/* XCOMP_BV = 1 */
	o = run("decode", p, HOST, NULL);
	assert_int_equal(o.rc, 2);
	has(o.out, "REJECTED");
	has(o.err, "xrstor.xcomp_bv at byte 520");
	has(o.err, p);
	out_free(&o);
	o = run("decode", p, HOST, "--json", NULL);
	assert_int_equal(o.rc, 2);
	j = json_loads(o.out, 0, NULL);
	assert_non_null(j);
	assert_true(json_is_false(json_object_get(json_object_get(j, "verdict"), "accepted")));
	json_decref(j);
	out_free(&o);
	/* A signal frame without its second magic: the kernel's rule. */
	put_variant(p, "signal.bin", 0, NULL, 0, 2432);
	o = run("decode", p, HOST, "--format", "signal", NULL);
	assert_int_equal(o.rc, 2);
	has(o.err, "sigframe.magic2 at byte 2432");
	out_free(&o);
	unlink(p);
}

static void test_bad_input(void **state)
{
	static const char *const cases[][5] = {
		/* args..., text the message must contain */
		{ "/nonexistent/img.bin", NULL, NULL, "/nonexistent/img.bin" },
		{ IMAGES "xsave.bin", "--format", "xml", "'xml'" },
		{ IMAGES "xsave.bin", "--rfbm", "bogus", "bogus" },
		{ IMAGES "xsave.bin", "--cpuid", "/nonexistent/cpu", "/nonexistent/cpu" },
		{ IMAGES "xsave.bin", "--to", "sideways", "sideways" },
		{ IMAGES "xsave.bin", "--to", "compacted", "-o" },
		{ IMAGES, NULL, NULL, "directory" },
		{ IMAGES "xsave.bin", IMAGES "xsave.bin", NULL, "extra" },
		{ "--frobnicate", NULL, NULL, "--frobnicate" },
	};
	char p[128];
	struct out o;

	for (unsigned i = 0; i < FPL_ARRAY_SIZE(cases); i++) {
		o = run("decode", cases[i][0], cases[i][1], cases[i][2], NULL);
		if (o.rc != 2)
			fail_msg("case %u: rc %d", i, o.rc);
		has(o.err, cases[i][3]);
		out_free(&o);
	}
	o = run("decode", NULL);
	assert_int_equal(o.rc, 2);
	has(o.err, "IMAGE");
	out_free(&o);
	tmp_path(p, sizeof(p), "short.bin");
	put_variant(p, "xsave.bin", 0, NULL, 0, 100);
	o = run("decode", p, NULL);
	assert_int_equal(o.rc, 2);
	has(o.err, p);
	has(o.err, "100 bytes");
	out_free(&o);
	unlink(p);
}

static void test_convert_output(void **state)
{
	char out[128], bad[128];
	uint64_t one = 1;
	struct stat st;
	struct out o;
	char *kept;

	tmp_path(out, sizeof(out), "conv.bin");
	o = run("decode", IMAGES "signal.bin", HOST, "--to", "compacted", "-o", out, NULL);
	if (o.rc)
		fail_msg("rc %d: %s", o.rc, o.err);
	out_free(&o);
	assert_int_equal(stat(out, &st), 0);
	assert_true(st.st_size >= 576 && st.st_size <= 2432);
	o = run("decode", out, HOST, NULL);
	assert_int_equal(o.rc, 0);
	has(o.out, "format      compacted");
	out_free(&o);
	/* Back to standard: the same registers as the original frame. */
	o = run("decode", out, HOST, "--to", "standard", "-o", out, NULL);
	assert_int_equal(o.rc, 0);
	out_free(&o);
	assert_int_equal(stat(out, &st), 0);
	assert_int_equal(st.st_size, 2432);

	/* A rejected image: exit 2, the existing file untouched, no temporary left. */
	tmp_path(bad, sizeof(bad), "bad.bin");
	put_variant(bad, "xsave.bin", 520, &one, 8, 0);
	put_variant(out, "xsave.bin", 0, "keep", 4, 4);
	o = run("decode", bad, HOST, "--to", "compacted", "-o", out, NULL);
	assert_int_equal(o.rc, 2);
	has(o.err, "not written");
	out_free(&o);
	kept = cmd_slurp(out, NULL);
	assert_non_null(kept);
	assert_string_equal(kept, "keep");
	free(kept);
	assert_int_equal(tmp_entries(), 2);
	/* An output directory that does not exist: exit 2 naming it, nothing created. */
	o = run("decode", IMAGES "xsave.bin", HOST, "--to", "standard", "-o",
		"/nonexistent/dir/x.bin", NULL);
	assert_int_equal(o.rc, 2);
	has(o.err, "/nonexistent/dir/x.bin");
	out_free(&o);
	unlink(bad);
	unlink(out);
}

/* SIGINT at any moment of a conversion leaves no file or a whole one, and no temporary. */
static void test_sigint_leaves_no_partial_file(void **state)
{
	unsigned whole = 0, none = 0;
	char out[128];

	tmp_path(out, sizeof(out), "int.bin");
	for (unsigned i = 0; i < 30; i++) {
		struct stat st;

		unlink(out);
		{
			const char *argv[] = { cmd_fpl_bin(), "decode", IMAGES "xsave.bin", HOST,
					       "--to", "compacted", "-o", out, NULL };
			struct cmd_out o;

			/* A run takes tens of ms (most of it fsync): spread the signal over all of it. */
			assert_int_equal(cmd_run_sig(argv, 60, SIGINT, 0.004 * i, &o), 0);
			cmd_out_free(&o);
		}
		if (stat(out, &st) == 0) {
			assert_int_equal(st.st_size, 2432);
			whole++;
		} else {
			none++;
		}
		assert_int_equal(tmp_entries(), whole + none > 0 && stat(out, &st) == 0 ? 1 : 0);
	}
	printf("SIGINT during conversion: %u runs left the whole file, %u none, 0 partial\n",
	       whole, none);
	unlink(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accepts_captures),
		cmocka_unit_test(test_cpu_line_separator),
		cmocka_unit_test(test_foreign_signal_frame),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_amx_captures),
		cmocka_unit_test(test_tilecfg_truth),
		cmocka_unit_test(test_ptrace_tracee),
		cmocka_unit_test(test_rejected_names_rule_and_offset),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_convert_output),
		cmocka_unit_test(test_sigint_leaves_no_partial_file),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
