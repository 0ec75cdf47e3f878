// SPDX-License-Identifier: GPL-3.0-or-later
/* An XSAVE image decoded (fpulab decode): the table for people, JSON for machines. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "fpulab/base.h"
#include "fpulab/report.h"

static const char *const exc_names[6] = { "IE", "DE", "ZE", "OE", "UE", "PE" };
static const char *const rc_names[4] = { "nearest", "down", "up", "toward-zero" };
static const char *const pc_names[4] = { "single", "reserved", "double", "extended" };

static unsigned vec_width(const struct fpl_image *img)
{
	if ((img->xcr0 & FPL_XFEATURE_MASK_AVX512) == FPL_XFEATURE_MASK_AVX512)
		return 64;
	return img->xcr0 & FPL_XFEATURE_MASK_YMM ? 32 : 16;
}

static unsigned vec_count(const struct fpl_image *img)
{
	return vec_width(img) == 64 ? 32 : 16;
}

static const char *vec_prefix(unsigned width)
{
	return width == 64 ? "zmm" : width == 32 ? "ymm" : "xmm";
}

/* Most significant 64-bit lane first, lanes separated by '_'. */
static void hex_vec(const uint8_t *v, unsigned width, char *out)
{
	size_t n = 0;

	for (int lane = (int)width / 8 - 1; lane >= 0; lane--) {
		uint64_t q;

		memcpy(&q, v + 8 * lane, 8);
		n += (size_t)sprintf(out + n, "%s%016" PRIx64, n ? "_" : "", q);
	}
}

static void hex80(const uint8_t v[10], char *out)
{
	uint64_t mant;
	uint16_t se;

	memcpy(&mant, v, 8);
	memcpy(&se, v + 8, 2);
	sprintf(out, "0x%04x_%016" PRIx64, se, mant);
}

static void value80(const uint8_t v[10], char *out, size_t n)
{
	long double d = 0;

	memcpy(&d, v, 10);
	snprintf(out, n, "%.21Lg", d);
}

static void flag_list(char *out, size_t n, uint32_t bits, const char *const *names, unsigned nr)
{
	size_t used = 0;

	out[0] = '\0';
	for (unsigned i = 0; i < nr; i++)
		if (bits >> i & 1)
			used += (size_t)snprintf(out + used, n - used, "%s%s", used ? " " : "",
						 names[i]);
	if (!used)
		snprintf(out, n, "none");
}

static void print_findings(FILE *f, const struct fpl_image *img)
{
	for (unsigned i = 0; i < img->nfindings; i++) {
		const struct fpl_image_finding *x = &img->findings[i];

		fprintf(f, "  %-6s %-32s byte %-5zu %s\n", fpl_image_severity_name(x->severity),
			x->rule, x->offset, x->msg);
	}
	if (img->findings_dropped)
		fprintf(f, "  (more findings not shown)\n");
}

static void print_verdict(FILE *f, const struct fpl_cpu *cpu, const struct fpl_image_cfg *cfg,
			  const struct fpl_image *img)
{
	const char *who = img->format == FPL_IMAGE_SIGNAL ? "sigreturn" :
			  img->format == FPL_IMAGE_PTRACE ? "PTRACE_SETREGSET" : "XRSTOR";

	if (fpl_image_rejected(img))
		fprintf(f, "verdict     REJECTED: %s%s%s\n",
			img->xrstor_faults ? "XRSTOR would fault (#GP, SIGSEGV)" : "",
			img->xrstor_faults && img->kernel_rejects ? "; " : "",
			img->kernel_rejects ? "the kernel would refuse it" : "");
	else
		fprintf(f, "verdict     accepted: %s would load it\n", who);
	/* The rules of the CPU the verdict is about: the dump's, or this one. */
	fprintf(f, "rules       SDM XRSTOR rules for %s family 0x%x model 0x%x (%s); MXCSR mask 0x%"
		PRIx32 " (%s)\n", cpu->vendor, cpu->family, cpu->model,
		cfg->amd ? "compared with XRSTOR on AMD Zen 4 and Zen 5 by test_validate" :
		"the SDM's; an invalid TILECFG loads as init, as measured on Sapphire Rapids",
		cfg->mxcsr_mask, cfg->mxcsr_mask_source);
	print_findings(f, img);
}

