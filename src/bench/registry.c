// SPDX-License-Identifier: GPL-3.0-or-later
/* The list of benchmarks (generated from file names) and their declared options. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpulab/bench.h"

#define FPL_BENCH(n) extern const struct fpl_bench fpl_bench_##n;
#include "fpl_benches.h"
#undef FPL_BENCH

const struct fpl_bench *const fpl_benches[] = {
#define FPL_BENCH(n) &fpl_bench_##n,
#include "fpl_benches.h"
#undef FPL_BENCH
	NULL
};
const size_t fpl_nbenches = FPL_ARRAY_SIZE(fpl_benches) - 1;

const struct fpl_bench *fpl_bench_find(const char *name)
{
	for (size_t i = 0; i < fpl_nbenches; i++)
		if (!strcmp(fpl_benches[i]->name, name))
			return fpl_benches[i];
	return NULL;
}

const struct fpl_opt *fpl_bench_find_opt(const struct fpl_bench *b, const char *name)
{
	for (const struct fpl_opt *o = b->opts; o && o->name; o++)
		if (!strcmp(o->name, name))
			return o;
	return NULL;
}

int fpl_parse_int(const char *s, long long *out)
{
	char *end;
	long long v, mul = 1;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 0);
	if (errno || end == s)
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K': mul = 1024; end++; break;
	case 'M': mul = 1024 * 1024; end++; break;
	case 'G': mul = 1024LL * 1024 * 1024; end++; break;
	default: break;
	}
	/* "9000000000G" must be an error, not signed overflow */
	if (*end || __builtin_mul_overflow(v, mul, &v))
		return -EINVAL;
	*out = v;
	return 0;
}

static int check_one(const struct fpl_bench *b, const struct fpl_opt *o,
		     const char *v, struct fpl_diag *diag)
{
	long long i;
	double d = 0;
	char *end;

	switch (o->type) {
	case FPL_OPT_FLAG:
		if (v)
			return fpl_diag_set(diag, -EINVAL, "%s: --%s takes no value",
					    b->name, o->name);
		return 0;
	case FPL_OPT_INT:
		if (fpl_parse_int(v, &i))
			return fpl_diag_set(diag, -EINVAL, "%s: --%s: '%s' is not an integer",
					    b->name, o->name, v ? v : "");
		d = (double)i;
		break;
	case FPL_OPT_REAL:
		d = v ? strtod(v, &end) : NAN;
		if (!v || !*v || *end || isnan(d))
			return fpl_diag_set(diag, -EINVAL, "%s: --%s: '%s' is not a number",
					    b->name, o->name, v ? v : "");
		break;
	case FPL_OPT_STR:
		if (!v)
			return fpl_diag_set(diag, -EINVAL, "%s: --%s needs a value",
					    b->name, o->name);
		if (o->choices) {
			for (const char *const *c = o->choices; *c; c++)
				if (!strcmp(*c, v))
					return 0;
			return fpl_diag_set(diag, -EINVAL, "%s: --%s: '%s' is not one of the choices",
					    b->name, o->name, v);
		}
		return 0;
	}
	if ((o->min || o->max) && (d < o->min || d > o->max))
		return fpl_diag_set(diag, -EINVAL, "%s: --%s: %s is outside [%g, %g]",
				    b->name, o->name, v, o->min, o->max);
	return 0;
}

int fpl_bench_check_opts(const struct fpl_bench *b, const struct fpl_optval *v,
			 size_t n, struct fpl_diag *diag)
{
	for (size_t i = 0; i < n; i++) {
		const struct fpl_opt *o = fpl_bench_find_opt(b, v[i].name);
		int err;

		if (!o)
			return fpl_diag_set(diag, -EINVAL, "%s: unknown option --%s",
					    b->name, v[i].name);
		err = check_one(b, o, v[i].value, diag);
		if (err)
			return err;
	}
	return 0;
}

