// SPDX-License-Identifier: GPL-3.0-or-later
/* AMX captures of a Sapphire Rapids guest: palette, masks, layouts vs dmesg, TILECFG, TILEDATA. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fpulab/amx.h"
#include "fpulab/image.h"
#include "fpulab/model.h"
#include "fpulab/xstate.h"
#include "tilecfg_truth.h"

#define DATA "tests/data/amx/"
#define CPUID_DATA "tests/data/cpuid/"

struct dump {
	struct fpl_cpu cpu;
	struct fpl_xstate xs;
};

static struct dump *load(const char *path)
{
	struct dump *d = malloc(sizeof(*d));
	struct fpl_diag diag = {""};

	assert_non_null(d);
	if (fpl_cpu_load(&d->cpu, path, &diag))
		fail_msg("%s: %s", path, diag.msg);
	assert_int_equal(fpl_xstate_init(&d->xs, &d->cpu), 0);
	return d;
}

static unsigned char *read_bin(const char *name, size_t *n)
{
	char path[256];
	FILE *f;
	unsigned char *buf;
	long len;

	snprintf(path, sizeof(path), DATA "%s", name);
	f = fopen(path, "rb");
	if (!f)
		fail_msg("%s: cannot open", path);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)len);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	*n = (size_t)len;
	return buf;
}

static uint64_t get64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static uint32_t get32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* 0x1D.1 EAX 0x04002000, EBX 0x00080040, ECX 0x10; 0x1E.0 EBX 0x4010. */
static void test_palette_from_dump(void **state)
{
	struct dump *d = load(DATA "spr-amx-kvm.cpuid");
	struct fpl_amx_palette p;
	const char *why = NULL;

	assert_int_equal(fpl_amx_palette(&d->cpu, &p, NULL), 0);
	assert_true(p.valid);
	assert_int_equal(p.max_palette, 1);
	assert_int_equal(p.max_names, 8);
	assert_int_equal(p.max_rows, 16);
	assert_int_equal(p.bytes_per_row, 64);
	assert_int_equal(p.bytes_per_tile, 1024);
	assert_int_equal(p.total_tile_bytes, 8192);
	assert_int_equal(p.tmul_maxk, 16);
	assert_int_equal(p.tmul_maxn, 64);
	assert_memory_equal(&p, &d->xs.amx, sizeof(p));
	assert_int_equal(fpl_amx_supported(&d->xs, &why), 1);
	assert_null(why);
	free(d);
}

/* A CPU without AMX: a clean -ENOTSUP with a reason everywhere, nothing executed. */
static void test_no_amx(void **state)
{
	struct dump *d = load(CPUID_DATA "genoa.cpuid");
	struct fpl_diag diag = {""};
	struct fpl_amx_palette p;
	unsigned char cfg[64];
	const char *why = NULL;

	assert_int_equal(fpl_amx_palette(&d->cpu, &p, &diag), -ENOTSUP);
	assert_non_null(strstr(diag.msg, "no AMX"));
	assert_false(d->xs.amx.valid);
	assert_int_equal(fpl_amx_supported(&d->xs, &why), 0);
	assert_non_null(why);
	assert_int_equal(fpl_amx_request_perm(&d->xs, NULL, NULL, &diag), -EOPNOTSUPP);
	assert_int_equal(fpl_amx_first_use(&d->xs, &diag), -ENOTSUP);
	assert_int_equal(fpl_amx_release(&d->xs), -ENOTSUP);
	assert_int_equal(fpl_tilecfg_make(&d->xs.amx, cfg), -ENOTSUP);
	/* No XFD component: the three masks are XCR0. */
	assert_int_equal(fpl_xstate_xfd_mask(&d->xs), 0);
	assert_int_equal(fpl_xstate_permitted(&d->xs), d->xs.xcr0);
	assert_int_equal(fpl_xstate_active(&d->xs), d->xs.xcr0);
	free(d);
}

/*
 * From a dump the kernel cannot be asked: permitted and active are the
 * default, XCR0 0x600e7 minus TILEDATA, whose standard size is the 2816 of
 * the captured frames without permission.
 */
static void test_masks_from_dump(void **state)
{
	struct dump *d = load(DATA "spr-amx-kvm.cpuid");
	struct fpl_xstate_masks m;
	const struct fpl_xstate *xs = &d->xs;

	assert_false(xs->live);
	assert_int_equal(fpl_xstate_xcr0(xs), 0x600e7);
	assert_int_equal(fpl_xstate_xfd_mask(xs), FPL_XFEATURE_MASK_XTILE_DATA);
	assert_int_equal(fpl_xstate_default_perm(xs), 0x200e7);
	assert_int_equal(fpl_xstate_permitted(xs), 0x200e7);
	assert_int_equal(fpl_xstate_active(xs), 0x200e7);
	assert_int_equal(fpl_xstate_masks(xs, &m), 0);
	assert_int_equal(m.xcr0, 0x600e7);
	assert_int_equal(m.permitted, 0x200e7);
	assert_int_equal(m.active, 0x200e7);
	assert_int_not_equal(m.perm_err, 0);
	assert_non_null(strstr(m.active_from, "dump"));
	assert_int_equal(fpl_xstate_size_std(xs, m.active), 2816);
	assert_int_equal(fpl_xstate_size_compacted(xs, m.active), 2496);
	assert_int_equal(fpl_xstate_size_std(xs, m.xcr0), 11008);
	assert_int_equal(fpl_xstate_size_compacted(xs, m.xcr0), 10688);
	free(d);
}

/* "all" is the permitted set: from this dump, without tile data. */
static void test_parse_all_is_permitted(void **state)
{
	struct dump *d = load(DATA "spr-amx-kvm.cpuid");
	uint64_t m = 0;

	assert_int_equal(fpl_xstate_parse_mask(&d->xs, "all", &m, NULL), 0);
	assert_int_equal(m, 0x200e7);
	assert_int_equal(fpl_xstate_parse_mask(&d->xs, "amx", &m, NULL), 0);
	assert_int_equal(m, FPL_XFEATURE_MASK_XTILE);
	free(d);
}

/*
 * The kernel's boot lines (dmesg-fpu.txt): "xstate_offset[N]: O,
 * xstate_sizes[N]: S" in the compacted format and the context size. The
 * layout computed from cpuid.txt must give the same numbers.
 */