static void print_components(FILE *f, const struct fpl_image *img)
{
	fprintf(f, "\n%-3s %-17s %-10s %7s %6s\n", "id", "component", "XSTATE_BV", "offset",
		"size");
	for (unsigned i = 0; i < FPL_XFEATURE_MAX; i++) {
		int64_t off = fpl_image_offset(img, i);
		bool on = img->xstate_bv >> i & 1;

		if (!(img->xcr0 >> i & 1) && !on && !(img->xcomp_bv >> i & 1))
			continue;
		if (i < 2)
			fprintf(f, "%-3u %-17s %-10s %7s %6s\n", i, fpl_xfeature_name(i),
				on ? "yes" : "init", "legacy", i ? "256+8" : "160");
		else if (off < 0)
			fprintf(f, "%-3u %-17s %-10s %7s %6s\n", i, fpl_xfeature_name(i),
				on ? "yes" : "init", "-", "-");
		else
			fprintf(f, "%-3u %-17s %-10s %7" PRId64 " %6" PRIu32 "%s\n", i,
				fpl_xfeature_name(i), on ? "yes" : "init", off,
				img->xs->comp[i].size,
				on && !fpl_image_component(img, i, NULL) ? "  (cut off)" : "");
	}
}

static void print_x87(FILE *f, const struct fpl_image *img)
{
	struct fpl_x87 x;
	char a[64], b[64];

	fpl_image_x87(img, &x);
	flag_list(a, sizeof(a), x.fcw & 0x3f, exc_names, 6);
	fprintf(f, "\nx87%s  FCW 0x%04x (masked %s; PC %s, RC %s)\n", x.init ? " (init)" : "",
		x.fcw, a, pc_names[x.fcw >> 8 & 3], rc_names[x.fcw >> 10 & 3]);
	flag_list(a, sizeof(a), x.fsw & 0x3f, exc_names, 6);
	fprintf(f, "     FSW 0x%04x (flags %s%s%s; TOP %u; C3..C0 %u%u%u%u)  FTW 0x%02x (abridged)\n",
		x.fsw, a, x.fsw & 0x40 ? " SF" : "", x.fsw & 0x80 ? " ES" : "", x.top,
		x.fsw >> 14 & 1, x.fsw >> 10 & 1, x.fsw >> 9 & 1, x.fsw >> 8 & 1, x.ftw_abridged);
	fprintf(f, "     FOP 0x%03x  FIP 0x%016" PRIx64 "  FDP 0x%016" PRIx64 "\n",
		x.fop & 0x7ff, x.fip, x.fdp);
	for (unsigned i = 0; i < 8; i++) {
		hex80(x.st[i], a);
		value80(x.st[i], b, sizeof(b));
		fprintf(f, "  st%u  R%u %-7s %s  %s\n", i, (x.top + i) & 7,
			fpl_x87_tag_name(x.tag[i]), a, x.tag[i] == FPL_X87_EMPTY ? "" : b);
	}
}

static void print_mxcsr(FILE *f, const struct fpl_image *img)
{
	uint32_t m = img->mxcsr;
	char fl[64], mk[64];

	flag_list(fl, sizeof(fl), m & 0x3f, exc_names, 6);
	flag_list(mk, sizeof(mk), m >> 7 & 0x3f, exc_names, 6);
	fprintf(f, "\nMXCSR  0x%08" PRIx32 "  flags %s; masked %s; RC %s%s%s%s  (saved MXCSR_MASK "
		"0x%" PRIx32 ")\n", m, fl, mk, rc_names[m >> 13 & 3], m & 0x40 ? "; DAZ" : "",
		m & 0x8000 ? "; FTZ" : "", m & 0x20000 ? "; MM" : "", img->mxcsr_mask_saved);
}

static void print_vectors(FILE *f, const struct fpl_image *img)
{
	unsigned w = vec_width(img), n = vec_count(img);
	char hex[64 * 2 + 16], zero[256] = "";
	size_t zl = 0;
	uint8_t v[64];

	fprintf(f, "\n%s registers, 64-bit lanes, most significant first:\n", vec_prefix(w));
	for (unsigned i = 0; i < n; i++) {
		static const uint8_t z[64];

		if (fpl_image_vector(img, i, w, v))
			continue;
		if (!memcmp(v, z, w)) {
			zl += (size_t)snprintf(zero + zl, sizeof(zero) - zl, " %u", i);
			continue;
		}
		hex_vec(v, w, hex);
		fprintf(f, "  %s%-2u %s\n", vec_prefix(w), i, hex);
	}
	if (zl)
		fprintf(f, "  zero:%s\n", zero);
}

