// SPDX-License-Identifier: GPL-3.0-or-later
/* The kvm benchmark's views: round trips by guest state, B - A, the kernel's trace per KVM_RUN. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpulab/ktrace.h"
#include "pick.h"
#include "table_internal.h"
#include "views.h"

#define MAX_PASSES 2

static const char *obs(const struct fpl_run *run, const char *key)
{
	const char *s = fpl_run_obs_get_str(run, key);

	return s ? s : "-";
}

static double num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* "kvm_pvm (PVM): PVM: guest ring 0 emulated, XCR0 not switched; nested ..." */
static void backend_line(const struct fpl_run *run, FILE *f)
{
	const char *label = fpl_run_obs_get_str(run, "kvm_label");
	const json_t *nested = fpl_run_obs_get(run, "kvm_nested");
	char line[400];

	snprintf(line, sizeof(line), "/dev/kvm: %s%s%s%s", obs(run, "kvm_backend"),
		 label && *label ? "; " : "", label ? label : "",
		 json_is_true(nested) ? "; this host is itself a guest" : "");
	fpl_tbl_wrap(f, line, 2);
}

static void guest_line(const struct fpl_run *run, FILE *f)
{
	char b[4][32], line[400];

	snprintf(line, sizeof(line), "guest: 64-bit, ring %lld, %s, %s CPUIDs between exits to "
		 "user space; guest XCR0 %s (KVM offers %s, XSS %s); state images of %lld bytes; "
		 "the host task's own registers %s", fpl_run_obs_get_int(run, "guest_ring", -1),
		 !strcmp(fpl_pick_param(run, "guest", b[0], sizeof(b[0])), "writes") ?
		 "XRSTORs its state before every exit" : "state set once and left alone",
		 fpl_pick_param(run, "cpuid", b[1], sizeof(b[1])), obs(run, "guest_xcr0"),
		 obs(run, "guest_supported_xcr0"), obs(run, "guest_supported_xss"),
		 fpl_run_obs_get_int(run, "xsave_size", 0),
		 fpl_run_obs_get(run, "host_state") ? "init" : "as they were");
	fpl_tbl_wrap_labelled(f, "  ", 2, line);
}

/* Text of a metric's method parts: what "; " timing (kind 0), or its unit part (1). */
static char *method_text(const struct fpl_metric *m, int kind)
{
	struct fpl_method_parts p;
	char *t = NULL;

	fpl_metric_method_parts(m, &p);
	if (kind)
		return asprintf(&t, "%s: %.*s", m->unit, (int)p.unit_len, p.unit) < 0 ? NULL : t;
	return asprintf(&t, "%.*s%s%.*s", (int)p.what_len, p.what, p.timing_len ? "; " : "",
			(int)p.timing_len, p.timing) < 0 ? NULL : t;
}

/* A note of nt from metric name's method (kind as method_text); 0 without the metric. */
static size_t note_of(struct fpl_tbl_notes *nt, const struct fpl_run *run, const char *name,
		      int kind)
{
	const struct fpl_metric *m = fpl_run_find_metric(run, name);
	char *t = m ? method_text(m, kind) : NULL;
	size_t k = t ? fpl_tbl_note(nt, t) : 0;

	free(t);
	return k;
}

/* One state's row: its masks, verification, the round trip in three units, the rounds. */
static void state_row(const struct fpl_run *run, const char *state, const char *sfx,
		      const char *prefix, struct fpl_tbl_notes *nt, FILE *f)
{
	static const char *const units[] = { "cycles", "tsc", "ns" };
	char key[64], cell[3][64], label[48];
	struct fpl_summary s = { 0 };
	size_t n = 0, n_note;

	for (int u = 0; u < 3; u++) {
		snprintf(key, sizeof(key), "%s%s", prefix, units[u]);
		if (fpl_pick_stat(run, key, &s)) {
			fpl_tbl_mq(cell[u], sizeof(cell[u]), &s);
			n = s.n;
		} else {
			snprintf(cell[u], sizeof(cell[u]), "-");
		}
	}
	snprintf(key, sizeof(key), "%scycles", prefix);
	n_note = note_of(nt, run, key, 0);
	if (n_note)
		snprintf(label, sizeof(label), "%s [%zu]", state, n_note);
	else
		snprintf(label, sizeof(label), "%s", state);
	snprintf(key, sizeof(key), "xstate_bv_set%s", sfx);
	fprintf(f, "  %-12s %-8s", label, obs(run, key));
	snprintf(key, sizeof(key), "xstate_bv_after%s", sfx);
	fprintf(f, " %-26s", obs(run, key));
	fprintf(f, " %s\n", cell[0]);
	fprintf(f, "  %-48s %s TSC ticks [u2], %s ns [u3]; %zu rounds\n", "", cell[1], cell[2],
		n);
}

