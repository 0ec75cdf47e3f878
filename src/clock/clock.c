// SPDX-License-Identifier: GPL-3.0-or-later
/* The process clock: pinning, TSC rate, timer floor and step, core clock at start and end. */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fpulab/stats.h"
#include "clock_internal.h"

int fpl_current_cpu(void)
{
	int cpu = sched_getcpu();

	return cpu < 0 ? -1 : cpu;
}

int fpl_pin_cpu(int cpu)
{
	cpu_set_t set;

	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return -EINVAL;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -errno;
	return 0;
}

static double median_of(double *x, size_t n)
{
	fpl_sort(x, n);
	return fpl_quantile_sorted(x, n, 0.5);
}

/*
 * CPUID 0x15 (crystal * EBX / EAX), 0x16 (base MHz) or the hypervisor's
 * timing leaf on the running CPU; 0 if none gives it.
 */
static double tsc_hz_cpuid(enum fpl_tsc_source *src)
{
	uint32_t r[4], max;

	fpl_cpuid_raw(0, 0, r);
	max = r[0];
	if (max >= 0x15) {
		fpl_cpuid_raw(0x15, 0, r);
		if (r[0] && r[1] && r[2]) {
			*src = FPL_TSC_CPUID_15;
			return (double)r[2] * r[1] / r[0];
		}
	}
	if (max >= 0x16) {
		fpl_cpuid_raw(0x16, 0, r);
		if (r[0] & 0xffff) {
			*src = FPL_TSC_CPUID_16;
			return (r[0] & 0xffff) * 1e6;
		}
	}
	fpl_cpuid_raw(1, 0, r);
	if (r[2] & (1u << 31)) {	/* hypervisor present */
		fpl_cpuid_raw(0x40000000, 0, r);
		if (r[0] >= 0x40000010) {
			fpl_cpuid_raw(0x40000010, 0, r);
			if (r[0]) {
				*src = FPL_TSC_HYPERVISOR;
				return r[0] * 1e3;
			}
		}
	}
	return 0;
}

/* A TSC value and a CLOCK_MONOTONIC_RAW time taken together: the tightest of a few tries. */
static void tsc_time_pair(uint64_t *tsc, double *ns)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 7; i++) {
		struct timespec ts;
		uint64_t a = fpl_tsc_begin(), b;

		clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
		b = fpl_tsc_end();
		if (b - a < best) {
			best = b - a;
			*tsc = a + (b - a) / 2;
			*ns = ts.tv_sec * 1e9 + ts.tv_nsec;
		}
	}
}

static double tsc_hz_measure(void)
{
	struct timespec nap = { 0, 40 * 1000 * 1000 };
	uint64_t t0, t1;
	double n0, n1;

	tsc_time_pair(&t0, &n0);
	nanosleep(&nap, NULL);
	tsc_time_pair(&t1, &n1);
	return (double)(t1 - t0) * 1e9 / (n1 - n0);
}

void fpl_timer_estimate(double *pair_d, size_t np, const uint64_t *reads, size_t nr,
			struct fpl_timer_estimate *out)
{
	uint64_t step = UINT64_MAX;

	out->floor_tsc = np ? median_of(pair_d, np) : 0;
	for (size_t i = 1; i < nr; i++) {
		uint64_t d = reads[i] - reads[i - 1];

		if (d && d < step)
			step = d;
	}
	out->step_tsc = step == UINT64_MAX ? 1 : (double)step;
	out->min_sample_tsc = out->step_tsc / FPL_CLOCK_STEP_FRACTION;
}

static void timer_floor_step(struct fpl_clock *c)
{
	enum { NPAIRS = 2001, NREADS = 4001 };
	static double d[NPAIRS];
	static uint64_t r[NREADS];
	struct fpl_timer_estimate e;

	for (int i = 0; i < NPAIRS; i++) {
		uint64_t a = fpl_tsc_begin();

		d[i] = (double)(fpl_tsc_end() - a);
	}
	for (int i = 0; i < NREADS; i++)
		r[i] = fpl_tsc_begin();
	fpl_timer_estimate(d, NPAIRS, r, NREADS, &e);
	c->floor_tsc = e.floor_tsc;
	c->step_tsc = e.step_tsc;
	c->min_sample_tsc = e.min_sample_tsc;
}

