// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests for the AMX parts of src/xstate from captures of a Sapphire Rapids KVM guest: palette, masks, layouts against dmesg, TILECFG, TILEDATA. */
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
#include "fpulab/xstate.h"

#define DATA "tests/data/amx/"
#define CPUID_DATA "tests/data/cpuid/"

struct dump {
	struct fpl_cpu cpu;
	struct fpl_xstate xs;
};

static struct dump *load(const char *path)
{
	struct dump *d = malloc(sizeof(*d));
	struct fpl_diag diag = { "" };

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
	struct fpl_diag diag = { "" };
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
	assert_string_equal(m.active_from, "snapshot");
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
			assert_int_equal(sscanf(e, "Enabled xstate features %llx, context size is %u",
						&feat, &ctx), 2);
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
	assert_int_equal(fpl_tilecfg_check(p, bad, &why), 0);	/* palette 0: init */
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
	static const char *const names[] = { "xsave_std_amx_live.bin",
					     "ptrace_nt_x86_xstate_amx_live.bin",
					     "sigframe_xstate_amx_live.bin" };
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

/* The frames: software bytes say which features and how large, and that is this task's active mask's size. */
static void test_captured_frames(void **state)
{
	struct dump *d = load(DATA "spr-amx-kvm.cpuid");
	static const struct {
		const char *name;
		uint64_t xfeatures, bv;
		uint32_t size;
	} f[] = {
		{ "sigframe_xstate_noperm.bin", 0x200e7, 0xa3, 2816 },
		{ "sigframe_xstate_perm_unused.bin", 0x200e7, 0xa3, 2816 },
		{ "sigframe_xstate_amx_live.bin", 0x600e7, 0x600a3, 11008 },
	};

	for (unsigned i = 0; i < FPL_ARRAY_SIZE(f); i++) {
		size_t n;
		unsigned char *img = read_bin(f[i].name, &n);

		assert_int_equal(n, f[i].size + 4);
		assert_int_equal(get32(img + 464), 0x46505853);		/* magic1 */
		assert_int_equal(get32(img + 468), f[i].size + 4);	/* extended_size */
		assert_int_equal(get64(img + 472), f[i].xfeatures);
		assert_int_equal(get32(img + 480), f[i].size);
		assert_int_equal(get32(img + f[i].size), 0x46505845);	/* magic2 */
		assert_int_equal(get64(img + 512), f[i].bv);
		assert_int_equal(fpl_xstate_size_std(&d->xs, f[i].xfeatures), f[i].size);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_palette_from_dump),
		cmocka_unit_test(test_no_amx),
		cmocka_unit_test(test_masks_from_dump),
		cmocka_unit_test(test_parse_all_is_permitted),
		cmocka_unit_test(test_layout_equals_dmesg),
		cmocka_unit_test(test_tilecfg_rules),
		cmocka_unit_test(test_captured_standard_images),
		cmocka_unit_test(test_captured_frames),
		cmocka_unit_test(test_captured_compacted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