static void ab_lines(const struct fpl_run *run, FILE *f)
{
	const char *v = fpl_run_obs_get_str(run, "b_minus_a");
	const char *m = fpl_run_obs_get_str(run, "b_minus_a_median");
	const json_t *jhw = fpl_run_obs_get(run, "b_minus_a_halfwidth_pct");
	char b1[64], b2[64], line[600], hw[48] = "-";

	if (!v)
		return;
	/* a document without it says so, not "0.000%" */
	if (json_is_number(jhw) && isfinite(json_number_value(jhw)))
		snprintf(hw, sizeof(hw), "%.3f%% of A's round trip", json_number_value(jhw));
	snprintf(line, sizeof(line), "B - A (%s minus %s), per round, 20%% trimmed: %s; median of "
		 "the per-round differences %s; the interval's half-width is %s; this run's "
		 "rounds only (--runs N for what changes between runs)",
		 fpl_pick_param(run, "state_b", b1, sizeof(b1)),
		 fpl_pick_param(run, "state_a", b2, sizeof(b2)), v, m ? m : "-", hw);
	fputc('\n', f);
	fpl_tbl_wrap(f, line, 2);
	fpl_tbl_aa_line(run, 2, f);
}

/* How many rounds the FXSAVE64 reference let through (the harness drops whole rounds). */
static void rounds_line(const struct fpl_run *run, FILE *f)
{
	const char *m = fpl_run_find_metric(run, "round_trip_tsc") ? "round_trip_tsc" :
			"round_trip_a_tsc";
	double quiet = fpl_pick_extra(run, m, "interference.samples_quiet");
	double taken = fpl_pick_extra(run, m, "interference.samples_taken");
	const json_t *applied = NULL;
	const struct fpl_metric *t = fpl_run_find_metric(run, m);

	if (t && json_is_object(t->extra))
		applied = json_object_get(json_object_get(t->extra, "interference"), "applied");
	if (isnan(quiet) || isnan(taken))
		return;
	fprintf(f, "  (rounds: %.0f taken, %.0f between quiet readings of an FXSAVE64 reference; "
		"%s)\n", taken, quiet, json_is_true(applied) ? "only those kept" :
		"too few quiet ones: every round kept");
}

static void one_run(const struct fpl_run *run, FILE *f)
{
	struct fpl_tbl_notes nt = { NULL, 0 }, units = { NULL, 0 };
	const char *pfx = fpl_run_param_get(run, "state_a") ? "round_trip_a_" : "round_trip_";
	char b[64], key[64];

	fprintf(f, "KVM_RUN round trips (fpulab kvm)\n");
	backend_line(run, f);
	guest_line(run, f);
	fprintf(f, "\n  %-12s %-8s %-26s %s\n", "state", "set", "XSTATE_BV after batches",
		"round trip: core cycles [u1], median [q1, q3]");
	if (fpl_run_param_get(run, "state_a")) {
		state_row(run, fpl_pick_param(run, "state_a", b, sizeof(b)), "_a", "round_trip_a_",
			  &nt, f);
		state_row(run, fpl_pick_param(run, "state_b", b, sizeof(b)), "_b", "round_trip_b_",
			  &nt, f);
	} else {
		state_row(run, fpl_pick_param(run, "state", b, sizeof(b)), "", "round_trip_", &nt, f);
	}
	fprintf(f, "  state verified (KVM_GET_XSAVE after every batch): %s\n",
		obs(run, "state_verified"));
	ab_lines(run, f);
	rounds_line(run, f);
	fprintf(f, "Methods:\n");
	fpl_tbl_notes_print(f, &nt, "");
	for (int u = 0; u < 3; u++) {
		snprintf(key, sizeof(key), "%s%s", pfx, u == 0 ? "cycles" : u == 1 ? "tsc" : "ns");
		note_of(&units, run, key, 1);
	}
	fprintf(f, "Units:\n");
	fpl_tbl_notes_print(f, &units, "u");
	fpl_tbl_notes_free(&nt);
	fpl_tbl_notes_free(&units);
}