static void test_layout_equals_dmesg(void **state)
{
	struct dump *d = load(DATA "spr-amx-kvm.cpuid");
	FILE *f = fopen(DATA "dmesg-fpu.txt", "r");
	char line[256];
	unsigned n = 0, id, off, size, ctx = 0;
	unsigned long long feat = 0;
	uint64_t seen = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, "xstate_offset[");
		const char *e = strstr(line, "Enabled xstate features");

		if (p && sscanf(p, "xstate_offset[%u]: %u, xstate_sizes[%*u]: %u", &id, &off,
				&size) == 3) {
			assert_true(id < FPL_XFEATURE_MAX);
			assert_int_equal(fpl_xstate_offset_compacted(&d->xs, d->xs.xcr0, id), off);
			assert_int_equal(d->xs.comp[id].size, size);
			seen |= 1ull << id;
			n++;
		}
		if (e)
			assert_int_equal(sscanf(e,
						"Enabled xstate features %llx, context size is %u",
						&feat, &ctx),
					 2);
	}
	fclose(f);
	assert_int_equal(n, 6);
	assert_int_equal(seen, d->xs.xcr0 & ~FPL_XFEATURE_MASK_FPSSE);
	assert_int_equal(feat, d->xs.xcr0);
	assert_int_equal(ctx, fpl_xstate_size_compacted(&d->xs, d->xs.xcr0));
	free(d);
}

static void test_tilecfg_rules(void **state)
{
	struct dump *d = load(DATA "spr-amx-kvm.cpuid");
	const struct fpl_amx_palette *p = &d->xs.amx;
	unsigned char cfg[64], bad[64];
	struct fpl_tilecfg c;
	const char *why = NULL;

	assert_int_equal(fpl_tilecfg_make(p, cfg), 0);
	assert_int_equal(fpl_tilecfg_check(p, cfg, &why), 1);
	fpl_tilecfg_decode(cfg, &c);
	assert_int_equal(c.palette, 1);
	assert_int_equal(c.start_row, 0);
	assert_true(c.reserved_zero);
	for (unsigned i = 0; i < 16; i++) {
		assert_int_equal(c.rows[i], i < 8 ? 16 : 0);
		assert_int_equal(c.colsb[i], i < 8 ? 64 : 0);
	}
	memset(bad, 0, 64);
	assert_int_equal(fpl_tilecfg_check(p, bad, &why), 0); /* palette 0: init */
	/* Each of METHOD.md's invalid configurations: XRSTOR loads them as init. */
	memcpy(bad, cfg, 64);
	bad[0] = 2;
	assert_int_equal(fpl_tilecfg_check(p, bad, &why), -EINVAL);
	assert_non_null(strstr(why, "palette"));
	memcpy(bad, cfg, 64);
	bad[5] = 1;
	assert_int_equal(fpl_tilecfg_check(p, bad, &why), -EINVAL);
	assert_non_null(strstr(why, "reserved"));
	memcpy(bad, cfg, 64);
	bad[16] = 65;
	assert_int_equal(fpl_tilecfg_check(p, bad, &why), -EINVAL);
	assert_non_null(strstr(why, "colsb"));
	memcpy(bad, cfg, 64);
	bad[48 + 3] = 17;
	assert_int_equal(fpl_tilecfg_check(p, bad, &why), -EINVAL);
	assert_non_null(strstr(why, "rows"));
	memcpy(bad, cfg, 64);
	bad[48 + 8] = 1;
	assert_int_equal(fpl_tilecfg_check(p, bad, &why), -EINVAL);
	assert_non_null(strstr(why, "tile 8"));
	/* Smaller tiles are valid. */
	memcpy(bad, cfg, 64);
	bad[16] = 4;
	bad[48] = 1;
	assert_int_equal(fpl_tilecfg_check(p, bad, &why), 1);
	free(d);
}

/* The findings of img with this rule. */
static unsigned count_rule(const struct fpl_image *img, const char *rule)
{
	unsigned n = 0;

	for (unsigned k = 0; k < img->nfindings; k++)
		n += !strcmp(img->findings[k].rule, rule);
	return n;
}

/*
 * The 64 TILECFG variants the Sapphire Rapids guest judged
 * (tests/data/amx/tilecfg-truth.txt): fpl_tilecfg_check says what LDTILECFG
 * did (#GP: -EINVAL; palette 0: 0, TILECFG to init; loaded: 1), and the
 * decoder what XRSTOR did: never a fault, the configuration loaded exactly
 * when the CPU loaded it, else init with a note; with tile data in the
 * image too, the note that the tiles are then unconfigured.
 */
static void test_tilecfg_truth_replay(void **state)
{
	struct tilecfg_truth *v = calloc(TILECFG_TRUTH_N, sizeof(*v));
	struct dump *d = load(DATA "spr-amx-kvm.cpuid");
	struct fpl_image *img = malloc(sizeof(*img));
	unsigned char *buf = fpl_xstate_alloc(11008);
	struct fpl_image_cfg cfg;
	struct fpl_image_tiles t;
	unsigned loaded = 0, gp = 0;

	assert_non_null(v);
	assert_non_null(img);
	assert_non_null(buf);
	assert_int_equal(tilecfg_truth_read(v), TILECFG_TRUTH_N);
	fpl_image_cfg_init(&cfg, &d->cpu, &d->xs);
	cfg.format = FPL_IMAGE_STANDARD;
	for (unsigned i = 0; i < TILECFG_TRUTH_N; i++) {
		const char *why = NULL;
		int check = fpl_tilecfg_check(&d->xs.amx, v[i].cfg, &why);
		int want = v[i].gp ? -EINVAL : v[i].loaded ? 1 : 0;

		if (check != want)
			fail_msg("%s: fpl_tilecfg_check %d (%s), the CPU: LDTILECFG %s, XRSTOR %s",
				 v[i].name, check, why ? why : "-", v[i].gp ? "#GP" : "ok",
				 v[i].loaded ? "loaded" : "init");
		assert_int_equal(check < 0, why != NULL);
		loaded += v[i].loaded;
		gp += v[i].gp;
		/* As the probe's XRSTOR read it: XSTATE_BV 0x20000, the config at 2752. */
		for (uint64_t bv = 0x20000; bv <= 0x60000; bv += 0x40000) {
			memset(buf, 0, 11008);
			memcpy(buf + 512, &bv, 8);
			memcpy(buf + 2752, v[i].cfg, 64);
			if (bv & FPL_XFEATURE_MASK_XTILE_DATA)
				memset(buf + 2816, 0x5a, 8192);
			assert_int_equal(fpl_image_decode(buf, 11008, &cfg, img, NULL), 0);
			if (fpl_image_rejected(img))
				fail_msg("%s: rejected (%s); XRSTOR took every variant", v[i].name,
					 fpl_image_first_rejection(img)->msg);
			assert_int_equal(fpl_image_tiles(img, &t), 0);
			assert_true(t.cfg_restored);
			if (t.cfg_loads != v[i].loaded)
				fail_msg("%s: decode says TILECFG %s, XRSTOR %s it", v[i].name,
					 t.cfg_loads ? "loads" : "goes to init",
					 v[i].loaded ? "loaded" : "did not load");
			assert_int_equal(count_rule(img, "xrstor.tilecfg"), v[i].gp);
			assert_int_equal(t.data_unconfigured,
					 (bv & FPL_XFEATURE_MASK_XTILE_DATA) && !v[i].loaded);
			assert_int_equal(count_rule(img, "xrstor.tiles_unconfigured"),
					 t.data_unconfigured);
		}
	}
	assert_int_equal(loaded, 24);
	assert_int_equal(gp, 36);
	free(buf);
	free(img);
	free(d);
	free(v);
}

