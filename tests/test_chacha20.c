// SPDX-License-Identifier: GPL-3.0-or-later
/* Tests for src/kernels ChaCha20: RFC 8439 vectors for every row, and rows against each other. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fpulab/chacha20.h"
#include "fpulab/xstate.h"
#include "upper.h"

static struct fpl_cpu cpu;

/* RFC 8439 outputs (sections 2.3.2, 2.4.2, A.1, A.2), hex */
#define V232 \
	  "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e" \
	  "d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e"
#define V242 \
	  "6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0b" \
	  "f91b65c5524733ab8f593dabcd62b3571639d624e65152ab8f530c359f0861d8" \
	  "07ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab7793736" \
	  "5af90bbf74a35be6b40b8eedf2785e42874d"
#define VA11 \
	  "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7" \
	  "da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586"
#define VA12 \
	  "9f07e7be5551387a98ba977c732d080dcb0f29a048e3656912c6533e32ee7aed" \
	  "29b721769ce64e43d57133b074d839d531ed1f28510afb45ace10a1f4b794d6f"
#define VA13 \
	  "3aeb5224ecf849929b9d828db1ced4dd832025e8018b8160b82284f3c949aa5a" \
	  "8eca00bbb4a73bdad192b5c42f73f2fd4e273644c8b36125a64addeb006c13a0"
#define VA14 \
	  "72d54dfbf12ec44b362692df94137f328fea8da73990265ec1bbbea1ae9af0ca" \
	  "13b25aa26cb4a648cb9b9d1be65b2c0924a66c54d545ec1b7374f4872e99f096"
#define VA15 \
	  "c2c64d378cd536374ae204b9ef933fcd1a8b2288b3dfa49672ab765b54ee27c7" \
	  "8a970e0e955c14f3a88e741b97c286f75f8fc299e8148362fa198a39531bed6d"
#define VA22 \
	  "a3fbf07df3fa2fde4f376ca23e82737041605d9f4f4f57bd8cff2c1d4b7955ec" \
	  "2a97948bd3722915c8f3d337f7d370050e9e96d647b7c39f56e031ca5eb6250d" \
	  "4042e02785ececfa4b4bb5e8ead0440e20b6e8db09d881a7c6132f420e527950" \
	  "42bdfa7773d8a9051447b3291ce1411c680465552aa6c405b7764d5e87bea85a" \
	  "d00f8449ed8f72d0d662ab052691ca66424bc86d2df80ea41f43abf937d3259d" \
	  "c4b2d0dfb48a6c9139ddd7f76966e928e635553ba76c5c879d7b35d49eb2e62b" \
	  "0871cdac638939e25e8a1e0ef9d5280fa8ca328b351c3c765989cbcf3daa8b6c" \
	  "cc3aaf9f3979c92b3720fc88dc95ed84a1be059c6499b9fda236e7e818b04b0b" \
	  "c39c1e876b193bfe5569753f88128cc08aaa9b63d1a16f80ef2554d7189c411f" \
	  "5869ca52c5b83fa36ff216b9c1d30062bebcfd2dc5bce0911934fda79a86f6e6" \
	  "98ced759c3ff9b6477338f3da4f9cd8514ea9982ccafb341b2384dd902f3d1ab" \
	  "7ac61dd29c6f21ba5b862f3730e37cfdc4fd806c22f221"
#define VA23 \
	  "62e6347f95ed87a45ffae7426f27a1df5fb69110044c0d73118effa95b01e5cf" \
	  "166d3df2d721caf9b21e5fb14c616871fd84c54f9d65b283196c7fe4f60553eb" \
	  "f39c6402c42234e32a356b3e764312a61a5532055716ead6962568f87d3f3f77" \
	  "04c6a8d1bcd1bf4d50d6154b6da731b187b58dfd728afa36757a797ac188d1"

static const char text_242[] = "Ladies and Gentlemen of the class of '99: If I could offer you "
	"only one tip for the future, sunscreen would be it.";
static const char text_a22[] = "Any submission to the IETF intended by the Contributor for "
	"publication as all or part of an IETF Internet-Draft or RFC and any statement made within "
	"the context of an IETF activity is considered an \"IETF Contribution\". Such statements "
	"include oral statements in IETF sessions, as well as written and electronic "
	"communications made at any time or place, which are addressed to";
static const char text_a23[] = "'Twas brillig, and the slithy toves\nDid gyre and gimble in the "
	"wabe:\nAll mimsy were the borogoves,\nAnd the mome raths outgrabe.";

struct vec {
	const char *name;
	uint8_t key[32];
	uint32_t counter;
	uint8_t nonce[12];
	const char *plain;	/* NULL: keystream (zeros in) */
	size_t len;
	const char *hex;
};

#define SEQ32 { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,	\
		21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31 }