/* A pass's column: the state it traced (state_a: the run's state A ...). */
static const char *pass_state(const struct fpl_run *run, const char *pass)
{
	const char *s = !strcmp(pass, "state_a") ? fpl_run_param_get_str(run, "state_a") :
			!strcmp(pass, "state_b") ? fpl_run_param_get_str(run, "state_b") :
			fpl_run_param_get_str(run, "state");

	return s ? s : pass;
}

/* The traced passes of a run: observed.kernel and its variants, in order, named by state. */
static size_t passes(const struct fpl_run *run, const json_t **p, const char **name)
{
	const json_t *k = fpl_run_obs_get(run, "kernel"), *v;
	const char *key;
	size_t n = 0;

	if (!json_is_object(k) || strcmp(json_string_value(json_object_get(k, "status")) ?: "",
					  "traced"))
		return 0;
	p[n] = k;
	name[n++] = pass_state(run, json_string_value(json_object_get(k, "name")) ?: "batch");
	json_object_foreach((json_t *)json_object_get(k, "variants"), key, v)
		if (n < MAX_PASSES && json_is_object(v)) {
			p[n] = v;
			name[n++] = pass_state(run, key);
		}
	return n;
}

/* "1", "0+sw", "-" from an expectation's count object. */
static void expect_text(const json_t *c, char *buf, size_t len)
{
	double lo = num(c, "min"), hi = num(c, "max");
	bool sw = json_is_true(json_object_get(c, "plus_switches"));

	if (!json_is_object(c))
		snprintf(buf, len, "-");
	else if (isnan(hi))
		snprintf(buf, len, ">=%g", lo);
	else if (lo == hi)
		snprintf(buf, len, "%g%s", lo, sw ? "+sw" : "");
	else
		snprintf(buf, len, "%g-%g%s", lo, hi, sw ? "+sw" : "");
}

/* One event's row: per op in each pass, and what the source says. */
static void event_row(const char *label, const json_t *const *p, size_t np, const char *obj,
		      const char *key, const char *exp_obj, FILE *f)
{
	char per[64], e[32];

	snprintf(per, sizeof(per), "%s_per_op", key);
	fprintf(f, "  %-38s", label);
	for (size_t i = 0; i < np; i++) {
		const json_t *o = obj ? json_object_get(p[i], obj) : p[i];
		double v = num(o, per);

		fprintf(f, " %10s", isnan(v) ? "-" : (snprintf(e, sizeof(e), "%.3f", v), e));
	}
	expect_text(json_object_get(json_object_get(json_object_get(p[0], "expected"), exp_obj),
				    key), e, sizeof(e));
	fprintf(f, " %10s\n", e);
}

/* The distinct masks of a pass's key as "0x...18e7 (x87|...|CET_S)", "; " apart. */
static void masks_text(const json_t *pass, const char *key, char *buf, size_t len)
{
	const json_t *a = json_object_get(pass, key), *x;
	size_t i, used = 0;

	buf[0] = 0;
	json_array_foreach(a, i, x)
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s (%s)", i ? "; " : "",
						 json_string_value(json_object_get(x, "value")) ?: "?",
						 json_string_value(json_object_get(x, "components")) ?: "");
	if (!used)
		snprintf(buf, len, "none seen");
}

