/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Test helper: a directory of good and bad input files, and a check that a command left them alone. */
#ifndef FPL_TESTS_FIXTURES_H
#define FPL_TESTS_FIXTURES_H

#include <dirent.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

struct fixture {
	const char *name;	/* "@OUT" in a command line */
	const char *file;	/* name in the directory */
	const char *text;	/* content; NULL for the special kinds below */
	size_t len;		/* 0: strlen(text) */
};

/* A valid standard XSAVE image, x87 and SSE in their init values, is built at run time. */
static const struct fixture fx_table[] = {
	{ "@OUT", "out.json", "{\"sentinel\": \"must survive\"}\n", 0 },
	{ "@EMPTY", "empty", "", 0 },
	{ "@TEXT", "text.txt", "hello world\nthis is not a number\n", 0 },
	{ "@GARBAGE", "garbage.bin", "\x7f" "ELF\x02\x01\x01\0\0\0\xff\xfe{[\"\n\x80\x81\0\x01", 20 },
	{ "@BADDUMP", "bad.cpuid", "# fpulab cpuid dump 1\ncpuid 0x00000001 0x00 zz\n", 0 },
	{ "@JSON", "other.json", "{\"schema\": \"not-fpulab/9\", \"runs\": 5}\n", 0 },
	{ "@BADJSON", "trunc.json", "{\"schema\": \"fpulab/1\", \"host\": {}, \"runs\": [{\"bench\":", 0 },
	{ "@NUMS", "nums.txt", "# ms\n10\n11\n12\n10.5\n11.5\n12.5\n10.2\n11.1\n", 0 },
	{ "@INF", "inf.txt", "10\n11\ninf\n12\n", 0 },
	{ "@WIS", "wis.log", "testcase:Context switch via pipes\nwarmup\nmin:100 max:120 total:220\n"
			     "measurement\nmin:100 max:120 total:220\naverage:110.5\n", 0 },
	{ "@WISNOAVG", "wis-noavg.log", "testcase:Context switch via pipes\nwarmup\n", 0 },
	{ "@IMAGE", "image.xsave", NULL, 576 },
};

#define FX_N (sizeof(fx_table) / sizeof(fx_table[0]))

struct fixtures {
	char dir[256];
	char pool[16][512];	/* substituted arguments */
	unsigned npool;
};

static inline void fx_path(const struct fixtures *fx, const char *file, char *out, size_t n)
{
	snprintf(out, n, "%s/%s", fx->dir, file);
}

static inline void fx_image(uint8_t img[576])
{
	const uint32_t mxcsr = 0x1f80;
	const uint16_t fcw = 0x37f;
	const uint64_t xstate_bv = 3;

	memset(img, 0, 576);
	memcpy(img, &fcw, 2);
	memcpy(img + 24, &mxcsr, 4);
	memcpy(img + 512, &xstate_bv, 8);
}

static inline void fx_content(const struct fixture *f, const void **p, size_t *len)
{
	static uint8_t img[576];

	if (!f->text) {
		fx_image(img);
		*p = img;
		*len = sizeof(img);
		return;
	}
	*p = f->text;
	*len = f->len ? f->len : strlen(f->text);
}