#define KEY_A23 { 0x1c, 0x92, 0x40, 0xa5, 0xeb, 0x55, 0xd3, 0x8a, 0xf3, 0x33, 0x88, 0x86,	\
		  0x04, 0xf6, 0xb5, 0xf0, 0x47, 0x39, 0x17, 0xc1, 0x40, 0x2b, 0x80, 0x09,	\
		  0x9d, 0xca, 0x5c, 0xbc, 0x20, 0x70, 0x75, 0xc0 }

static const struct vec vecs[] = {
	{ "2.3.2", SEQ32, 1, { 0, 0, 0, 9, 0, 0, 0, 0x4a }, NULL, 64, V232 },
	{ "2.4.2", SEQ32, 1, { 0, 0, 0, 0, 0, 0, 0, 0x4a }, text_242, sizeof(text_242) - 1, V242 },
	{ "A.1 #1", { 0 }, 0, { 0 }, NULL, 64, VA11 },
	{ "A.1 #2", { 0 }, 1, { 0 }, NULL, 64, VA12 },
	{ "A.1 #3", { [31] = 1 }, 1, { 0 }, NULL, 64, VA13 },
	{ "A.1 #4", { [1] = 0xff }, 2, { 0 }, NULL, 64, VA14 },
	{ "A.1 #5", { 0 }, 0, { [11] = 2 }, NULL, 64, VA15 },
	{ "A.2 #1", { 0 }, 0, { 0 }, NULL, 64, VA11 },
	{ "A.2 #2", { [31] = 1 }, 1, { [11] = 2 }, text_a22, sizeof(text_a22) - 1, VA22 },
	{ "A.2 #3", KEY_A23, 42, { [11] = 2 }, text_a23, sizeof(text_a23) - 1, VA23 },
};

static void unhex(const char *h, uint8_t *out, size_t n)
{
	assert_int_equal(strlen(h), 2 * n);
	for (size_t i = 0; i < n; i++) {
		unsigned v;

		assert_int_equal(sscanf(h + 2 * i, "%2x", &v), 1);
		out[i] = (uint8_t)v;
	}
}

static void test_block_function(void **state)
{
	uint32_t st[16];
	uint8_t out[64], want[64];

	/* 2.3.2: the state before the rounds, then the serialised block */
	fpl_chacha20_init(st, vecs[0].key, 1, vecs[0].nonce);
	assert_int_equal(st[0], 0x61707865);
	assert_int_equal(st[4], 0x03020100);
	assert_int_equal(st[12], 1);
	assert_int_equal(st[13], 0x09000000);
	assert_int_equal(st[14], 0x4a000000);
	fpl_chacha20_block(st, out);
	unhex(V232, want, 64);
	assert_memory_equal(out, want, 64);
}

static void test_rfc_vectors(void **state)
{
	size_t n;
	const struct fpl_chacha20_impl *im = fpl_chacha20_impls(&n);
	uint8_t in[512], out[512], want[512];

	assert_int_equal(n, 4);
	for (size_t i = 0; i < n; i++) {
		const char *why = NULL;

		if (!im[i].supported(&cpu, &why)) {
			print_message("chacha20: skipped %s (%s)\n", im[i].name, why);
			assert_int_equal(fpl_chacha20_xor(&im[i], &cpu, in, 0, in, out, in, 64),
					 -ENOTSUP);
			continue;
		}
		for (size_t v = 0; v < FPL_ARRAY_SIZE(vecs); v++) {
			const struct vec *t = &vecs[v];

			memset(in, 0, sizeof(in));
			if (t->plain)
				memcpy(in, t->plain, t->len);
			unhex(t->hex, want, t->len);
			memset(out, 0xee, sizeof(out));
			assert_int_equal(fpl_chacha20_xor(&im[i], &cpu, t->key, t->counter, t->nonce,
							  out, in, t->len), 0);
			if (memcmp(out, want, t->len))
				fail_msg("%s: RFC 8439 %s differs", im[i].name, t->name);
			/* nothing written past len */
			for (size_t j = t->len; j < sizeof(out); j++)
				assert_int_equal(out[j], 0xee);
			/* decrypting in place gives the plaintext back */
			assert_int_equal(fpl_chacha20_xor(&im[i], &cpu, t->key, t->counter, t->nonce,
							  out, out, t->len), 0);
			assert_memory_equal(out, in, t->len);
		}
	}
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint8_t rnd8(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint8_t)(rng >> 32);
}

/* lengths around every batch size (64, 128, 256, 512) and a long one */
static const size_t lens[] = { 0, 1, 15, 63, 64, 65, 100, 127, 128, 129, 191, 255, 256, 257, 383,
			       511, 512, 513, 640, 1000, 1023, 1024, 1025, 1535, 4096, 4097, 65535 };