uint64_t fpl_clock_ratio_reps(const struct fpl_clock *c)
{
	uint64_t n = 8;

	while (n < (1u << 24) && fpl_chain_add100(NULL, n) < c->min_sample_tsc)
		n *= 2;
	return n;
}

/*
 * One estimate of core cycles per TSC tick: TSC ticks per add by difference
 * of n and 2n repetitions, so the timer's floor drops out; or rdpmc cycles
 * over TSC ticks where a counter is offered.
 */
double fpl_clock_ratio_sample(const struct fpl_clock *c, uint64_t n)
{
	double a, b;

	if (c->pmu) {
		uint64_t p0 = fpl_pmu_read(c), t0 = fpl_tsc_begin(), t1, p1;

		fpl_chain_add100(NULL, n);
		t1 = fpl_tsc_end();
		p1 = fpl_pmu_read(c);
		return (double)(p1 - p0) / (double)(t1 - t0);
	}
	a = (double)fpl_chain_add100(NULL, n);
	b = (double)fpl_chain_add100(NULL, 2 * n);
	return b > a ? 100.0 * n / (b - a) : NAN;
}

/* The median of 31 estimates over chains 4x the minimum sample. */
double fpl_clock_core_ratio(struct fpl_clock *c)
{
	enum { NS = 31 };
	double r[NS];
	uint64_t n = 4 * fpl_clock_ratio_reps(c);
	size_t k = 0;

	fpl_chain_add100(NULL, n);
	for (int i = 0; i < NS; i++) {
		double v = fpl_clock_ratio_sample(c, n);

		if (isfinite(v))
			r[k++] = v;
	}
	return k ? median_of(r, k) : NAN;
}

int fpl_clock_create(struct fpl_clock **out, int cpu, struct fpl_diag *diag)
{
	struct fpl_cpu *snap = malloc(sizeof(*snap));
	struct fpl_clock *c = calloc(1, sizeof(*c));
	enum fpl_tsc_source src = FPL_TSC_CALIBRATED;
	int err = -ENOMEM;

	if (!c || !snap)
		goto out;
	c->perf_fd = -1;
	fpl_cpu_read(snap);
	c->rdtscp = fpl_cpu_has(snap, FPL_FEAT_RDTSCP);
	c->tsc_invariant = fpl_cpu_has(snap, FPL_FEAT_TSC_INVARIANT);
	c->cpu = cpu < 0 ? fpl_current_cpu() : cpu;
	if (c->cpu >= 0) {
		err = fpl_pin_cpu(c->cpu);
		if (err) {
			fpl_diag_set(diag, err, "cannot pin to CPU %d: %s", c->cpu, strerror(-err));
			goto out;
		}
	}
	if (!c->tsc_invariant)
		snprintf(c->warning, sizeof(c->warning),
			 "TSC not invariant (CPUID 0x80000007 EDX[8] clear): ns figures may drift");

	c->tsc_hz_measured = tsc_hz_measure();
	c->tsc_hz_cpuid = tsc_hz_cpuid(&src);
	c->tsc_source = FPL_TSC_CALIBRATED;
	c->tsc_hz = c->tsc_hz_measured;
	if (c->tsc_hz_cpuid > 0) {
		c->tsc_hz_disagree_pct = fabs(c->tsc_hz_cpuid - c->tsc_hz_measured) /
					 c->tsc_hz_measured * 100;
		if (c->tsc_hz_disagree_pct <= FPL_CLOCK_TSC_AGREE_PCT) {
			c->tsc_source = src;
			c->tsc_hz = c->tsc_hz_cpuid;
		} else {
			snprintf(c->warning, sizeof(c->warning),
				 "CPUID TSC rate %.0f Hz disagrees with CLOCK_MONOTONIC_RAW "
				 "(%.0f Hz) by %.2f%%: using the measured rate",
				 c->tsc_hz_cpuid, c->tsc_hz_measured, c->tsc_hz_disagree_pct);
		}
	}

	timer_floor_step(c);
	fpl_pmu_open(c);
	c->core_source = c->pmu ? FPL_CORE_RDPMC : FPL_CORE_ADD_CHAIN;
	c->core_per_tsc_start = fpl_clock_core_ratio(c);
	c->core_per_tsc = c->core_per_tsc_start;
	c->core_hz_start = c->core_per_tsc_start * c->tsc_hz;
	*out = c;
	c = NULL;
	err = 0;
out:
	free(snap);
	free(c);
	return err;
}

