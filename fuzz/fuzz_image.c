// SPDX-License-Identifier: GPL-3.0-or-later
/* libFuzzer target: the XSAVE image decoder, validator, register readers and converter on several CPUs. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpulab/cpu.h"
#include "fpulab/image.h"
#include "fpulab/xstate.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* CPUs the image is judged against, as dumps (tests/data/cpuid has their sources). */
static const char *const dumps[] = {
	/* AMD Zen 4: AVX-512, XSAVEC, MXCSR.MM */
	"xcr0 0xe7\n"
	"cpuid 0x00000000 0x00 0x00000010 0x68747541 0x444d4163 0x69746e65\n"
	"cpuid 0x00000001 0x00 0x00a10f11 0x00c00800 0x7efa320b 0x178bfbff\n"
	"cpuid 0x00000007 0x00 0x00000001 0xf1bf97a9 0x00415fce 0x10000010\n"
	"cpuid 0x0000000d 0x00 0x000002e7 0x00000980 0x00000988 0x00000000\n"
	"cpuid 0x0000000d 0x01 0x0000000f 0x00000990 0x00001800 0x00000000\n"
	"cpuid 0x0000000d 0x02 0x00000100 0x00000240 0x00000000 0x00000000\n"
	"cpuid 0x0000000d 0x05 0x00000040 0x00000340 0x00000000 0x00000000\n"
	"cpuid 0x0000000d 0x06 0x00000200 0x00000380 0x00000000 0x00000000\n"
	"cpuid 0x0000000d 0x07 0x00000400 0x00000580 0x00000000 0x00000000\n"
	"cpuid 0x0000000d 0x09 0x00000008 0x00000980 0x00000000 0x00000000\n"
	"cpuid 0x0000000d 0x0b 0x00000010 0x00000000 0x00000001 0x00000000\n"
	"cpuid 0x0000000d 0x0c 0x00000018 0x00000000 0x00000001 0x00000000\n"
	"cpuid 0x80000000 0x00 0x80000028 0x68747541 0x444d4163 0x69746e65\n"
	"cpuid 0x80000001 0x00 0x00a10f11 0x40000000 0x75c237ff 0x2fd3fbff\n",
	/* Intel Skylake client: AVX2, MPX enumerated but off, no AVX-512 */
	"xcr0 0x7\n"
	"cpuid 0x00000000 0x00 0x00000016 0x756e6547 0x6c65746e 0x49656e69\n"
	"cpuid 0x00000001 0x00 0x000506e3 0x00100800 0x7ffafbff 0xbfebfbff\n"
	"cpuid 0x00000007 0x00 0x00000000 0x029c67af 0x00000000 0x00000000\n"
	"cpuid 0x0000000d 0x00 0x0000001f 0x00000340 0x00000440 0x00000000\n"
	"cpuid 0x0000000d 0x01 0x0000000f 0x00000340 0x00000100 0x00000000\n"
	"cpuid 0x0000000d 0x02 0x00000100 0x00000240 0x00000000 0x00000000\n"
	"cpuid 0x0000000d 0x03 0x00000040 0x000003c0 0x00000000 0x00000000\n"
	"cpuid 0x0000000d 0x04 0x00000040 0x00000400 0x00000000 0x00000000\n",
	/* Intel Sapphire Rapids: AMX (64-byte aligned compacted components), PKRU */
	"cpuid 0x00000000 0x00 0x00000020 0x756e6547 0x6c65746e 0x49656e69\n"
	"cpuid 0x00000001 0x00 0x000806f8 0x00800800 0x7ffefbff 0xbfebfbff\n"
	"cpuid 0x00000007 0x00 0x00000002 0xf3bfbffb 0xbb417fee 0xffdd4430\n"
	"cpuid 0x00000007 0x01 0x00001c30 0x00000000 0x00000000 0x00000000\n"
	"cpuid 0x0000000d 0x00 0x000602e7 0x00002b00 0x00002b00 0x00000000\n"
	"cpuid 0x0000000d 0x01 0x0000001f 0x00002a80 0x0000dd00 0x00000000\n"
	"cpuid 0x0000000d 0x02 0x00000100 0x00000240 0x00000000 0x00000000\n"
	"cpuid 0x0000000d 0x05 0x00000040 0x00000440 0x00000000 0x00000000\n"
	"cpuid 0x0000000d 0x06 0x00000200 0x00000480 0x00000000 0x00000000\n"
	"cpuid 0x0000000d 0x07 0x00000400 0x00000680 0x00000000 0x00000000\n"
	"cpuid 0x0000000d 0x09 0x00000008 0x00000a80 0x00000000 0x00000000\n"
	"cpuid 0x0000000d 0x11 0x00000040 0x00000ac0 0x00000002 0x00000000\n"
	"cpuid 0x0000000d 0x12 0x00002000 0x00000b00 0x00000006 0x00000000\n",
	/* qemu64: no XSAVE at all (FXSAVE only) */
	("cpuid 0x00000000 0x00 0x0000000d 0x68747541 0x444d4163 0x69746e65\n"
	 "cpuid 0x00000001 0x00 0x00060fb1 0x00000800 0x80002001 0x078bfbfd\n"),
};