static void print_opmask(FILE *f, const struct fpl_image *img)
{
	uint64_t k;
	uint32_t pkru;

	if (!fpl_image_opmask(img, 0, &k)) {
		fprintf(f, "\nopmask%s\n", img->xstate_bv & FPL_XFEATURE_MASK_OPMASK ? "" : " (init)");
		for (unsigned i = 0; i < 8; i++) {
			fpl_image_opmask(img, i, &k);
			fprintf(f, "  k%u 0x%016" PRIx64 "%s", i, k, i % 4 == 3 ? "\n" : "");
		}
	}
	if (!fpl_image_pkru(img, &pkru))
		fprintf(f, "\nPKRU 0x%08" PRIx32 "%s\n", pkru,
			img->xstate_bv & FPL_XFEATURE_MASK_PKRU ? "" : " (init)");
}

/* "0-15", "0,3,5-7", "none" for a row bitmask. */
static void row_list(uint64_t rows, char *out, size_t n)
{
	size_t len = 0;

	out[0] = 0;
	if (!rows)
		snprintf(out, n, "none");
	for (unsigned r = 0; r < 64 && len < n; r++) {
		unsigned e = r;

		if (!(rows >> r & 1))
			continue;
		while (e + 1 < 64 && (rows >> (e + 1) & 1))
			e++;
		len += (size_t)snprintf(out + len, n - len, "%s%u", len ? "," : "", r);
		if (e > r && len < n)
			len += (size_t)snprintf(out + len, n - len, "-%u", e);
		r = e;
	}
}

static const char *cfg_state(const struct fpl_image_tiles *t)
{
	if (!t->cfg_in_bv)
		return "init (not in XSTATE_BV)";
	if (!t->cfg_readable)
		return "past the end of the buffer";
	if (t->cfg_check > 0)
		return "a valid configuration";
	if (t->cfg_check == 0)
		return "palette 0: the init configuration";
	return "INVALID: XRSTOR loads this as init";
}

/* What XRSTOR with the image's RFBM leaves in TILECFG and TILEDATA (it never faults on them). */
static const char *cfg_after(const struct fpl_image_tiles *t)
{
	if (!t->cfg_restored)
		return "not in RFBM: TILECFG stays as the task had it";
	return t->cfg_loads ? "loaded (XINUSE bit 17 set)" : "init (XINUSE bit 17 clear)";
}

static const char *data_after(const struct fpl_image *img, const struct fpl_image_tiles *t)
{
	if (!(img->rfbm & FPL_XFEATURE_MASK_XTILE_DATA))
		return t->cfg_restored && !t->cfg_loads ?
		       "not in RFBM: TILEDATA stays as the task had it; live tile data is left "
		       "unconfigured by TILECFG's init (the next TILESTORED raises #UD)" :
		       "not in RFBM: TILEDATA stays as the task had it";
	if (!t->data_in_bv)
		return "init";
	if (t->data_unconfigured)
		return "restored, but TILECFG goes to init: no tile is configured, the next tile "
		       "instruction (TILESTORED) raises #UD (SIGILL) until a valid LDTILECFG, "
		       "which zeroes the tile data";
	return t->cfg_restored ? "restored, tiles configured" :
				 "restored; TILECFG not in RFBM: the task's own configuration";
}