static void test_cross(void **state)
{
	size_t n;
	const struct fpl_chacha20_impl *im = fpl_chacha20_impls(&n);
	const size_t max = 65536 + 64;
	uint8_t *in = malloc(max + 1), *ref = malloc(max), *out = malloc(max + 1), key[32], nonce[12];
	/* 0xfffffffe: the 32-bit counter wraps inside the first SIMD batch */
	const uint32_t ctrs[] = { 0, 1, 7, 0xfffffffeu };

	assert_non_null(in);
	for (size_t l = 0; l < FPL_ARRAY_SIZE(lens); l++) {
		size_t len = lens[l];
		uint32_t ctr = ctrs[l % FPL_ARRAY_SIZE(ctrs)];

		for (size_t j = 0; j < max; j++)
			in[j] = rnd8();
		for (size_t j = 0; j < 32; j++)
			key[j] = rnd8();
		for (size_t j = 0; j < 12; j++)
			nonce[j] = rnd8();
		/* the reference: one RFC block at a time */
		for (size_t off = 0; off < len; off += 64) {
			uint32_t st[16];
			uint8_t ks[64];

			fpl_chacha20_init(st, key, ctr + (uint32_t)(off / 64), nonce);
			fpl_chacha20_block(st, ks);
			for (size_t j = off; j < len && j < off + 64; j++)
				ref[j] = in[j] ^ ks[j - off];
		}
		for (size_t i = 0; i < n; i++) {
			if (!im[i].supported(&cpu, NULL))
				continue;
			/* odd addresses: nothing may assume alignment */
			assert_int_equal(fpl_chacha20_xor(&im[i], &cpu, key, ctr, nonce, out + 1,
							  in + 1, len), 0);
			assert_int_equal(fpl_chacha20_xor(&im[i], &cpu, key, ctr, nonce, out, in,
							  len), 0);
			if (memcmp(out, ref, len))
				fail_msg("%s: %zu bytes from counter %u differ from the reference",
					 im[i].name, len, ctr);
		}
	}
	free(in);
	free(ref);
	free(out);
}

static void test_table_and_bad_input(void **state)
{
	uint8_t k[32] = { 0 }, nonce[12] = { 0 }, b[64];
	const struct fpl_chacha20_impl *s = fpl_chacha20_find("scalar");

	assert_non_null(s);
	assert_non_null(fpl_chacha20_find("avx512"));
	assert_null(fpl_chacha20_find("neon"));
	assert_int_equal(s->xfeatures, 0);
	assert_true(fpl_chacha20_find("avx2")->xfeatures & FPL_XFEATURE_MASK_YMM);
	assert_true(fpl_chacha20_find("avx512")->xfeatures & FPL_XFEATURE_MASK_ZMM_Hi256);
	assert_int_equal(fpl_chacha20_xor(NULL, NULL, k, 0, nonce, b, b, 64), -EINVAL);
	assert_int_equal(fpl_chacha20_xor(s, NULL, NULL, 0, nonce, b, b, 64), -EINVAL);
	assert_int_equal(fpl_chacha20_xor(s, NULL, k, 0, NULL, b, b, 64), -EINVAL);
	assert_int_equal(fpl_chacha20_xor(s, NULL, k, 0, nonce, NULL, b, 64), -EINVAL);
	assert_int_equal(fpl_chacha20_xor(s, NULL, k, 0, nonce, NULL, NULL, 0), 0);
}

struct call {
	const struct fpl_chacha20_impl *im;
	uint32_t st[16];
	uint8_t buf[1024 + 64];
};

static void call_stream(void *arg)
{
	struct call *c = arg;

	c->im->xor_stream(c->st, c->buf, c->buf, sizeof(c->buf));
}

/*
 * The kernel's chacha AVX2 and AVX-512VL routines end with VZEROUPPER; a
 * routine that returned with dirty upper state would make the code after it
 * slow on Intel (METHOD.md) and the section model price sections below zero.
 */
static void test_simd_leaves_upper_init(void **state)
{
	static struct call c;
	struct fpl_xstate xs;
	size_t n, ran = 0;
	const struct fpl_chacha20_impl *im = fpl_chacha20_impls(&n);

	upper_usable_or_skip(&cpu, &xs);
	for (size_t i = 0; i < n; i++) {
		uint64_t left;

		const char *why = NULL;

		if (!(im[i].xfeatures & UPPER_MASK))
			continue;
		if (!im[i].supported(&cpu, &why)) {
			print_message("chacha20/%s not run: %s\n", im[i].name,
				      why ? why : "not supported on this CPU");
			continue;
		}
		c.im = &im[i];
		left = upper_after(&cpu, &xs, call_stream, &c);
		if (left)
			fail_msg("chacha20/%s returned with XINUSE upper bits 0x%" PRIx64
				 " (YMM 0x4, ZMM_Hi256 0x40) still in use", im[i].name, left);
		ran++;
	}
	if (!ran) {
		print_message("no AVX2 or AVX-512 chacha20 implementation runs on this CPU\n");
		skip();
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_block_function),
		cmocka_unit_test(test_rfc_vectors),
		cmocka_unit_test(test_cross),
		cmocka_unit_test(test_table_and_bad_input),
		cmocka_unit_test(test_simd_leaves_upper_init),
	};

	fpl_cpu_read(&cpu);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