#define NCPU FPL_ARRAY_SIZE(dumps)

static struct fpl_cpu cpus[NCPU];
static struct fpl_xstate xss[NCPU];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	for (size_t i = 0; i < NCPU; i++) {
		struct fpl_diag diag;
		FILE *f = fmemopen((void *)dumps[i], strlen(dumps[i]), "r");

		if (!f || fpl_cpu_load_stream(&cpus[i], f, "builtin", &diag) ||
		    fpl_xstate_init(&xss[i], &cpus[i]))
			abort();
		fclose(f);
	}
	return 0;
}

/* Registers read the same from the original and from a converted image. */
static void same_registers(const struct fpl_image *a, const struct fpl_image *b)
{
	static const unsigned widths[] = { 16, 32, 64 };
	uint8_t va[64], vb[64];
	uint64_t ka, kb;
	uint32_t pa, pb;

	for (unsigned n = 0; n < 32; n++)
		for (size_t w = 0; w < 3; w++) {
			int ea = fpl_image_vector(a, n, widths[w], va);
			int eb = fpl_image_vector(b, n, widths[w], vb);

			if (ea != eb || (!ea && memcmp(va, vb, widths[w])))
				abort();
		}
	for (unsigned k = 0; k < 8; k++) {
		int ea = fpl_image_opmask(a, k, &ka), eb = fpl_image_opmask(b, k, &kb);

		if (ea != eb || (!ea && ka != kb))
			abort();
	}
	if (!fpl_image_pkru(a, &pa) && (fpl_image_pkru(b, &pb) || pa != pb))
		abort();
}

static void convert_and_check(const struct fpl_image *img, const struct fpl_image_cfg *cfg,
			      bool to_compacted)
{
	struct fpl_image_cfg c2 = *cfg;
	struct fpl_image back;
	struct fpl_diag diag;
	void *out = NULL;
	size_t len = 0;

	if (fpl_image_convert(img, to_compacted, img->xcr0, &out, &len, &diag))
		return;		/* refused with a reason (no XSAVEC ...) */
	c2.format = to_compacted ? FPL_IMAGE_COMPACTED : FPL_IMAGE_STANDARD;
	c2.rfbm = img->rfbm;
	/* What the converter writes, XRSTOR must accept with the RFBM the original had. */
	if (fpl_image_decode(out, len, &c2, &back, &diag))
		abort();
	if (back.xrstor_faults)
		abort();
	same_registers(img, &back);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fpl_image_cfg cfg;
	struct fpl_image img;
	struct fpl_diag diag;
	struct fpl_x87 x87;
	uint8_t v[64], *buf;
	unsigned sel;

	if (size < 2)
		return 0;
	sel = data[0] | data[1] << 8;
	data += 2;
	size -= 2;
	fpl_image_cfg_init(&cfg, &cpus[sel % NCPU], &xss[sel % NCPU]);
	cfg.format = (sel >> 3) % FPL_IMAGE_FORMAT_NR;
	if (sel >> 6 & 1)
		cfg.rfbm = FPL_XFEATURE_MASK_FPSSE | (sel >> 7 & 1 ? FPL_XFEATURE_MASK_YMM : 0);
	/* Aligned and exactly sized, so ASan sees any read past the end. */
	buf = aligned_alloc(64, (size + 63) & ~(size_t)63);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	if (fpl_image_decode(buf, size, &cfg, &img, &diag)) {
		if (!diag.msg[0])
			abort();
		free(buf);
		return 0;
	}
	if (img.nfindings > FPL_IMAGE_MAX_FINDINGS || img.format == FPL_IMAGE_AUTO)
		abort();
	for (unsigned i = 0; i < img.nfindings; i++)
		if (!img.findings[i].rule || !img.findings[i].msg[0])
			abort();
	fpl_image_x87(&img, &x87);
	for (unsigned id = 0; id < 64; id++) {
		uint32_t csize;
		const uint8_t *p = fpl_image_component(&img, id, &csize);

		(void)fpl_image_offset(&img, id);
		if (p && (p < buf || p + csize > buf + size))
			abort();
	}
	for (unsigned n = 0; n < 33; n++)
		(void)fpl_image_vector(&img, n, 64, v);
	if (!img.xrstor_faults) {
		convert_and_check(&img, &cfg, false);
		convert_and_check(&img, &cfg, true);
	}
	free(buf);
	return 0;
}