/*
 * PTRACE_SETREGSET NT_X86_XSTATE as the Sapphire Rapids guest's kernel
 * answered it (tests/data/amx/ptrace-setregset.txt), by the tracee's case:
 * the validator, told the case, refuses exactly what the kernel refused,
 * with EFAULT's rule (ptrace.size) or EINVAL's (tile data before the
 * tracee's first tile use). The images are the captured dump of a tracee
 * with tiles live, cut to iov_len, its XSTATE_BV set as the line says.
 */
static void test_ptrace_tracee_replay(void **state)
{
	struct dump *d = load(DATA "spr-amx-kvm.cpuid");
	struct fpl_image *img = malloc(sizeof(*img));
	FILE *f = fopen(DATA "ptrace-setregset.txt", "r");
	unsigned char *buf, *dump;
	struct fpl_image_cfg cfg;
	unsigned lines = 0, per_case[FPL_TRACEE_NR] = { 0 };
	char line[256];
	size_t n;

	assert_non_null(img);
	assert_non_null(f);
	dump = read_bin("ptrace_nt_x86_xstate_amx_live.bin", &n);
	assert_int_equal(n, 11008);
	buf = fpl_xstate_alloc(16384);
	assert_non_null(buf);
	fpl_image_cfg_init(&cfg, &d->cpu, &d->xs);
	assert_int_equal(cfg.tracee, FPL_TRACEE_NO_PERM);	/* the default: the strictest */
	cfg.format = FPL_IMAGE_PTRACE;
	while (fgets(line, sizeof(line), f)) {
		char tracee[16], answer[16];
		unsigned long long bv;
		unsigned len;
		int t, off = 0;
		const struct fpl_image_finding *first;

		if (line[0] == '#')
			continue;
		line[strcspn(line, "\n")] = 0;
		assert_int_equal(sscanf(line, "%15s %u %llx %15s %n", tracee, &len, &bv, answer,
					&off), 4);
		t = fpl_ptrace_tracee_by_name(tracee);
		assert_true(t >= 0);
		assert_true(len <= 16384);
		memset(buf, 0, 16384);
		memcpy(buf, dump, n);
		memcpy(buf + 512, &bv, 8);
		cfg.tracee = (enum fpl_ptrace_tracee)t;
		assert_int_equal(fpl_image_decode(buf, len, &cfg, img, NULL), 0);
		assert_int_equal(img->tracee, t);
		first = fpl_image_first_rejection(img);
		if (img->kernel_rejects != !!strcmp(answer, "0"))
			fail_msg("%s: %s: the kernel answered %s, the validator %s (%s)", tracee,
				 line + off, answer, img->kernel_rejects ? "refuses" : "accepts",
				 img->nfindings ? first->rule : "no findings");
		if (!strcmp(answer, "EFAULT"))
			assert_string_equal(first->rule, "ptrace.size");
		else if (!strcmp(answer, "EINVAL"))
			assert_string_equal(first->rule, "ptrace.xstate_bv_unused");
		lines++;
		per_case[t]++;
	}
	fclose(f);
	assert_int_equal(lines, 30);
	for (unsigned t = 0; t < FPL_TRACEE_NR; t++)
		assert_int_equal(per_case[t], 10);
	/* What the tracee may hold, case by case: tile data only once used; TILECFG always. */
	assert_int_equal(img->ptrace_features, 0x600e7);
	cfg.tracee = FPL_TRACEE_PERM_UNUSED;
	assert_int_equal(fpl_image_decode(buf, 11008, &cfg, img, NULL), 0);
	assert_int_equal(img->ptrace_features, 0x200e7);
	assert_string_equal(fpl_ptrace_tracee_name(FPL_TRACEE_PERM_UNUSED), "perm-unused");
	assert_int_equal(fpl_ptrace_tracee_by_name("tiles-used"), FPL_TRACEE_USED);
	assert_int_equal(fpl_ptrace_tracee_by_name("used"), -1);
	free(dump);
	free(buf);
	free(img);
	free(d);
}

/* hw/README.md: tiles 0 and 3 hold (i*7+1) & 0xff for i = 0..1023, the other tiles zero. */
static void check_tiles(const unsigned char *data, size_t n, const char *what)
{
	struct fpl_tile_summary s[16];
	unsigned char expect[1024], zero[1024];
	int nt = fpl_tiledata_summarise(NULL, data, n, s, 16);

	for (unsigned i = 0; i < 1024; i++)
		expect[i] = (unsigned char)((i * 7 + 1) & 0xff);
	memset(zero, 0, sizeof(zero));
	assert_int_equal(nt, 8);
	for (unsigned t = 0; t < 8; t++) {
		bool live = t == 0 || t == 3;

		if (s[t].nonzero_rows != (live ? 0xffffu : 0))
			fail_msg("%s: tile %u non-zero rows 0x%llx", what, t,
				 (unsigned long long)s[t].nonzero_rows);
		assert_int_equal(s[t].rows, 16);
		assert_memory_equal(data + 1024 * t, live ? expect : zero, 1024);
		assert_int_equal(s[t].checksum, fpl_fnv1a32(live ? expect : zero, 1024));
	}
	assert_int_not_equal(s[0].checksum, s[1].checksum);
}

static void check_cfg(const unsigned char *cfg)
{
	struct fpl_tilecfg c;

	assert_int_equal(fpl_tilecfg_check(NULL, cfg, NULL), 1);
	fpl_tilecfg_decode(cfg, &c);
	assert_int_equal(c.palette, 1);
	for (unsigned i = 0; i < 8; i++) {
		assert_int_equal(c.rows[i], 16);
		assert_int_equal(c.colsb[i], 64);
	}
}