static void print_tiles(FILE *f, const struct fpl_image *img)
{
	struct fpl_image_tiles t;
	char rows[160];

	if (fpl_image_tiles(img, &t))
		return;
	fprintf(f, "\nAMX TILECFG  %s", cfg_state(&t));
	if (t.cfg_in_bv && t.cfg_readable) {
		fprintf(f, ": palette %u, start_row %u", t.cfg.palette, t.cfg.start_row);
		if (t.cfg_check < 0)
			fprintf(f, " (%s)", t.cfg_why);
	}
	fputc('\n', f);
	for (unsigned i = 0; t.cfg_in_bv && i < FPL_AMX_TILES_MAX; i++)
		if (t.cfg.rows[i] || t.cfg.colsb[i])
			fprintf(f, "  tile %-2u %3u rows x %3u bytes (colsb)\n", i, t.cfg.rows[i],
				t.cfg.colsb[i]);
	fprintf(f, "  after XRSTOR: TILECFG %s; TILEDATA %s\n", cfg_after(&t), data_after(img, &t));
	if (!t.data_in_bv) {
		fprintf(f, "AMX TILEDATA init (not in XSTATE_BV): every tile zero\n");
		return;
	}
	if (!t.data_readable) {
		fprintf(f, "AMX TILEDATA past the end of the buffer\n");
		return;
	}
	fprintf(f, "AMX TILEDATA per tile: the rows holding a non-zero byte, FNV-1a 32 of its bytes\n");
	for (int i = 0; i < t.ntiles; i++) {
		row_list(t.tile[i].nonzero_rows, rows, sizeof(rows));
		fprintf(f, "  tile %-2d rows %-12s of %2u  fnv1a32 0x%08" PRIx32 "\n", i, rows,
			t.tile[i].rows, t.tile[i].checksum);
	}
}

int fpl_table_decode(FILE *f, const char *path, const struct fpl_cpu *cpu,
		     const struct fpl_image_cfg *cfg, const struct fpl_image *img)
{
	char names[256];

	fprintf(f, "file        %s (%zu bytes)\n", path, img->len);
	fprintf(f, "format      %s (%s)\n", fpl_image_format_name(img->format), img->why);
	fpl_xfeature_mask_names(img->xcr0, names, sizeof(names));
	fprintf(f, "cpu         %s%s%s (%s), XCR0 0x%" PRIx64 " (%s)\n", cpu->live ? "" : cpu->source,
		cpu->live ? "" : ": ", cpu->brand[0] ? cpu->brand : "?", cpu->vendor,
		img->xcr0, names);
	fpl_xfeature_mask_names(img->xstate_bv, names, sizeof(names));
	fprintf(f, "XSTATE_BV   0x%016" PRIx64 "  %s\n", img->xstate_bv, names);
	fprintf(f, "XCOMP_BV    0x%016" PRIx64 "  %s form\n", img->xcomp_bv,
		img->compacted ? "compacted" : "standard");
	fpl_xfeature_mask_names(img->rfbm, names, sizeof(names));
	fprintf(f, "RFBM        0x%" PRIx64 " (%s)\n", img->rfbm, names);
	if (img->format == FPL_IMAGE_SIGNAL)
		fprintf(f, "sw bytes    magic1 0x%08" PRIx32 " extended_size %" PRIu32 " xfeatures 0x%"
			PRIx64 " xstate_size %" PRIu32 " magic2 %s\n", img->sw.magic1,
			img->sw.extended_size, img->sw.xfeatures, img->sw.xstate_size,
			img->sw.magic2_found ? "found" : "missing");
	if (img->format == FPL_IMAGE_PTRACE) {
		fprintf(f, "ptrace XCR0 0x%" PRIx64 " (bytes 464..471)\n", img->ptrace_xcr0);
		fprintf(f, "tracee      %s: %s%s; XSTATE_BV may hold 0x%" PRIx64 "%s\n",
			fpl_ptrace_tracee_name(img->tracee), fpl_ptrace_tracee_words(img->tracee),
			img->tracee == FPL_TRACEE_NO_PERM ? " (the default, the strictest; "
			"--tracee names another)" : "", img->ptrace_features,
			fpl_xstate_xfd_mask(img->xs) ? "" :
			" (no XFD component here: every case the same)");
	}
	print_verdict(f, cpu, cfg, img);
	print_components(f, img);
	print_x87(f, img);
	print_mxcsr(f, img);
	print_vectors(f, img);
	print_opmask(f, img);
	print_tiles(f, img);
	return 0;
}

static json_t *hex64(uint64_t v)
{
	char s[24];

	snprintf(s, sizeof(s), "0x%" PRIx64, v);
	return json_string(s);
}

static json_t *flags_json(uint32_t bits)
{
	json_t *a = json_array();

	for (unsigned i = 0; i < 6; i++)
		if (bits >> i & 1)
			json_array_append_new(a, json_string(exc_names[i]));
	return a;
}