int fpl_bench_prepare(const struct fpl_bench *b, const struct fpl_cpu *cpu,
		      const struct fpl_optval *opts, size_t nopts, void *cfg,
		      struct fpl_diag *diag)
{
	struct fpl_bench_env env = { .bench = b, .cpu = cpu, .opts = opts, .nopts = nopts };
	void *scratch = NULL;
	int err = fpl_bench_check_opts(b, opts, nopts, diag);

	if (err || !b->check)
		return err;
	if (!cfg && b->cfg_size && !(cfg = scratch = calloc(1, b->cfg_size)))
		return fpl_diag_set(diag, -ENOMEM, "out of memory");
	env.cfg = cfg;
	err = b->check(&env, cfg, diag);
	free(scratch);
	/* Named as the descriptor's checks name it: "BENCH: --opt ...". */
	return fpl_diag_prefix(diag, err, b->name);
}

const char *fpl_bench_opt(const struct fpl_bench_env *env, const char *name)
{
	const struct fpl_opt *o;

	/* The last occurrence wins, as with getopt. */
	for (size_t i = env->nopts; i-- > 0;)
		if (!strcmp(env->opts[i].name, name))
			return env->opts[i].value;
	o = env->bench ? fpl_bench_find_opt(env->bench, name) : NULL;
	return o ? o->def : NULL;
}

bool fpl_bench_flag(const struct fpl_bench_env *env, const char *name)
{
	for (size_t i = 0; i < env->nopts; i++)
		if (!strcmp(env->opts[i].name, name))
			return true;
	return false;
}

long long fpl_bench_opt_int(const struct fpl_bench_env *env, const char *name, long long def)
{
	const char *s = fpl_bench_opt(env, name);
	long long v;

	return s && !fpl_parse_int(s, &v) ? v : def;
}

double fpl_bench_opt_real(const struct fpl_bench_env *env, const char *name, double def)
{
	const char *s = fpl_bench_opt(env, name);
	char *end;
	double v;

	if (!s)
		return def;
	v = strtod(s, &end);
	return *s && !*end ? v : def;
}

double fpl_bench_budget(const struct fpl_bench *b, const struct fpl_bench_env *env, bool ab)
{
	const struct fpl_budget *d = &b->budget;

	if (env->budget_s > 0)
		return env->budget_s;
	if (ab && b->budget_ab.full_s > 0)
		d = &b->budget_ab;
	return env->quick ? d->quick_s : d->full_s;
}

void fpl_bench_progress(const struct fpl_bench_env *env, double frac, const char *what)
{
	if (env->progress)
		env->progress(env->progress_arg, env->bench ? env->bench->name : "",
			      frac, what);
}

int fpl_parse_sizes(const char *s, size_t lo, size_t hi, size_t unit, size_t *out, size_t max,
		    size_t *n, struct fpl_diag *diag)
{
	char item[64];
	size_t k = 0;

	if (!s || !*s)
		return fpl_diag_set(diag, -EINVAL, "an empty list of sizes");
	while (*s) {
		size_t len = strcspn(s, ",");
		long long v;

		if (len == 0 || len >= sizeof(item))
			return fpl_diag_set(diag, -EINVAL, "'%.*s' is not a size", (int)len, s);
		memcpy(item, s, len);
		item[len] = 0;
		if (fpl_parse_int(item, &v) || v <= 0)
			return fpl_diag_set(diag, -EINVAL, "'%s' is not a size in bytes", item);
		if ((size_t)v < lo || (size_t)v > hi)
			return fpl_diag_set(diag, -EINVAL, "size %s is outside [%zu, %zu] bytes",
					    item, lo, hi);
		if (unit > 1 && (size_t)v % unit)
			return fpl_diag_set(diag, -EINVAL, "size %s is not a multiple of %zu bytes",
					    item, unit);
		if (k == max)
			return fpl_diag_set(diag, -EINVAL, "more than %zu sizes", max);
		out[k++] = (size_t)v;
		s += len;
		if (*s == ',' && !*++s)
			return fpl_diag_set(diag, -EINVAL, "a size list ends with ','");
	}
	*n = k;
	return 0;
}
