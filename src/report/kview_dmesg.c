// SPDX-License-Identifier: GPL-3.0-or-later
/* The kernel's x86/fpu boot lines checked against the layout fpulab computes from CPUID. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "kernelview.h"

static int check(json_t *a, const char *what, long long kernel, long long fpulab, int *bad)
{
	bool ok = kernel == fpulab;

	if (!ok)
		(*bad)++;
	return json_array_append_new(a, json_pack("{s:s, s:I, s:I, s:b}", "what", what,
						  "kernel", (json_int_t)kernel,
						  "fpulab", (json_int_t)fpulab, "ok", ok));
}

int fpl_kview_dmesg_check(const struct fpl_kt_dmesg *d, const struct fpl_xstate *xs,
			  json_t **out)
{
	bool compacted = !strcmp(d->format, "compacted");
	uint64_t mask = d->enabled;
	json_t *o, *a = json_array();
	char what[64], buf[32];
	int bad = 0, err = 0;

	if (!a)
		return -ENOMEM;
	/* User components: the kernel's enabled set is XCR0; supervisor ones must be enumerated. */
	err |= check(a, "user features (XCR0)", (long long)(mask & ~xs->supervisor),
		     (long long)xs->xcr0, &bad);
	/* Beyond XCR0 only supervisor components CPUID enumerates (CET_S, ...). */
	err |= check(a, "supervisor features", (long long)(mask & ~xs->xcr0),
		     (long long)(mask & ~xs->xcr0 & xs->supervisor), &bad);
	/*
	 * x87 is the first 'Supporting' line: without it the ring buffer has
	 * already dropped the start of the boot log (kernel messages since
	 * boot rotated it out), and the lines left say nothing about the rest.
	 */
	if (d->features != mask && d->nfeatures && (d->features & 1))
		err |= check(a, "'Supporting' lines against 'Enabled'", (long long)d->features,
			     (long long)mask, &bad);
	for (unsigned i = 0; i < FPL_KT_DMESG_MAX && i < FPL_XFEATURE_MAX; i++) {
		if (d->offset[i] < 0)
			continue;
		snprintf(what, sizeof(what), "xstate_offset[%u] (%s)", i, fpl_xfeature_name(i));
		err |= check(a, what, d->offset[i], compacted ?
			     fpl_xstate_offset_compacted(xs, mask, i) : fpl_xstate_offset_std(xs, i),
			     &bad);
		snprintf(what, sizeof(what), "xstate_sizes[%u] (%s)", i, fpl_xfeature_name(i));
		err |= check(a, what, d->size[i], xs->comp[i].size, &bad);
	}
	if (d->context_size > 0)
		err |= check(a, compacted ? "context size (compacted)" : "context size (standard)",
			     d->context_size, compacted ? fpl_xstate_size_compacted(xs, mask) :
			     fpl_xstate_size_std(xs, mask), &bad);
	snprintf(buf, sizeof(buf), "0x%" PRIx64, mask);
	o = json_pack("{s:i, s:s, s:I, s:s, s:o, s:i}", "lines", (int)d->lines, "enabled", buf,
		      "context_size", (json_int_t)d->context_size, "format", d->format,
		      "checks", a, "mismatches", bad);
	if (!o || err)
		return json_decref(o), -ENOMEM;
	*out = o;
	return 0;
}

void fpl_kview_dmesg_print(const json_t *c, FILE *f)
{
	const json_t *a = json_object_get(c, "checks"), *x;
	int bad = (int)json_integer_value(json_object_get(c, "mismatches"));
	size_t i;

	fprintf(f, "Kernel's view (dmesg x86/fpu, %d lines): enabled %s, context size %"
		JSON_INTEGER_FORMAT " bytes, '%s' format: %s\n",
		(int)json_integer_value(json_object_get(c, "lines")),
		json_string_value(json_object_get(c, "enabled")),
		json_integer_value(json_object_get(c, "context_size")),
		json_string_value(json_object_get(c, "format")),
		bad ? "DIFFERS from fpulab's CPUID layout" : "agrees with fpulab's CPUID layout");
	json_array_foreach(a, i, x) {
		bool hex = strstr(json_string_value(json_object_get(x, "what")), "feature") != NULL;

		if (json_is_true(json_object_get(x, "ok")) && !bad)
			continue;
		if (hex)
			fprintf(f, "  %-40s kernel 0x%llx fpulab 0x%llx %s\n",
				json_string_value(json_object_get(x, "what")),
				(unsigned long long)json_integer_value(json_object_get(x, "kernel")),
				(unsigned long long)json_integer_value(json_object_get(x, "fpulab")),
				json_is_true(json_object_get(x, "ok")) ? "ok" : "DIFFERS");
		else
			fprintf(f, "  %-40s kernel %lld fpulab %lld %s\n",
				json_string_value(json_object_get(x, "what")),
				(long long)json_integer_value(json_object_get(x, "kernel")),
				(long long)json_integer_value(json_object_get(x, "fpulab")),
				json_is_true(json_object_get(x, "ok")) ? "ok" : "DIFFERS");
	}
}