static inline void fx_create(struct fixtures *fx)
{
	char path[600];

	fx->npool = 0;
	snprintf(fx->dir, sizeof(fx->dir), "%s/fpl-fx-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(fx->dir));
	for (size_t i = 0; i < FX_N; i++) {
		const void *p;
		size_t len;
		FILE *f;

		fx_path(fx, fx_table[i].file, path, sizeof(path));
		fx_content(&fx_table[i], &p, &len);
		f = fopen(path, "wb");
		assert_non_null(f);
		assert_int_equal(fwrite(p, 1, len, f), len);
		fclose(f);
	}
	fx_path(fx, "subdir", path, sizeof(path));
	assert_int_equal(mkdir(path, 0755), 0);
}

/* "@NAME" or "@NAME/rest" to a path; @NOFILE, @DIR and @NODIR are names that are not files. */
static inline const char *fx_subst(struct fixtures *fx, const char *arg)
{
	static const char *const special[][2] = {
		{ "@NOFILE", "no-such-file" }, { "@DIR", "subdir" }, { "@NODIR", "no-such-dir" },
	};
	char *out;

	if (arg[0] != '@' || fx->npool >= 16)
		return arg;
	out = fx->pool[fx->npool++];
	for (size_t i = 0; i < FX_N + 3; i++) {
		const char *name = i < FX_N ? fx_table[i].name : special[i - FX_N][0];
		const char *file = i < FX_N ? fx_table[i].file : special[i - FX_N][1];
		size_t n = strlen(name);

		if (!strncmp(arg, name, n) && (!arg[n] || arg[n] == '/')) {
			char tmp[512];

			snprintf(tmp, sizeof(tmp), "%s/%s%s", fx->dir, file, arg + n);
			memcpy(out, tmp, sizeof(tmp));
			return out;
		}
	}
	return arg;
}

static inline bool fx_same(const char *path, const void *p, size_t len)
{
	FILE *f = fopen(path, "rb");
	char *buf = malloc(len + 1);
	size_t got;
	bool same;

	if (!f || !buf) {
		if (f)
			fclose(f);
		free(buf);
		return false;
	}
	got = fread(buf, 1, len + 1, f);
	fclose(f);
	same = got == len && !memcmp(buf, p, len);
	free(buf);
	return same;
}

/*
 * Every fixture as it was, nothing added (no output, no temporary file left
 * behind). Reports each difference through report(); true when none.
 */
static inline bool fx_untouched(const struct fixtures *fx, const char *what,
				void (*report)(const char *fmt, ...))
{
	char path[600];
	struct dirent *d;
	bool ok = true;
	DIR *dir;

	for (size_t i = 0; i < FX_N; i++) {
		const void *p;
		size_t len;

		fx_path(fx, fx_table[i].file, path, sizeof(path));
		fx_content(&fx_table[i], &p, &len);
		if (!fx_same(path, p, len)) {
			report("%s: %s (%s) was changed or removed", what, fx_table[i].name,
			       fx_table[i].file);
			ok = false;
		}
	}
	dir = opendir(fx->dir);
	assert_non_null(dir);
	while ((d = readdir(dir))) {
		bool known = !strcmp(d->d_name, ".") || !strcmp(d->d_name, "..") ||
			     !strcmp(d->d_name, "subdir");

		for (size_t i = 0; i < FX_N && !known; i++)
			known = !strcmp(d->d_name, fx_table[i].file);
		if (!known) {
			report("%s: left a file behind: %s", what, d->d_name);
			ok = false;
		}
	}
	closedir(dir);
	fx_path(fx, "subdir", path, sizeof(path));
	dir = opendir(path);
	assert_non_null(dir);
	while ((d = readdir(dir)))
		if (strcmp(d->d_name, ".") && strcmp(d->d_name, "..")) {
			report("%s: wrote into a directory: subdir/%s", what, d->d_name);
			ok = false;
		}
	closedir(dir);
	return ok;
}

/* Remove the directory and whatever is in it (one level, and subdir). */
static inline void fx_destroy(struct fixtures *fx)
{
	char path[1024];
	struct dirent *d;
	const char *sub[] = { "subdir", "" };

	for (size_t s = 0; s < 2; s++) {
		char dpath[300];
		DIR *dir;

		snprintf(dpath, sizeof(dpath), "%s/%s", fx->dir, sub[s]);
		dir = opendir(dpath);
		if (!dir)
			continue;
		while ((d = readdir(dir))) {
			if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dpath, d->d_name);
			if (unlink(path))
				rmdir(path);
		}
		closedir(dir);
		rmdir(dpath);
	}
}

/*
 * Table-driven tests report every failing row (bad() prints it and counts),
 * then assert that the count is zero, so one run lists all broken rows.
 */
static unsigned failures;

static void bad(const char *fmt, ...) __attribute__((format(printf, 1, 2), unused));

static void bad(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("FAIL: ", stdout);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	va_end(ap);
	failures++;
}

#endif