/* What the source says about CET_S and the restore RFBM, against the pass's masks. */
static void rule_lines(const json_t *pass, FILE *f)
{
	const json_t *e = json_object_get(pass, "expected");
	const json_t *g = json_object_get(e, "guest_only"), *r = json_object_get(e, "restore_rfbm");
	const json_t *holds = json_object_get(g, "holds");
	char line[900];

	if (json_is_object(g)) {
		snprintf(line, sizeof(line), "%s (bit mask %s), guest-only since Linux %s: %s",
			 json_string_value(json_object_get(g, "components")) ?: "?",
			 json_string_value(json_object_get(g, "mask")) ?: "?",
			 json_string_value(json_object_get(g, "since")) ?: "?",
			 json_is_true(holds) ? "in every guest fpstate's XSAVES RFBM and in no host "
			 "task's, as the kernel source says" : json_is_false(holds) ?
			 "NOT as the kernel source says (guest fpstates should carry it, host tasks "
			 "not)" : "not judged here (this CPU does not enumerate it, an older kernel, "
			 "or no fpstate seen)");
		fpl_tbl_wrap_labelled(f, "  ", 4, line);
	}
	if (json_is_object(r)) {
		const char *inits = json_string_value(json_object_get(r, "host_restore_inits"));

		snprintf(line, sizeof(line), "XRSTORS RFBM of the swap, both ways: "
			 "fpu_kernel_cfg.max_features & XFEATURE_MASK_FPSTATE, at least %s (%s)%s%s%s",
			 json_string_value(json_object_get(r, "rfbm_at_least")) ?: "?",
			 json_string_value(json_object_get(r, "components")) ?: "",
			 inits && strcmp(inits, "0x0") ? "; the host task's restore puts " : "",
			 inits && strcmp(inits, "0x0") ?
			 json_string_value(json_object_get(r, "host_restore_inits_components")) ?:
			 "?" : "",
			 inits && strcmp(inits, "0x0") ? " (not in its image's XCOMP_BV) in its init "
			 "state on every exit to user space" : "");
		fpl_tbl_wrap_labelled(f, "  ", 4, line);
	}
}

/* Where a pass and the source disagree, or that they agree. */
static void verdict_line(const json_t *const *p, const char *const *name, size_t np, FILE *f)
{
	for (size_t i = 0; i < np; i++) {
		const json_t *e = json_object_get(p[i], "expected"), *d = json_object_get(e, "differs");
		const char *applies = json_string_value(json_object_get(e, "applies"));
		const json_t *x;
		size_t k;

		fprintf(f, "  %s: ", name[i]);
		if (!json_is_object(e))
			fprintf(f, "no expectation\n");
		else if (applies && !strcmp(applies, "unknown"))
			fprintf(f, "not compared (a kernel older than the source read)\n");
		else if (!json_array_size(d))
			fprintf(f, "agrees with the kernel source (Linux %s and later, read up to "
				"%s)\n", json_string_value(json_object_get(e, "since")) ?: "?",
				json_string_value(json_object_get(e, "checked")) ?: "?");
		else {
			fprintf(f, "DIFFERS from the kernel source:");
			json_array_foreach(d, k, x)
				fprintf(f, " %s", json_string_value(x) ?: "?");
			fputc('\n', f);
		}
	}
}