static void test_captured_standard_images(void **state)
{
	struct dump *d = load(DATA "spr-amx-kvm.cpuid");
	static const char *const names[] = {"xsave_std_amx_live.bin",
					    "ptrace_nt_x86_xstate_amx_live.bin",
					    "sigframe_xstate_amx_live.bin"};
	int64_t cfg = fpl_xstate_offset_std(&d->xs, FPL_XFEATURE_XTILE_CFG),
		data = fpl_xstate_offset_std(&d->xs, FPL_XFEATURE_XTILE_DATA);

	assert_int_equal(cfg, 2752);
	assert_int_equal(data, 2816);
	for (unsigned i = 0; i < 3; i++) {
		size_t n;
		unsigned char *img = read_bin(names[i], &n);

		assert_true(n >= 11008);
		assert_int_equal(get64(img + 512), 0x600a3);
		assert_int_equal(get64(img + 520), 0);
		check_cfg(img + cfg);
		check_tiles(img + data, 8192, names[i]);
		free(img);
	}
	free(d);
}

/*
 * The reader a signal handler uses (fpl_image_sw_live) on a real frame:
 * the software bytes as written, magic2 found; a frame whose magic1 is
 * wrong or whose xstate_size is below legacy area + header has no magic2
 * read (the size is not trusted).
 */
static void live_sw_agrees(unsigned char *img, uint64_t xfeatures, uint32_t size)
{
	struct fpl_image_sw sw;
	uint32_t keep;

	fpl_image_sw_live(img, &sw);
	assert_int_equal(sw.magic1, FPL_FP_XSTATE_MAGIC1);
	assert_int_equal(sw.extended_size, size + 4);
	assert_int_equal(sw.xfeatures, xfeatures);
	assert_int_equal(sw.xstate_size, size);
	assert_true(sw.magic2_found);
	assert_false(sw.valid);
	img[464] ^= 1;
	fpl_image_sw_live(img, &sw);
	assert_int_equal(sw.magic1, FPL_FP_XSTATE_MAGIC1 ^ 1);
	assert_false(sw.magic2_found);
	img[464] ^= 1;
	memcpy(&keep, img + 480, 4);
	memcpy(img + 480, &(uint32_t){ 500 }, 4);
	fpl_image_sw_live(img, &sw);
	assert_int_equal(sw.xstate_size, 500);
	assert_false(sw.magic2_found);
	memcpy(img + 480, &keep, 4);
}

/* The frames: software bytes say which features and how large, and that is this task's active
 * mask's size. */
static void test_captured_frames(void **state)
{
	struct dump *d = load(DATA "spr-amx-kvm.cpuid");
	static const struct {
		const char *name;
		uint64_t xfeatures, bv;
		uint32_t size;
	} f[] = {
	    {"sigframe_xstate_noperm.bin", 0x200e7, 0xa3, 2816},
	    {"sigframe_xstate_perm_unused.bin", 0x200e7, 0xa3, 2816},
	    {"sigframe_xstate_amx_live.bin", 0x600e7, 0x600a3, 11008},
	};

	for (unsigned i = 0; i < FPL_ARRAY_SIZE(f); i++) {
		size_t n;
		unsigned char *img = read_bin(f[i].name, &n);

		assert_int_equal(n, f[i].size + 4);
		assert_int_equal(get32(img + 464), 0x46505853);	   /* magic1 */
		assert_int_equal(get32(img + 468), f[i].size + 4); /* extended_size */
		assert_int_equal(get64(img + 472), f[i].xfeatures);
		assert_int_equal(get32(img + 480), f[i].size);
		assert_int_equal(get32(img + f[i].size), 0x46505845); /* magic2 */
		assert_int_equal(get64(img + 512), f[i].bv);
		assert_int_equal(fpl_xstate_size_std(&d->xs, f[i].xfeatures), f[i].size);
		live_sw_agrees(img, f[i].xfeatures, f[i].size);
		free(img);
	}
	/* The ptrace dump carries XCR0 in the software bytes. */
	{
		size_t n;
		unsigned char *img = read_bin("ptrace_nt_x86_xstate_amx_live.bin", &n);

		assert_int_equal(get64(img + 464), d->xs.xcr0);
		free(img);
	}
	free(d);
}

static void test_captured_compacted(void **state)
{
	struct dump *d = load(DATA "spr-amx-kvm.cpuid");
	size_t n;
	unsigned char *live = read_bin("xsavec_amx_live.bin", &n), *rel;
	uint64_t xcomp = get64(live + 520);
	int64_t cfg = fpl_xstate_offset_compacted(&d->xs, xcomp & ~FPL_XCOMP_BV_COMPACTED,
						  FPL_XFEATURE_XTILE_CFG),
		data = fpl_xstate_offset_compacted(&d->xs, xcomp & ~FPL_XCOMP_BV_COMPACTED,
						   FPL_XFEATURE_XTILE_DATA);

	assert_int_equal(n, 10688);
	assert_int_equal(xcomp, FPL_XCOMP_BV_COMPACTED | 0x600e7);
	assert_int_equal(fpl_xstate_size_compacted(&d->xs, 0x600e7), n);
	assert_int_equal(cfg, 2432);
	assert_int_equal(data, 2496);
	assert_int_equal(get64(live + 512), 0x600a3);
	check_cfg(live + cfg);
	check_tiles(live + data, 8192, "xsavec live");
	rel = read_bin("xsavec_amx_released.bin", &n);
	assert_int_equal(n, 10688);
	assert_int_equal(get64(rel + 512) & FPL_XFEATURE_MASK_XTILE, 0);
	free(live);
	free(rel);
	free(d);
}

/* The message of the note on header bytes 24..63 when img decodes buf by cfg. */
static const char *header_note(const unsigned char *buf, size_t n, const struct fpl_image_cfg *cfg,
			       struct fpl_image *img)
{
	assert_int_equal(fpl_image_decode(buf, n, cfg, img, NULL), 0);
	for (unsigned k = 0; k < img->nfindings; k++)
		if (!strcmp(img->findings[k].rule, "xrstor.header_24_63"))
			return img->findings[k].msg;
	fail_msg("no xrstor.header_24_63 note: %u findings", img->nfindings);
	return NULL;
}

/*
 * AMD's words come only from an AMD CPU: header byte 24 set in the
 * standard capture gets the note for Intel here, and the one that names
 * AMD family 1Ah when the same bytes are judged as measured on AMD.
 */
