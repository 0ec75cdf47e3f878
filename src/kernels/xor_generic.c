// SPDX-License-Identifier: GPL-3.0-or-later
/* xor templates in plain C on general registers: the kernel's 8regs and 32regs shapes. */
#include "kernels/xor_internal.h"

/*
 * The kernel builds these with -mno-sse; without this gcc would vectorize
 * them and they would touch XMM state, which the model must not see.
 */
#if defined(__clang__)
#pragma clang attribute push (__attribute__((target("no-sse"))), apply_to = function)
#elif defined(__GNUC__)
#pragma GCC target("general-regs-only")
#endif

/* 8regs: one 64-byte group per iteration, each word read, xored and written in turn. */
void fpl_xor_8regs_2(size_t bytes, uint64_t *restrict d, const uint64_t *restrict s1)
{
	for (size_t n = bytes / 64; n; n--, d += 8, s1 += 8)
		_Pragma("GCC unroll 8")
		for (int i = 0; i < 8; i++)
			d[i] ^= s1[i];
}

void fpl_xor_8regs_3(size_t bytes, uint64_t *restrict d, const uint64_t *restrict s1,
		     const uint64_t *restrict s2)
{
	for (size_t n = bytes / 64; n; n--, d += 8, s1 += 8, s2 += 8)
		_Pragma("GCC unroll 8")
		for (int i = 0; i < 8; i++)
			d[i] ^= s1[i] ^ s2[i];
}

void fpl_xor_8regs_4(size_t bytes, uint64_t *restrict d, const uint64_t *restrict s1,
		     const uint64_t *restrict s2, const uint64_t *restrict s3)
{
	for (size_t n = bytes / 64; n; n--, d += 8, s1 += 8, s2 += 8, s3 += 8)
		_Pragma("GCC unroll 8")
		for (int i = 0; i < 8; i++)
			d[i] ^= s1[i] ^ s2[i] ^ s3[i];
}

void fpl_xor_8regs_5(size_t bytes, uint64_t *restrict d, const uint64_t *restrict s1,
		     const uint64_t *restrict s2, const uint64_t *restrict s3,
		     const uint64_t *restrict s4)
{
	for (size_t n = bytes / 64; n; n--, d += 8, s1 += 8, s2 += 8, s3 += 8, s4 += 8)
		_Pragma("GCC unroll 8")
		for (int i = 0; i < 8; i++)
			d[i] ^= s1[i] ^ s2[i] ^ s3[i] ^ s4[i];
}

/*
 * 32regs: written for machines with many registers: pull eight words of the
 * destination in, xor each source in bursts, store the eight in a burst.
 */
#define U8		_Pragma("GCC unroll 8")
#define LOAD8(v, p)	uint64_t v[8]; U8 for (int i = 0; i < 8; i++) v[i] = (p)[i]
#define XOR8(v, p)	U8 for (int i = 0; i < 8; i++) v[i] ^= (p)[i]
#define STORE8(p, v)	U8 for (int i = 0; i < 8; i++) (p)[i] = v[i]

void fpl_xor_32regs_2(size_t bytes, uint64_t *restrict d, const uint64_t *restrict s1)
{
	for (size_t n = bytes / 64; n; n--, d += 8, s1 += 8) {
		LOAD8(v, d);
		XOR8(v, s1);
		STORE8(d, v);
	}
}

void fpl_xor_32regs_3(size_t bytes, uint64_t *restrict d, const uint64_t *restrict s1,
		      const uint64_t *restrict s2)
{
	for (size_t n = bytes / 64; n; n--, d += 8, s1 += 8, s2 += 8) {
		LOAD8(v, d);
		XOR8(v, s1);
		XOR8(v, s2);
		STORE8(d, v);
	}
}

void fpl_xor_32regs_4(size_t bytes, uint64_t *restrict d, const uint64_t *restrict s1,
		      const uint64_t *restrict s2, const uint64_t *restrict s3)
{
	for (size_t n = bytes / 64; n; n--, d += 8, s1 += 8, s2 += 8, s3 += 8) {
		LOAD8(v, d);
		XOR8(v, s1);
		XOR8(v, s2);
		XOR8(v, s3);
		STORE8(d, v);
	}
}

void fpl_xor_32regs_5(size_t bytes, uint64_t *restrict d, const uint64_t *restrict s1,
		      const uint64_t *restrict s2, const uint64_t *restrict s3,
		      const uint64_t *restrict s4)
{
	for (size_t n = bytes / 64; n; n--, d += 8, s1 += 8, s2 += 8, s3 += 8, s4 += 8) {
		LOAD8(v, d);
		XOR8(v, s1);
		XOR8(v, s2);
		XOR8(v, s3);
		XOR8(v, s4);
		STORE8(d, v);
	}
}

#if defined(__clang__)
#pragma clang attribute pop
#endif
