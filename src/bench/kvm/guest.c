// SPDX-License-Identifier: GPL-3.0-or-later
/* The guest's loop as machine code: CPUIDs, an XRSTOR of its state, OUT to a port, jump back. */
#include <string.h>

#include "vm.h"

struct emit {
	uint8_t *p;
	size_t n, len;
	bool over;
};

static void bytes(struct emit *e, const uint8_t *b, size_t n)
{
	if (e->n + n > e->len) {
		e->over = true;
		return;
	}
	memcpy(e->p + e->n, b, n);
	e->n += n;
}

static void imm32(struct emit *e, uint8_t op, uint32_t v)
{
	uint8_t b[5] = { op, (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };

	bytes(e, b, sizeof(b));
}

size_t fpl_kvm_guest_code(const struct fpl_kvm_guest *g, uint32_t image, bool host_call,
			  uint8_t *code, size_t len)
{
	static const uint8_t cpuid0[] = { 0x31, 0xc0, 0x0f, 0xa2 };	/* xor eax,eax; cpuid */
	static const uint8_t xrstor[] = { 0x48, 0x0f, 0xae, 0x2b };	/* xrstor64 [rbx] */
	static const uint8_t out[] = { 0xe6, FPL_KVM_PORT };		/* out FPL_KVM_PORT, al */
	static const uint8_t push_rbx = 0x53, pop_rbx = 0x5b, ret = 0xc3;
	struct emit e = { code, 0, len, false };
	size_t loop;

	/* CPUID and XRSTOR's base both use RBX, callee-saved in this process's ABI. */
	if (host_call)
		bytes(&e, &push_rbx, 1);
	loop = e.n;
	for (unsigned i = 0; i < g->cpuids; i++)
		bytes(&e, cpuid0, sizeof(cpuid0));
	/* Last before the exit: the state KVM saves at the exit is the one written. */
	if (g->writes) {
		imm32(&e, 0xb8, (uint32_t)g->rfbm);		/* mov eax, rfbm[31:0] */
		imm32(&e, 0xba, (uint32_t)(g->rfbm >> 32));	/* mov edx, rfbm[63:32] */
		imm32(&e, 0xbb, image);				/* mov ebx, image */
		bytes(&e, xrstor, sizeof(xrstor));
	}
	if (host_call) {
		bytes(&e, &pop_rbx, 1);
		bytes(&e, &ret, 1);
	} else {
		/* out; jmp rel32 back to the loop's start (5 bytes, from its own end) */
		bytes(&e, out, sizeof(out));
		imm32(&e, 0xe9, (uint32_t)-(int32_t)(e.n + 5 - loop));
	}
	return e.over ? 0 : e.n;
}