static void amd_words_only_on_amd(const char *name, struct fpl_image_cfg *cfg,
				  struct fpl_image *img)
{
	size_t n;
	unsigned char *buf = read_bin(name, &n);
	const char *msg;

	buf[512 + 24] = 1;
	msg = header_note(buf, n, cfg, img);
	assert_non_null(strstr(msg, "the SDM's rule for Intel"));
	assert_null(strstr(msg, "1Ah"));
	cfg->amd = true;
	msg = header_note(buf, n, cfg, img);
	assert_non_null(strstr(msg, "measured on AMD family 1Ah"));
	free(buf);
}

/*
 * The ptrace dump's tracee had used its tiles: the default (a tracee
 * without permission) refuses it; the case to judge it for is returned.
 */
static enum fpl_ptrace_tracee ptrace_default_refuses(const unsigned char *buf, size_t n,
						     struct fpl_image_cfg *cfg,
						     struct fpl_image *img)
{
	cfg->tracee = FPL_TRACEE_NO_PERM;
	assert_int_equal(fpl_image_decode(buf, n, cfg, img, NULL), 0);
	assert_true(img->kernel_rejects);
	assert_string_equal(fpl_image_first_rejection(img)->rule, "ptrace.xstate_bv_unused");
	return FPL_TRACEE_USED;
}

/* Every capture through the validator and decoder, judged against the capture's own CPU. */
static void test_decode_captures(void **state)
{
	static const struct {
		const char *name;
		enum fpl_image_format format;
		bool tiles;
	} c[] = {
	    {"xsave_std_amx_live.bin", FPL_IMAGE_STANDARD, true},
	    {"xsavec_amx_live.bin", FPL_IMAGE_COMPACTED, true},
	    {"xsavec_amx_released.bin", FPL_IMAGE_COMPACTED, false},
	    {"sigframe_xstate_amx_live.bin", FPL_IMAGE_SIGNAL, true},
	    {"sigframe_xstate_noperm.bin", FPL_IMAGE_SIGNAL, false},
	    {"sigframe_xstate_perm_unused.bin", FPL_IMAGE_SIGNAL, false},
	    {"ptrace_nt_x86_xstate_amx_live.bin", FPL_IMAGE_PTRACE, true},
	};
	struct dump *d = load(DATA "spr-amx-kvm.cpuid");
	struct fpl_image_cfg cfg;
	struct fpl_image *img = malloc(sizeof(*img));
	struct fpl_image_tiles t;

	assert_non_null(img);
	fpl_image_cfg_init(&cfg, &d->cpu, &d->xs);
	assert_false(cfg.amd);
	assert_int_equal(cfg.task_mask, 0x600e7);
	for (unsigned i = 0; i < FPL_ARRAY_SIZE(c); i++) {
		size_t n;
		unsigned char *buf = read_bin(c[i].name, &n);
		bool found_xfd_note = false;

		cfg.tracee = c[i].format == FPL_IMAGE_PTRACE ? ptrace_default_refuses(buf, n, &cfg, img) :
							      FPL_TRACEE_NO_PERM;
		assert_int_equal(fpl_image_decode(buf, n, &cfg, img, NULL), 0);
		if (img->format != c[i].format)
			fail_msg("%s: decoded as %s (%s)", c[i].name,
				 fpl_image_format_name(img->format), img->why);
		if (fpl_image_rejected(img))
			fail_msg("%s: rejected: %s", c[i].name, img->findings[0].msg);
		for (unsigned k = 0; k < img->nfindings; k++) {
			assert_true(img->findings[k].severity == FPL_IMAGE_NOTE);
			assert_null(strstr(img->findings[k].msg, "1Ah"));
			found_xfd_note |= !strcmp(img->findings[k].rule, "sigframe.xfd");
		}
		/* The 11008-byte frame would be restored in full only by a task that used tiles. */
		assert_int_equal(found_xfd_note, c[i].format == FPL_IMAGE_SIGNAL && c[i].tiles);
		assert_int_equal(fpl_image_tiles(img, &t), 0);
		assert_int_equal(t.cfg_in_bv, c[i].tiles);
		assert_int_equal(t.data_in_bv, c[i].tiles);
		if (c[i].tiles) {
			assert_true(t.cfg_readable && t.data_readable);
			assert_int_equal(t.cfg_check, 1);
			assert_int_equal(t.ntiles, 8);
			for (unsigned k = 0; k < 8; k++)
				assert_int_equal(t.tile[k].nonzero_rows,
						 k == 0 || k == 3 ? 0xffffu : 0);
			assert_int_equal(t.tile[0].checksum, t.tile[3].checksum);
		} else {
			assert_int_equal(t.ntiles, 0);
		}
		free(buf);
	}
	amd_words_only_on_amd(c[0].name, &cfg, img);
	free(img);
	free(d);
}

/* An invalid TILECFG is no fault for XRSTOR: the decoder says it loads as init. */
static void test_decode_invalid_tilecfg(void **state)
{
	struct dump *d = load(DATA "spr-amx-kvm.cpuid");
	struct fpl_image_cfg cfg;
	struct fpl_image *img = malloc(sizeof(*img));
	struct fpl_image_tiles t;
	size_t n;
	unsigned char *buf = read_bin("xsavec_amx_live.bin", &n);
	bool noted = false;

	assert_non_null(img);
	fpl_image_cfg_init(&cfg, &d->cpu, &d->xs);
	buf[2432 + 48] = 17; /* tile 0: 17 rows, one more than the palette has */
	assert_int_equal(fpl_image_decode(buf, n, &cfg, img, NULL), 0);
	assert_false(fpl_image_rejected(img));
	for (unsigned k = 0; k < img->nfindings; k++)
		if (!strcmp(img->findings[k].rule, "xrstor.tilecfg")) {
			noted = true;
			assert_non_null(strstr(img->findings[k].msg, "XRSTOR loads this as init"));
			assert_int_equal(img->findings[k].offset, 2432);
		}
	assert_true(noted);
	assert_int_equal(fpl_image_tiles(img, &t), 0);
	assert_int_equal(t.cfg_check, -EINVAL);
	assert_non_null(strstr(t.cfg_why, "rows 17"));
	/* Not in RFBM: no load, no note. */
	cfg.rfbm = 0xe7;
	assert_int_equal(fpl_image_decode(buf, n, &cfg, img, NULL), 0);
	for (unsigned k = 0; k < img->nfindings; k++)
		assert_string_not_equal(img->findings[k].rule, "xrstor.tilecfg");
	free(buf);
	free(img);
	free(d);
}