int fpl_clock_finish(struct fpl_clock *c)
{
	c->core_per_tsc_end = fpl_clock_core_ratio(c);
	c->core_hz_end = c->core_per_tsc_end * c->tsc_hz;
	c->drift_pct = (c->core_per_tsc_end - c->core_per_tsc_start) /
		       c->core_per_tsc_start * 100;
	c->suspect = fabs(c->drift_pct) > FPL_CLOCK_DRIFT_MAX_PCT;
	c->finished = true;
	return 0;
}

void fpl_clock_free(struct fpl_clock *c)
{
	if (!c)
		return;
	fpl_pmu_close(c);
	free(c);
}

const char *fpl_clock_core_method(const struct fpl_clock *c)
{
	return c->core_source == FPL_CORE_RDPMC ?
	       "counted (rdpmc core cycles over a dependent add chain vs TSC)" :
	       "estimated (dependent 1-cycle add chain vs TSC)";
}

static const char *const tsc_src_name[] = {
	[FPL_TSC_CPUID_15] = "cpuid-0x15",
	[FPL_TSC_CPUID_16] = "cpuid-0x16",
	[FPL_TSC_HYPERVISOR] = "cpuid-0x40000010",
	[FPL_TSC_CALIBRATED] = "calibrated",
};

json_t *fpl_clock_json(const struct fpl_clock *c)
{
	json_t *o = json_pack("{s:i, s:b, s:f, s:s, s:f, s:f, s:f, s:f, s:f, s:f}",
			      "cpu", c->cpu, "tsc_invariant", c->tsc_invariant,
			      "tsc_hz", c->tsc_hz, "tsc_source", tsc_src_name[c->tsc_source],
			      "tsc_hz_cpuid", c->tsc_hz_cpuid,
			      "tsc_hz_measured", c->tsc_hz_measured,
			      "tsc_hz_disagree_pct", c->tsc_hz_disagree_pct,
			      "floor_tsc", c->floor_tsc, "step_tsc", c->step_tsc,
			      "min_sample_tsc", c->min_sample_tsc);
	json_t *core = json_pack("{s:s, s:s, s:f, s:f, s:f, s:b, s:b, s:s}",
				 "core_source",
				 c->core_source == FPL_CORE_RDPMC ? "rdpmc" : "add-chain",
				 "core_method", fpl_clock_core_method(c),
				 "core_per_tsc_start", c->core_per_tsc_start,
				 "core_hz_start", c->core_hz_start,
				 "drift_max_pct", FPL_CLOCK_DRIFT_MAX_PCT,
				 "finished", c->finished, "pmu", c->pmu, "pmu_why", c->pmu_why);

	if (!o || !core || json_object_update(o, core))
		goto fail;
	json_decref(core);
	core = NULL;
	if (c->finished &&
	    (json_object_set_new(o, "core_per_tsc_end", json_real(c->core_per_tsc_end)) ||
	     json_object_set_new(o, "core_hz_end", json_real(c->core_hz_end)) ||
	     json_object_set_new(o, "drift_pct", json_real(c->drift_pct)) ||
	     json_object_set_new(o, "suspect", json_boolean(c->suspect))))
		goto fail;
	if (c->warning[0] && json_object_set_new(o, "warning", json_string(c->warning)))
		goto fail;
	return o;
fail:
	json_decref(core);
	json_decref(o);
	return NULL;
}
