// SPDX-License-Identifier: GPL-3.0-or-later
/* A metric's typed facts: the quantity it belongs to, sample or difference, the method's facts and parts. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpulab/result.h"

int fpl_metric_set_family(struct fpl_metric *m, const char *family)
{
	char *f = strdup(family);

	if (!f)
		return -ENOMEM;
	free(m->family);
	m->family = f;
	return 0;
}

void fpl_metric_set_kind(struct fpl_metric *m, enum fpl_metric_kind kind)
{
	m->kind = kind;
}

void fpl_metric_set_how(struct fpl_metric *m, const struct fpl_metric_how *how)
{
	m->how = *how;
}

int fpl_metric_set_method(struct fpl_metric *m, const char *what, const char *timing,
			  const char *unit_part)
{
	bool t = timing && *timing, u = unit_part && *unit_part;
	char *s;

	if (asprintf(&s, "%s%s%s%s%s", what, t ? "; " : "", t ? timing : "", u ? "; " : "",
		     u ? unit_part : "") < 0)
		return -ENOMEM;
	free(m->method);
	m->method = s;
	m->what_len = strlen(what);
	m->timing_len = t ? strlen(timing) : 0;
	return 0;
}

int fpl_metric_copy_facts(struct fpl_metric *m, const struct fpl_metric *src)
{
	m->kind = src->kind;
	m->how = src->how;
	return fpl_metric_set_family(m, fpl_metric_family(src)) ||
	       fpl_metric_set_what_generic(m, src->what_generic) ? -ENOMEM : 0;
}

int fpl_metric_set_what_generic(struct fpl_metric *m, const char *what)
{
	char *c = what ? strdup(what) : NULL;

	if (what && !c)
		return -ENOMEM;
	free(m->what_generic);
	m->what_generic = c;
	return 0;
}

const char *fpl_metric_family(const struct fpl_metric *m)
{
	return m->family ? m->family : m->name;
}

enum fpl_metric_kind fpl_metric_kind(const struct fpl_metric *m)
{
	return m->kind;
}

const struct fpl_metric_how *fpl_metric_how(const struct fpl_metric *m)
{
	return &m->how;
}

bool fpl_metric_is_difference(const struct fpl_metric *m)
{
	return m && m->kind == FPL_KIND_DIFFERENCE;
}

void fpl_metric_method_parts(const struct fpl_metric *m, struct fpl_method_parts *p)
{
	const char *s = m->method ? m->method : "";
	size_t len = strlen(s), what = m->what_len < len ? m->what_len : len, at;

	memset(p, 0, sizeof(*p));
	p->what = s;
	p->what_len = what;
	at = what + 2;	/* past "; " */
	if (m->timing_len && at + m->timing_len <= len) {
		p->timing = s + at;
		p->timing_len = m->timing_len;
		at += m->timing_len + 2;
	}
	p->unit = s + (at < len ? at : len);
	p->unit_len = at < len ? len - at : 0;
}

static const char *const kind_names[] = {
	[FPL_KIND_SAMPLE] = "sample", [FPL_KIND_DIFFERENCE] = "difference", [FPL_KIND_NET] = "net",
};
static const char *const clock_names[] = {
	[FPL_MCLOCK_NONE] = "none", [FPL_MCLOCK_TSC] = "tsc",
	[FPL_MCLOCK_MONOTONIC_RAW] = "monotonic-raw", [FPL_MCLOCK_MONOTONIC] = "monotonic",
};
static const char *const overhead_names[] = {
	[FPL_OVERHEAD_NONE] = "none", [FPL_OVERHEAD_N_VS_2N] = "n-vs-2n",
	[FPL_OVERHEAD_EMPTY_BODY] = "empty-body",
};
static const char *const conv_names[] = {
	[FPL_CONV_NONE] = "none", [FPL_CONV_NS_FROM_TSC] = "ns-from-tsc",
	[FPL_CONV_TSC_FROM_NS] = "tsc-from-ns", [FPL_CONV_CYCLES_ESTIMATED] = "cycles-estimated",
	[FPL_CONV_CYCLES_COUNTED] = "cycles-counted", [FPL_CONV_COMPUTED] = "computed",
};

static const char *name_of(const char *const *names, size_t n, int v)
{
	return v >= 0 && (size_t)v < n ? names[v] : NULL;
}

static int by_name(const char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; name && i < n; i++)
		if (names[i] && !strcmp(names[i], name))
			return (int)i;
	return -1;
}

/* The name and its inverse for each of the four enumerations. */
#define FPL_METRIC_NAMES(what, type, table)					\
	const char *fpl_metric_##what##_name(type v)				\
	{									\
		return name_of(table, FPL_ARRAY_SIZE(table), (int)v);		\
	}									\
	int fpl_metric_##what##_by_name(const char *name)			\
	{									\
		return by_name(table, FPL_ARRAY_SIZE(table), name);		\
	}

FPL_METRIC_NAMES(kind, enum fpl_metric_kind, kind_names)
FPL_METRIC_NAMES(clock, enum fpl_metric_clock, clock_names)
FPL_METRIC_NAMES(overhead, enum fpl_metric_overhead, overhead_names)
FPL_METRIC_NAMES(conv, enum fpl_metric_conv, conv_names)