/* The restoring task decides: a task without tile data (XFD armed) refuses the 11008-byte frame. */
static void test_sigframe_task_mask(void **state)
{
	struct dump *d = load(DATA "spr-amx-kvm.cpuid");
	struct fpl_image_cfg cfg;
	struct fpl_image *img = malloc(sizeof(*img));
	size_t n;
	unsigned char *buf = read_bin("sigframe_xstate_amx_live.bin", &n);

	assert_non_null(img);
	fpl_image_cfg_init(&cfg, &d->cpu, &d->xs);
	cfg.task_mask = fpl_xstate_default_perm(&d->xs);
	cfg.format = FPL_IMAGE_SIGNAL; /* auto would not take refused software bytes for a frame */
	assert_int_equal(fpl_image_decode(buf, n, &cfg, img, NULL), 0);
	assert_false(img->sw.valid);
	assert_true(img->kernel_rejects);
	assert_string_equal(img->findings[0].rule, "sigframe.xstate_size");
	assert_non_null(strstr(img->findings[0].msg, "2816"));
	free(buf);
	/* The frame of such a task is fine for it. */
	buf = read_bin("sigframe_xstate_noperm.bin", &n);
	assert_int_equal(fpl_image_decode(buf, n, &cfg, img, NULL), 0);
	assert_true(img->sw.valid);
	assert_false(fpl_image_rejected(img));
	free(buf);
	free(img);
	free(d);
}

/* xs (live, no AMX) with tile state that the kernel does not permit: it does not know it. */
static void fake_amx(const struct fpl_xstate *xs, struct fpl_xstate *fake)
{
	*fake = *xs;
	fake->xcr0 |= FPL_XFEATURE_MASK_XTILE;
	fake->comp[FPL_XFEATURE_XTILE_CFG] =
	    (struct fpl_xcomp){true, false, true, false, 64, 2752};
	fake->comp[FPL_XFEATURE_XTILE_DATA] =
	    (struct fpl_xcomp){true, false, true, true, 8192, 2816};
	fake->amx = (struct fpl_amx_palette){.valid = true,
					     .max_palette = 1,
					     .total_tile_bytes = 8192,
					     .bytes_per_tile = 1024,
					     .bytes_per_row = 64,
					     .max_names = 8,
					     .max_rows = 16};
}

/*
 * The running CPU made to look like one with an XFD component, as far as
 * fpulab's tables go: the AMX paths that must never execute an instruction
 * without permission are checked here on any CPU. Nothing AMX runs: the
 * kernel's ARCH_GET_XCOMP_PERM has no tile data, so every tile load is
 * refused before it is tried.
 */
static void test_fake_xfd_paths(void **state)
{
	struct fpl_cpu *cpu = malloc(sizeof(*cpu));
	struct fpl_xstate xs, fake;
	struct fpl_xstate_masks m;
	struct fpl_diag diag = {""};
	uint64_t before = 0, after = 0;

	assert_non_null(cpu);
	fpl_cpu_read(cpu);
	assert_int_equal(fpl_xstate_init(&xs, cpu), 0);
	if (fpl_amx_supported(&xs, NULL) || !xs.xsave) {
		free(cpu);
		print_message("skipped: %s\n", xs.xsave ? "a real AMX CPU: test_xstate's "
			      "test_amx_permitted covers these paths" : "no XSAVE on this CPU");
		skip();
	}
	fake_amx(&xs, &fake);
	assert_int_equal(fpl_xstate_xfd_mask(&fake), FPL_XFEATURE_MASK_XTILE_DATA);
	assert_int_equal(fpl_xstate_permitted(&fake) & FPL_XFEATURE_MASK_XTILE_DATA, 0);
	assert_false(fpl_amx_permitted(&fake));
	assert_int_equal(fpl_regs_set(&fake, FPL_XFEATURE_MASK_XTILE_DATA, 1), -EPERM);
	assert_int_equal(fpl_regs_set_exact(&fake, FPL_XFEATURE_MASK_XTILE, 1), -EPERM);
	assert_int_equal(fpl_amx_first_use(&fake, &diag), -EPERM);
	assert_non_null(strstr(diag.msg, "SIGILL"));
	/* The kernel refuses: an error with its reason, permitted unchanged. */
	assert_true(fpl_amx_request_perm(&fake, &before, &after, &diag) < 0);
	assert_int_equal(before, after);
	assert_int_equal(after & FPL_XFEATURE_MASK_XTILE_DATA, 0);
	/* Active without tile data (nothing XFD-armed permitted: no probe needed). */
	assert_int_equal(fpl_xstate_masks(&fake, &m), 0);
	assert_int_equal(m.active & FPL_XFEATURE_MASK_XTILE_DATA, 0);

	/*
	 * A permitted component marked XFD-able (Hi16_ZMM here): active is
	 * read from XINUSE or from a signal frame, and is all of permitted
	 * since the kernel never armed it.
	 */
	if (xs.xcr0 & FPL_XFEATURE_MASK_Hi16_ZMM) {
		fake = xs;
		fake.comp[FPL_XFEATURE_Hi16_ZMM].xfd = true;
		assert_int_equal(fpl_xstate_masks(&fake, &m), 0);
		assert_int_equal(m.permitted, xs.xcr0);
		assert_int_equal(m.active, m.permitted);
		assert_true(!strcmp(m.active_from, "XINUSE") ||
			    !strcmp(m.active_from, "signal frame"));
		if (!strcmp(m.active_from, "signal frame"))
			assert_int_equal(m.frame_xstate_size, fpl_xstate_size_std(&xs, xs.xcr0));
		assert_int_equal(fpl_xstate_default_perm(&fake),
				 xs.xcr0 & ~FPL_XFEATURE_MASK_Hi16_ZMM);
	}
	free(cpu);
}

/*
 * The log of this process's permission requests (host.amx_permission reads
 * it after each benchmark): every live request counts, with its answer in
 * words, whoever asked; a dump's does not. Here without AMX the request is
 * refused before any system call, and (a fake AMX table) by the kernel.
 */