static json_t *x87_json(const struct fpl_image *img)
{
	json_t *o, *st = json_array();
	struct fpl_x87 x;
	char a[64], b[64];

	fpl_image_x87(img, &x);
	for (unsigned i = 0; i < 8; i++) {
		hex80(x.st[i], a);
		value80(x.st[i], b, sizeof(b));
		json_array_append_new(st, json_pack("{s:s, s:s, s:s}", "raw", a,
						    "tag", fpl_x87_tag_name(x.tag[i]), "value", b));
	}
	o = json_pack("{s:b, s:i, s:i, s:i, s:i, s:i, s:o, s:o, s:o, s:o, s:o}", "init", x.init,
		      "fcw", x.fcw, "fsw", x.fsw, "top", x.top, "ftw_abridged", x.ftw_abridged,
		      "fop", x.fop & 0x7ff, "fip", hex64(x.fip), "fdp", hex64(x.fdp),
		      "exceptions", flags_json(x.fsw), "masked", flags_json(x.fcw), "st", st);
	return o;
}

static json_t *regs_json(const struct fpl_image *img)
{
	unsigned w = vec_width(img);
	json_t *vec = json_array(), *k = json_array(), *o;
	char hex[64 * 2 + 16];
	uint8_t v[64];
	uint64_t kv;
	uint32_t pkru;

	for (unsigned i = 0; i < vec_count(img); i++)
		if (!fpl_image_vector(img, i, w, v)) {
			hex_vec(v, w, hex);
			json_array_append_new(vec, json_string(hex));
		}
	o = json_pack("{s:s, s:i, s:o}", "vector_kind", vec_prefix(w), "vector_bits", w * 8,
		      "vectors", vec);
	for (unsigned i = 0; i < 8 && !fpl_image_opmask(img, i, &kv); i++)
		json_array_append_new(k, hex64(kv));
	json_object_set_new(o, "opmask", k);
	if (!fpl_image_pkru(img, &pkru))
		json_object_set_new(o, "pkru", hex64(pkru));
	return o;
}

static json_t *components_json(const struct fpl_image *img)
{
	json_t *a = json_array();

	for (unsigned i = 0; i < FPL_XFEATURE_MAX; i++) {
		int64_t off = fpl_image_offset(img, i);
		bool on = img->xstate_bv >> i & 1;

		if (!(img->xcr0 >> i & 1) && !on && !(img->xcomp_bv >> i & 1))
			continue;
		json_array_append_new(a, json_pack("{s:i, s:s, s:b, s:o, s:b}", "id", i,
			"name", fpl_xfeature_name(i), "in_xstate_bv", on,
			"offset", off < 0 ? json_null() : json_integer(off),
			"readable", on && fpl_image_component(img, i, NULL) != NULL));
	}
	return a;
}

static json_t *verdict_json(const struct fpl_image *img)
{
	json_t *a = json_array();

	for (unsigned i = 0; i < img->nfindings; i++) {
		const struct fpl_image_finding *x = &img->findings[i];

		json_array_append_new(a, json_pack("{s:s, s:s, s:I, s:s}", "severity",
			fpl_image_severity_name(x->severity), "rule", x->rule,
			"offset", (json_int_t)x->offset, "message", x->msg));
	}
	return json_pack("{s:b, s:b, s:b, s:o, s:b}", "accepted", !fpl_image_rejected(img),
			 "xrstor_faults", img->xrstor_faults, "kernel_rejects",
			 img->kernel_rejects, "findings", a, "findings_dropped",
			 img->findings_dropped);
}