static void trace_block(const struct fpl_run *run, FILE *f)
{
	static const struct { const char *label, *obj, *key, *exp; } rows[] = {
		{ "kvm_fpu load (kvm_load_guest_fpu)", "kvm", "fpu_loads", "kvm_per_op" },
		{ "kvm_fpu unload (kvm_put_guest_fpu)", "kvm", "fpu_unloads", "kvm_per_op" },
		{ "x86_fpu_regs_activated, load 0", NULL, "restores_without_load", "per_op" },
		{ "x86_fpu_regs_activated, load 1", NULL, "restores", "per_op" },
		{ "x86_fpu_regs_deactivated", NULL, "saves", "per_op" },
		{ "kvm_userspace_exit", "kvm", "userspace_exits", "kvm_per_op" },
		{ "kvm_pio", "kvm", "pio", "kvm_per_op" },
		{ "kvm_cpuid (handled in the kernel)", "kvm", "cpuid", "kvm_per_op" },
		{ "kvm_exit (VM exits)", "kvm", "exits", "kvm_per_op" },
		{ "kvm_emulate_insn (emulated insns)", "kvm", "emulated_insns", "kvm_per_op" },
		{ "switches of the vCPU thread", NULL, "switches", "-" },
	};
	const json_t *p[MAX_PASSES];
	const char *name[MAX_PASSES];
	char buf[400];
	size_t np = passes(run, p, name);

	if (!np)
		return;
	fprintf(f, "\nKernel trace per KVM_RUN round trip (tracefs; %.0f round trips per state "
		"traced, clock %s):\n  %-38s", num(p[0], "ops"),
		json_string_value(json_object_get(p[0], "trace_clock")) ?: "?", "event");
	for (size_t i = 0; i < np; i++)
		fprintf(f, " %10s", name[i]);
	fprintf(f, " %10s\n", "source");
	for (size_t i = 0; i < FPL_ARRAY_SIZE(rows); i++)
		event_row(rows[i].label, p, np, rows[i].obj, rows[i].key, rows[i].exp, f);
	for (size_t i = 0; i < np; i++) {
		fprintf(f, "  state %s:\n", name[i]);
		masks_text(p[i], "kvm_guest_xcomp_bv", buf, sizeof(buf));
		fpl_tbl_wrap_labelled(f, "    guest fpstate xcomp_bv: ", 30, buf);
		masks_text(p[i], "kvm_guest_xfeatures", buf, sizeof(buf));
		fpl_tbl_wrap_labelled(f, "    its XSTATE_BV at entry: ", 30, buf);
		masks_text(p[i], "kvm_host_xcomp_bv", buf, sizeof(buf));
		fpl_tbl_wrap_labelled(f, "    host task xcomp_bv: ", 30, buf);
	}
	rule_lines(p[0], f);
	verdict_line(p, name, np, f);
	fpl_tbl_wrap(f, "(xcomp_bv: the fpstate's XSAVES format and RFBM, from the x86_fpu event "
		     "that fpu_swap_kvm_fpstate()'s fpregs_mark_activate() emits right before "
		     "kvm_fpu: the guest's before a load, the host task's before an unload; "
		     "source: the counts kernel source says per round trip (model/kexpect.c), "
		     "+sw: plus one per switch of the thread)", 2);
}

int fpl_table_kvm(const struct fpl_result *r, const struct fpl_table_opts *o, FILE *f)
{
	bool any = false;

	for (size_t i = 0; i < r->nruns; i++) {
		const struct fpl_run *run = r->runs[i];

		if (strcmp(run->bench, "kvm"))
			continue;
		if (any)
			fputc('\n', f);
		any = true;
		if (run->skipped) {
			fprintf(f, "kvm: skipped: %s\n", run->skip_reason ? run->skip_reason : "");
			continue;
		}
		one_run(run, f);
		trace_block(run, f);
	}
	fpl_tbl_warnings(r, (const struct fpl_run *const *)r->runs, r->nruns, o, f);
	return ferror(f) ? -EIO : 0;
}

/* The suite's lines: each state's round trip and, for an A/B, B - A. */
void fpl_summary_kvm(const struct fpl_result *r, FILE *f)
{
	bool head = false;

	for (size_t i = 0; i < r->nruns; i++) {
		const struct fpl_run *run = r->runs[i];
		struct fpl_summary a, b;
		char x[64], y[64], s1[32], s2[32];
		const char *v = fpl_run_obs_get_str(run, "b_minus_a");

		if (run->skipped || strcmp(run->bench, "kvm"))
			continue;
		if (!head) {
			const char *label = fpl_run_obs_get_str(run, "kvm_label");

			fprintf(f, "\nKVM_RUN round trip (%s%s%s), TSC ticks:\n",
				obs(run, "kvm_backend"), label && *label ? "; " : "",
				label ? label : "");
			head = true;
		}
		if (fpl_pick_stat(run, "round_trip_a_tsc", &a) &&
		    fpl_pick_stat(run, "round_trip_b_tsc", &b)) {
			const char *na = fpl_pick_param(run, "state_a", s1, sizeof(s1));
			const char *nb = fpl_pick_param(run, "state_b", s2, sizeof(s2));

			fprintf(f, "  state %s %s, %s %s\n", na, fpl_tbl_mq(x, sizeof(x), &a), nb,
				fpl_tbl_mq(y, sizeof(y), &b));
			if (v)
				fprintf(f, "    %s minus %s: %s (paired per round, 20%% trimmed, this run "
					"only)\n", nb,
					na, v);
			fpl_tbl_aa_line(run, 4, f);
		} else if (fpl_pick_stat(run, "round_trip_tsc", &a)) {
			fprintf(f, "  state %-8s %s\n", fpl_pick_param(run, "state", s1, sizeof(s1)),
				fpl_tbl_mq(x, sizeof(x), &a));
		}
	}
}