static void test_perm_log(void **state)
{
	struct fpl_cpu *cpu = malloc(sizeof(*cpu));
	struct dump *d = load(DATA "spr-amx-kvm.cpuid");
	struct fpl_amx_perm_log l0, l;
	struct fpl_diag diag = {""};
	struct fpl_xstate xs, fake;
	uint64_t before = 0, after = 0;
	int err;

	assert_non_null(cpu);
	fpl_cpu_read(cpu);
	assert_int_equal(fpl_xstate_init(&xs, cpu), 0);
	fpl_amx_perm_log(&l0);
	assert_int_equal(fpl_amx_request_perm(&d->xs, NULL, NULL, &diag), -EINVAL);
	fpl_amx_perm_log(&l);
	assert_int_equal(l.calls, l0.calls);
	err = fpl_amx_request_perm(&xs, &before, &after, &diag);
	fpl_amx_perm_log(&l);
	assert_int_equal(l.calls, l0.calls + 1);
	assert_int_equal(l.err, err);
	assert_int_equal(l.after, after);
	if (!l0.calls)
		assert_int_equal(l.before, before);
	if (fpl_amx_supported(&xs, NULL)) {
		/* AMX hardware: granted, tile data permitted now. */
		assert_int_equal(err, 0);
		assert_string_equal(l.msg, "granted");
		assert_true(after & FPL_XFEATURE_MASK_XTILE_DATA);
	} else {
		assert_int_equal(err, -EOPNOTSUPP);
		assert_string_equal(l.msg, diag.msg);
		assert_non_null(strstr(l.msg, "no AMX"));
		assert_int_equal(before, after);
	}
	if (!fpl_amx_supported(&xs, NULL) && xs.xsave) {
		fake_amx(&xs, &fake);
		err = fpl_amx_request_perm(&fake, NULL, NULL, &diag);
		assert_true(err < 0);
		fpl_amx_perm_log(&l);
		assert_int_equal(l.calls, l0.calls + 2);
		assert_int_equal(l.err, err);
		assert_string_equal(l.msg, diag.msg);
		assert_non_null(strstr(l.msg, "ARCH_REQ_XCOMP_PERM"));
	}
	free(d);
	free(cpu);
}

/*
 * The register patterns on the SPR palette: TILECFG is always a valid
 * palette-1 configuration (XRSTOR would turn anything else into init
 * silently), TILEDATA fills every configured row, and the validator and
 * decoder see the image as the hardware would load it.
 */
static void test_pattern_tiles(void **state)
{
	struct dump *d = load(DATA "spr-amx-kvm.cpuid");
	const struct fpl_xstate *xs = &d->xs;
	uint64_t mask = FPL_XFEATURE_MASK_XTILE | FPL_XFEATURE_MASK_AVX512 | FPL_XFEATURE_MASK_FPSSE;
	unsigned char *img = fpl_xstate_alloc(xs->size_std_max), *other;
	struct fpl_image *im = malloc(sizeof(*im));
	struct fpl_tile_summary s[8], o[8];
	struct fpl_image_tiles t;
	struct fpl_image_cfg cfg;
	const char *why = NULL;

	assert_non_null(img);
	assert_non_null(im);
	other = fpl_xstate_alloc(xs->size_std_max);
	assert_non_null(other);
	assert_int_equal(xs->size_std_max, 11008);
	fpl_xstate_pattern(xs, mask, 0x1234, img);
	fpl_xstate_pattern(xs, mask, 0x4321, other);
	assert_int_equal(get64(img + 512), mask);
	assert_int_equal(fpl_tilecfg_check(&xs->amx, img + 2752, &why), 1);
	/* The configuration does not depend on the seed; the data does. */
	assert_memory_equal(img + 2752, other + 2752, FPL_TILECFG_SIZE);
	check_cfg(img + 2752);
	assert_int_equal(fpl_tiledata_summarise(&xs->amx, img + 2816, 8192, s, 8), 8);
	assert_int_equal(fpl_tiledata_summarise(&xs->amx, other + 2816, 8192, o, 8), 8);
	for (unsigned k = 0; k < 8; k++) {
		assert_int_equal(s[k].nonzero_rows, 0xffff);
		assert_int_not_equal(s[k].checksum, o[k].checksum);
		if (k)
			assert_int_not_equal(s[k].checksum, s[k - 1].checksum);
	}
	/* What XRSTOR would do with it: load, no note about the configuration. */
	fpl_image_cfg_init(&cfg, &d->cpu, xs);
	cfg.format = FPL_IMAGE_STANDARD;
	assert_int_equal(fpl_image_decode(img, xs->size_std_max, &cfg, im, NULL), 0);
	assert_false(fpl_image_rejected(im));
	for (unsigned k = 0; k < im->nfindings; k++)
		assert_string_not_equal(im->findings[k].rule, "xrstor.tilecfg");
	assert_int_equal(fpl_image_tiles(im, &t), 0);
	assert_true(t.cfg_in_bv && t.data_in_bv);
	assert_int_equal(t.cfg_check, 1);
	assert_int_equal(t.ntiles, 8);
	/* Tile data alone: TILECFG is not written (not in XSTATE_BV, bytes untouched). */
	memset(other, 0, xs->size_std_max);
	fpl_xstate_pattern(xs, FPL_XFEATURE_MASK_XTILE_DATA, 7, other);
	assert_int_equal(get64(other + 512), FPL_XFEATURE_MASK_XTILE_DATA);
	for (unsigned k = 0; k < FPL_TILECFG_SIZE; k++)
		assert_int_equal(other[2752 + k], 0);
	free(img);
	free(other);
	free(im);
	free(d);
}

/*
 * A dump describes another CPU: nothing in the register and AMX paths may
 * run an instruction for it (an XRSTOR with bit 17 would #GP on a CPU
 * without AMX; tile data would be SIGILL without permission).
 */
static void test_dump_runs_nothing(void **state)
{
	struct dump *d = load(DATA "spr-amx-kvm.cpuid");
	const struct fpl_xstate *xs = &d->xs;
	struct fpl_diag diag = {""};

	assert_false(xs->live);
	assert_false(fpl_amx_permitted(xs));
	assert_int_equal(fpl_regs_set(xs, FPL_XFEATURE_MASK_XTILE_CFG, 1), -EINVAL);
	assert_int_equal(fpl_regs_set(xs, FPL_XFEATURE_MASK_XTILE_DATA, 1), -EINVAL);
	assert_int_equal(fpl_regs_set_exact(xs, FPL_XFEATURE_MASK_XTILE, 1), -EINVAL);
	assert_int_equal(fpl_regs_init(xs, FPL_XFEATURE_MASK_XTILE), -EINVAL);
	assert_int_equal(fpl_amx_request_perm(xs, NULL, NULL, &diag), -EINVAL);
	assert_non_null(strstr(diag.msg, "dump"));
	assert_int_equal(fpl_amx_first_use(xs, &diag), -EINVAL);
	assert_non_null(strstr(diag.msg, "dump"));
	assert_int_equal(fpl_amx_release(xs), -EINVAL);
	free(d);
}