static json_t *tiles_json(const struct fpl_image *img)
{
	struct fpl_image_tiles t;
	json_t *cfg, *ct = json_array(), *dt = json_array(), *data;
	char rows[160];

	if (fpl_image_tiles(img, &t)) {
		json_decref(ct);
		json_decref(dt);
		return json_null();
	}
	for (unsigned i = 0; i < FPL_AMX_TILES_MAX; i++)
		if (t.cfg.rows[i] || t.cfg.colsb[i])
			json_array_append_new(ct, json_pack("{s:i, s:i, s:i}", "tile", i, "rows",
							    t.cfg.rows[i], "colsb", t.cfg.colsb[i]));
	cfg = json_pack("{s:b, s:b, s:i, s:i, s:b, s:s, s:s?, s:o, s:s}", "in_xstate_bv",
			t.cfg_in_bv, "readable", t.cfg_readable, "palette", t.cfg.palette,
			"start_row", t.cfg.start_row, "valid", t.cfg_check > 0, "state",
			cfg_state(&t), "why_invalid", t.cfg_check < 0 ? t.cfg_why : NULL, "tiles", ct,
			"after_xrstor", cfg_after(&t));
	for (int i = 0; i < t.ntiles; i++) {
		row_list(t.tile[i].nonzero_rows, rows, sizeof(rows));
		json_array_append_new(dt, json_pack("{s:i, s:o, s:s, s:i, s:o}", "tile", i,
			"nonzero_rows", hex64(t.tile[i].nonzero_rows), "nonzero_row_list", rows,
			"rows", t.tile[i].rows, "fnv1a32", hex64(t.tile[i].checksum)));
	}
	data = json_pack("{s:b, s:b, s:o, s:b, s:s}", "in_xstate_bv", t.data_in_bv, "readable",
			 t.data_readable, "tiles", dt, "unconfigured_after_xrstor",
			 t.data_unconfigured, "after_xrstor", data_after(img, &t));
	return json_pack("{s:o, s:o}", "tilecfg", cfg, "tiledata", data);
}

int fpl_json_decode(FILE *f, const char *path, const struct fpl_cpu *cpu,
		    const struct fpl_image_cfg *cfg, const struct fpl_image *img)
{
	json_t *o = json_pack("{s:s, s:I, s:s, s:s, s:{s:s, s:s, s:b, s:o, s:o, s:s}, s:o, s:o, "
			      "s:b, s:o, s:o, s:o, s:o, s:o, s:o}",
		"file", path, "size", (json_int_t)img->len,
		"format", fpl_image_format_name(img->format), "format_reason", img->why,
		"cpu", "vendor", cpu->vendor, "source", cpu->source, "live", cpu->live,
		"xcr0", hex64(img->xcr0), "mxcsr_mask", hex64(cfg->mxcsr_mask),
		"mxcsr_mask_source", cfg->mxcsr_mask_source,
		"xstate_bv", hex64(img->xstate_bv), "xcomp_bv", hex64(img->xcomp_bv),
		"compacted", img->compacted, "rfbm", hex64(img->rfbm),
		"verdict", verdict_json(img), "components", components_json(img),
		"x87", x87_json(img),
		"mxcsr", json_pack("{s:o, s:s, s:o, s:o, s:b, s:b}", "value", hex64(img->mxcsr),
				   "rounding", rc_names[img->mxcsr >> 13 & 3],
				   "flags", flags_json(img->mxcsr),
				   "masked", flags_json(img->mxcsr >> 7),
				   "daz", (img->mxcsr & 0x40) != 0, "ftz", (img->mxcsr & 0x8000) != 0),
		"registers", regs_json(img));
	int rc = 0;

	if (!o)
		return -ENOMEM;
	if (img->format == FPL_IMAGE_SIGNAL)
		json_object_set_new(o, "sw_bytes", json_pack("{s:o, s:I, s:o, s:I, s:b, s:b}",
			"magic1", hex64(img->sw.magic1), "extended_size",
			(json_int_t)img->sw.extended_size, "xfeatures", hex64(img->sw.xfeatures),
			"xstate_size", (json_int_t)img->sw.xstate_size,
			"magic2_found", img->sw.magic2_found, "valid", img->sw.valid));
	if (img->format == FPL_IMAGE_PTRACE) {
		json_object_set_new(o, "ptrace_xcr0", hex64(img->ptrace_xcr0));
		json_object_set_new(o, "ptrace_tracee", json_pack("{s:s, s:s, s:b, s:o, s:b}",
			"case", fpl_ptrace_tracee_name(img->tracee),
			"words", fpl_ptrace_tracee_words(img->tracee),
			"strictest", img->tracee == FPL_TRACEE_NO_PERM,
			"xstate_bv_allowed", hex64(img->ptrace_features),
			"case_matters", fpl_xstate_xfd_mask(img->xs) != 0));
	}
	json_object_set_new(o, "amx", tiles_json(img));
	if (json_dumpf(o, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) || fputc('\n', f) == EOF)
		rc = -EIO;
	json_decref(o);
	return rc;
}