/* One configuration's B - A over the runs: each run one replicate, Student's t over them. */
static void series_line(const struct fpl_result *r, const char *key, FILE *f)
{
	double v[FPL_RUNS_MAX], a = 0;
	const struct fpl_run *first = NULL;
	char cfg[256];
	struct fpl_ci ci;
	size_t n = 0;

	for (size_t i = 0; i < r->nruns && n < FPL_RUNS_MAX; i++) {
		const struct fpl_run *run = r->runs[i];
		char *k = strcmp(run->bench, "kvm") || run->skipped ? NULL :
			  fpl_run_config_key(run, NULL, NULL, NULL);
		double d = fpl_pick_extra(run, "difference_tsc", "paired_trimmed.diff");

		if (k && !strcmp(k, key) && isfinite(d)) {
			first = first ? first : run;
			a += fpl_pick_extra(run, "difference_tsc", "paired_trimmed.a");
			v[n++] = d;
		}
		free(k);
	}
	if (!first)
		return;
	fpl_tbl_config_str(r, first, cfg, sizeof(cfg));
	fprintf(f, "  kvm %s: %zu run%s\n    ", cfg, n, n == 1 ? "" : "s");
	if (n < FPL_MIN_RUNS || fpl_mean_t_ci(v, n, 95, &ci)) {
		fprintf(f, "no interval from fewer than %d runs\n", FPL_MIN_RUNS);
		return;
	}
	a /= (double)n;
	fprintf(f, "%+.1f TSC ticks [%+.1f, %+.1f] = %+.3f%% [%+.3f, %+.3f] of A's round trip: %s\n",
		fpl_shown(ci.estimate, 1), fpl_shown(ci.lo, 1), fpl_shown(ci.hi, 1),
		fpl_shown(100 * ci.estimate / a, 3), fpl_shown(100 * ci.lo / a, 3),
		fpl_shown(100 * ci.hi / a, 3),
		ci.lo > 0 ? "B costs more, proven" : ci.hi < 0 ? "B costs less, proven" :
		"not proven (the interval holds 0)");
}

/*
 * kvm --ab over a series (--runs): each run's 20%-trimmed per-round B - A is
 * one replicate, so that what moves the host from run to run is in the
 * interval (within one run it is not).
 */
int fpl_series_kvm(const struct fpl_result *r, FILE *f)
{
	char *keys[8];
	size_t nkeys = 0;

	for (size_t i = 0; i < r->nruns; i++) {
		const struct fpl_run *run = r->runs[i];
		char *k;
		bool dup = false;

		if (strcmp(run->bench, "kvm") || run->skipped ||
		    !fpl_run_find_metric(run, "difference_tsc"))
			continue;
		k = fpl_run_config_key(run, NULL, NULL, NULL);
		if (!k)
			return -ENOMEM;
		for (size_t j = 0; j < nkeys && !dup; j++)
			dup = !strcmp(keys[j], k);
		if (dup || nkeys == FPL_ARRAY_SIZE(keys)) {
			free(k);
			continue;
		}
		if (!nkeys)
			fprintf(f, "\nkvm B - A over the runs (each run's 20%%-trimmed per-round "
				"difference one replicate; 95%% interval, Student's t over the runs):\n");
		keys[nkeys++] = k;
		series_line(r, k, f);
	}
	for (size_t j = 0; j < nkeys; j++)
		free(keys[j]);
	return 0;
}