/*
 * The model's owner on the SPR snapshot: the kernel's fpstate for a task
 * holds its active components (2816 bytes standard without AMX use, 11008
 * once tiles were used), and the clobber never touches tile state, as
 * kernel code never uses AMX.
 */
static void test_model_amx_owner(void **state)
{
	struct dump *d = load(DATA "spr-amx-kvm.cpuid");
	struct fpl_xstate used;
	struct fpl_fpu_ctx ctx;
	struct fpl_diag diag = {""};
	static const struct {
		enum fpl_save_insn insn;
		bool used;
		uint64_t rfbm;
		uint32_t size;
	} c[] = {
	    {FPL_INSN_XSAVE, false, 0x200e7, 2816},
	    {FPL_INSN_XSAVEOPT, false, 0x200e7, 2816},
	    {FPL_INSN_XSAVEC, false, 0x200e7, 2496},
	    {FPL_INSN_XSAVE, true, 0x600e7, 11008},
	    {FPL_INSN_XSAVEC, true, 0x600e7, 10688},
	    {FPL_INSN_FXSAVE, true, 0x3, 512},
	};

	assert_int_equal(fpl_fpu_clobber_mask(&d->cpu, 0x600e7), 0xe7);
	assert_int_equal(fpl_fpu_clobber_mask(&d->cpu, FPL_XFEATURE_MASK_XTILE), 0);
	/*
	 * A task that has used its tiles, as the kernel sees it (XFD disarmed
	 * for it): the same tables with tile data not XFD-armed.
	 */
	used = d->xs;
	used.comp[FPL_XFEATURE_XTILE_DATA].xfd = false;
	assert_int_equal(fpl_xstate_active(&used), 0x600e7);
	for (unsigned i = 0; i < FPL_ARRAY_SIZE(c); i++) {
		if (fpl_fpu_ctx_init(&ctx, &d->cpu, c[i].used ? &used : &d->xs, FPL_FPU_LAZY,
				     c[i].insn, &diag))
			fail_msg("%s: %s", fpl_save_insn_name(c[i].insn), diag.msg);
		assert_int_equal(ctx.rfbm, c[i].rfbm);
		assert_int_equal(ctx.size, c[i].size);
		fpl_fpu_ctx_destroy(&ctx);
	}
	free(d);
}

/*
 * On AMX hardware: fpl_tilecfg_check() against the CPU, on the 64 variants
 * of tests/data/amx/tilecfg-truth.txt. XRSTOR never faults on a TILECFG: a
 * valid non-init one makes XINUSE bit 17 read 1, anything else loads as
 * init. TILECFG is not XFD-armed, so no permission is needed. Where this
 * CPU answers otherwise than the Sapphire Rapids guest recorded, the line
 * says so (the checker must agree with this CPU, the fixture twin with the
 * recording: test_tilecfg_truth_replay).
 */
static void test_tilecfg_check_agrees_hw(void **state)
{
	struct tilecfg_truth *v = calloc(TILECFG_TRUTH_N, sizeof(*v));
	struct fpl_cpu *cpu = malloc(sizeof(*cpu));
	struct fpl_xstate xs;
	const char *why = NULL;
	unsigned char *img;
	char bad[2048] = "";
	size_t used = 0;
	unsigned differ = 0;

	assert_non_null(cpu);
	assert_non_null(v);
	assert_int_equal(tilecfg_truth_read(v), TILECFG_TRUTH_N);
	fpl_cpu_read(cpu);
	assert_int_equal(fpl_xstate_init(&xs, cpu), 0);
	if (!fpl_amx_supported(&xs, &why) || !xs.xgetbv1) {
		print_message("skipped: %s\n", why ? why : "no XGETBV(1): XINUSE unreadable");
		free(cpu);
		free(v);
		skip();
	}
	img = fpl_xstate_alloc(xs.size_std_max);
	assert_non_null(img);
	for (unsigned i = 0; i < TILECFG_TRUTH_N; i++) {
		uint64_t bv = FPL_XFEATURE_MASK_XTILE_CFG, inuse;
		int check = fpl_tilecfg_check(&xs.amx, v[i].cfg, NULL);

		memset(img, 0, xs.size_std_max);
		memcpy(img + 512, &bv, 8);
		memcpy(img + xs.comp[FPL_XFEATURE_XTILE_CFG].offset, v[i].cfg, FPL_TILECFG_SIZE);
		fpl_xrstor64(img, FPL_XFEATURE_MASK_XTILE_CFG);
		inuse = fpl_xgetbv(1) & FPL_XFEATURE_MASK_XTILE_CFG;
		assert_int_equal(fpl_regs_init(&xs, FPL_XFEATURE_MASK_XTILE_CFG), 0);
		if ((inuse != 0) != v[i].loaded) {
			print_message("  %s: XINUSE bit 17 %d here, %d on the recorded guest\n",
				      v[i].name, inuse != 0, v[i].loaded);
			differ++;
		}
		if ((check == 1) != (inuse != 0) && used < sizeof(bad))
			used += (size_t)snprintf(bad + used, sizeof(bad) - used,
						 "\n  %s: fpl_tilecfg_check %d, XINUSE bit 17 %d",
						 v[i].name, check, inuse != 0);
	}
	print_message("  %u variants through XRSTOR here, %u answered otherwise than recorded\n",
		      TILECFG_TRUTH_N, differ);
	free(img);
	free(cpu);
	free(v);
	if (bad[0])
		fail_msg("TILECFG rules disagree with XRSTOR on this CPU:%s", bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_palette_from_dump),
	    cmocka_unit_test(test_no_amx),
	    cmocka_unit_test(test_masks_from_dump),
	    cmocka_unit_test(test_parse_all_is_permitted),
	    cmocka_unit_test(test_layout_equals_dmesg),
	    cmocka_unit_test(test_tilecfg_rules),
	    cmocka_unit_test(test_tilecfg_truth_replay),
	    cmocka_unit_test(test_ptrace_tracee_replay),
	    cmocka_unit_test(test_captured_standard_images),
	    cmocka_unit_test(test_captured_frames),
	    cmocka_unit_test(test_captured_compacted),
	    cmocka_unit_test(test_decode_captures),
	    cmocka_unit_test(test_decode_invalid_tilecfg),
	    cmocka_unit_test(test_sigframe_task_mask),
	    cmocka_unit_test(test_fake_xfd_paths),
	    cmocka_unit_test(test_perm_log),
	    cmocka_unit_test(test_pattern_tiles),
	    cmocka_unit_test(test_dump_runs_nothing),
	    cmocka_unit_test(test_model_amx_owner),
	    cmocka_unit_test(test_tilecfg_check_agrees_hw),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
