// SPDX-License-Identifier: GPL-3.0-or-later
/* tracefs `trace` lines of the x86_fpu events: one line parsed, a window of them tallied. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpulab/ktrace.h"

static const char *const type_names[FPL_KT_KVM + 1] = {
	[FPL_KT_REGS_ACTIVATED] = "regs_activated",
	[FPL_KT_REGS_DEACTIVATED] = "regs_deactivated",
	[FPL_KT_DROPPED] = "dropped",
	[FPL_KT_COPY_DST] = "copy_dst",
	[FPL_KT_COPY_SRC] = "copy_src",
	[FPL_KT_BEFORE_SAVE] = "before_save",
	[FPL_KT_AFTER_SAVE] = "after_save",
	[FPL_KT_BEFORE_RESTORE] = "before_restore",
	[FPL_KT_AFTER_RESTORE] = "after_restore",
	[FPL_KT_INIT_STATE] = "init_state",
	[FPL_KT_XSTATE_CHECK_FAILED] = "xstate_check_failed",
	[FPL_KT_OTHER] = "other",
	[FPL_KT_MARKER] = "marker",
	[FPL_KT_KVM] = "kvm",
};

const char *fpl_kt_type_name(enum fpl_kt_type t)
{
	return (unsigned)t <= FPL_KT_KVM ? type_names[t] : "?";
}

static const char *skip_sp(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* "[007] " at p: the CPU column. Returns the position after it, or NULL. */
static const char *cpu_field(const char *p, int *cpu)
{
	char *e;
	long v;

	if (*p != '[' || !isdigit((unsigned char)p[1]))
		return NULL;
	v = strtol(p + 1, &e, 10);
	if (*e != ']' || (e[1] != ' ' && e[1] != '\t') || v < 0 || v > 1 << 20)
		return NULL;
	*cpu = (int)v;
	return e + 1;
}

/*
 * The task column "comm-tid" (comm may hold spaces and dashes), an optional
 * "(tgid)" column, then "[cpu]". Finds the first "[digits] " that follows a
 * "-digits" and fills comm, tid and cpu. Returns the position after "]".
 */
static const char *task_fields(const char *line, struct fpl_kt_event *ev)
{
	const char *start = skip_sp(line);

	for (const char *b = strchr(start, '['); b; b = strchr(b + 1, '[')) {
		const char *q = b, *after = cpu_field(b, &ev->cpu), *d;
		size_t n;

		if (!after)
			continue;
		while (q > start && (q[-1] == ' ' || q[-1] == '\t'))
			q--;
		if (q > start && q[-1] == ')') {		/* record-tgid: "(  123)" or "(-----)" */
			const char *o = q - 1;

			while (o > start && *o != '(')
				o--;
			if (*o != '(')
				continue;
			q = o;
			while (q > start && (q[-1] == ' ' || q[-1] == '\t'))
				q--;
		}
		d = q;
		while (d > start && isdigit((unsigned char)d[-1]))
			d--;
		if (d == q || d == start || d[-1] != '-')
			continue;
		ev->tid = (pid_t)strtol(d, NULL, 10);
		n = (size_t)(d - 1 - start);
		if (n >= sizeof(ev->comm))
			n = sizeof(ev->comm) - 1;
		memcpy(ev->comm, start, n);
		ev->comm[n] = 0;
		return after;
	}
	return NULL;
}

/* "6648435174110:" or "6648.435174:" (the local clock): digits with the dot removed. */
static const char *timestamp(const char *p, uint64_t *ts)
{
	uint64_t v = 0;
	bool any = false, dot = false;

	for (; isdigit((unsigned char)*p) || (*p == '.' && !dot && any); p++) {
		if (*p == '.') {
			dot = true;
			continue;
		}
		if (v > (UINT64_MAX - 9) / 10)
			return NULL;
		v = v * 10 + (uint64_t)(*p - '0');
		any = true;
	}
	if (!any || *p != ':')
		return NULL;
	*ts = v;
	return p + 1;
}

static int fpu_fields(const char *p, struct fpl_kt_event *ev)
{
	unsigned long long xf, xc;
	int load, n = -1;

	if (sscanf(p, " x86/fpu: %*s load: %d xfeatures: %llx xcomp_bv: %llx%n", &load, &xf, &xc,
		   &n) != 3 || n < 0)
		return -EINVAL;
	p = skip_sp(p + n);
	if (*p || (load != 0 && load != 1))
		return -EINVAL;
	ev->load = load;
	ev->xfeatures = xf;
	ev->xcomp_bv = xc;
	return 0;
}

/* The trace's event name, fpulab's name for people, the key in a pass object. */
static const struct {
	const char *event, *name, *key;
} kvm_events[FPL_KT_KVM_NEVENTS] = {
	[FPL_KT_KVM_FPU_LOAD] = { "kvm_fpu", "kvm_fpu load", "fpu_loads" },
	[FPL_KT_KVM_FPU_UNLOAD] = { "kvm_fpu", "kvm_fpu unload", "fpu_unloads" },
	[FPL_KT_KVM_USERSPACE_EXIT] = { "kvm_userspace_exit", "kvm_userspace_exit",
					"userspace_exits" },
	[FPL_KT_KVM_PIO] = { "kvm_pio", "kvm_pio", "pio" },
	[FPL_KT_KVM_CPUID] = { "kvm_cpuid", "kvm_cpuid", "cpuid" },
	[FPL_KT_KVM_EXIT] = { "kvm_exit", "kvm_exit", "exits" },
	[FPL_KT_KVM_ENTRY] = { "kvm_entry", "kvm_entry", "entries" },
	[FPL_KT_KVM_EMULATE_INSN] = { "kvm_emulate_insn", "kvm_emulate_insn", "emulated_insns" },
	[FPL_KT_KVM_OTHER] = { "", "other kvm events", "other" },
};

const char *fpl_kt_kvm_name(enum fpl_kt_kvm k)
{
	return (unsigned)k < FPL_KT_KVM_NEVENTS ? kvm_events[k].name : "?";
}

const char *fpl_kt_kvm_key(enum fpl_kt_kvm k)
{
	return (unsigned)k < FPL_KT_KVM_NEVENTS ? kvm_events[k].key : "?";
}

/* A kvm:* event line's name (n bytes at name) and text after the colon. 1, or -EINVAL. */
static int kvm_fields(const char *name, size_t n, const char *rest, struct fpl_kt_event *ev)
{
	ev->type = FPL_KT_KVM;
	ev->kvm = FPL_KT_KVM_OTHER;
	if (n == 7 && !strncmp(name, "kvm_fpu", 7)) {
		rest = skip_sp(rest);
		/* __print_symbolic(load, {0, "unload"}, {1, "load"}) */
		if (!strncmp(rest, "load", 4))
			ev->kvm = FPL_KT_KVM_FPU_LOAD;
		else if (!strncmp(rest, "unload", 6))
			ev->kvm = FPL_KT_KVM_FPU_UNLOAD;
		else
			return -EINVAL;
		return 1;
	}
	for (unsigned i = FPL_KT_KVM_USERSPACE_EXIT; i < FPL_KT_KVM_OTHER; i++)
		if (strlen(kvm_events[i].event) == n && !strncmp(name, kvm_events[i].event, n))
			ev->kvm = (enum fpl_kt_kvm)i;
	return 1;
}

int fpl_kt_parse_line(const char *line, struct fpl_kt_event *ev)
{
	const char *p = skip_sp(line), *name, *colon;
	size_t n;

	memset(ev, 0, sizeof(*ev));
	/* The stacktrace option's frames (" => fpregs_mark_activate") carry no event. */
	if (!*p || *p == '#' || *p == '\n' || !strncmp(p, "=> ", 3))
		return 0;
	p = task_fields(line, ev);
	if (!p)
		return -EINVAL;
	p = skip_sp(p);
	/* The irq-info flags ("d..2."), when that option is on: a token that is no timestamp. */
	if (!timestamp(p, &ev->ts)) {
		p += strcspn(p, " \t");
		p = skip_sp(p);
	}
	p = timestamp(p, &ev->ts);
	if (!p)
		return -EINVAL;
	name = skip_sp(p);
	if (!strncmp(name, "<stack trace>", 13) || !strncmp(name, "<user stack trace>", 18))
		return 0;
	colon = strchr(name, ':');
	if (!colon || colon == name)
		return -EINVAL;
	n = (size_t)(colon - name);
	if (n == strlen("tracing_mark_write") && !strncmp(name, "tracing_mark_write", n)) {
		const char *t = skip_sp(colon + 1);
		size_t tl = strcspn(t, "\n");

		while (tl && (t[tl - 1] == ' ' || t[tl - 1] == '\r'))
			tl--;
		if (tl >= sizeof(ev->text))
			tl = sizeof(ev->text) - 1;
		memcpy(ev->text, t, tl);
		ev->text[tl] = 0;
		ev->type = FPL_KT_MARKER;
		return 1;
	}
	if (n > 4 && !strncmp(name, "kvm_", 4))
		return kvm_fields(name, n, colon + 1, ev);
	if (n < 8 || strncmp(name, "x86_fpu_", 8))
		return 0;
	ev->type = FPL_KT_OTHER;
	for (unsigned i = 0; i < FPL_KT_OTHER; i++)
		if (strlen(type_names[i]) == n - 8 && !strncmp(name + 8, type_names[i], n - 8))
			ev->type = (enum fpl_kt_type)i;
	if (fpu_fields(colon + 1, ev))
		return ev->type == FPL_KT_OTHER ? 0 : -EINVAL;
	return 1;
}

static struct fpl_kt_task *task_of(struct fpl_kt_tally *t, const struct fpl_kt_event *ev)
{
	for (unsigned i = 0; i < t->ntasks; i++)
		if (t->task[i].tid == ev->tid)
			return &t->task[i];
	if (t->ntasks == FPL_KT_MAX_TASKS)
		return NULL;
	t->task[t->ntasks].tid = ev->tid;
	snprintf(t->task[t->ntasks].comm, sizeof(t->task[0].comm), "%s", ev->comm);
	return &t->task[t->ntasks++];
}

static void add_mask(uint64_t *set, unsigned *n, uint64_t v)
{
	for (unsigned i = 0; i < *n; i++)
		if (set[i] == v)
			return;
	if (*n < FPL_KT_MAX_MASKS)
		set[(*n)++] = v;
}

static bool listed(const pid_t *tids, size_t ntids, pid_t tid)
{
	if (!ntids)
		return true;
	for (size_t i = 0; i < ntids; i++)
		if (tids[i] == tid)
			return true;
	return false;
}

/* A kvm event of a listed task: counted; kvm_fpu names the fpstate of the event before it. */
static void count_kvm(struct fpl_kt_tally *t, struct fpl_kt_task *k, const struct fpl_kt_event *ev)
{
	t->kvm[ev->kvm]++;
	t->kvm_seen = true;
	if (ev->kvm != FPL_KT_KVM_FPU_LOAD && ev->kvm != FPL_KT_KVM_FPU_UNLOAD)
		return;
	if (!k->last_fpu) {
		t->kvm_unpaired++;
		return;
	}
	if (ev->kvm == FPL_KT_KVM_FPU_LOAD) {
		add_mask(t->guest_xcomp_bv, &t->nguest_xcomp_bv, k->last_xcomp_bv);
		add_mask(t->guest_xfeatures, &t->nguest_xfeatures, k->last_xfeatures);
	} else {
		add_mask(t->host_xcomp_bv, &t->nhost_xcomp_bv, k->last_xcomp_bv);
	}
	k->last_fpu = false;
}

static int count(struct fpl_kt_tally *t, const struct fpl_kt_event *ev, const pid_t *tids,
		 size_t ntids)
{
	struct fpl_kt_task *k;

	if (!listed(tids, ntids, ev->tid)) {
		if (ev->type != FPL_KT_KVM)
			t->others++;
		return 0;
	}
	k = task_of(t, ev);
	if (!k)
		return -E2BIG;
	if (ev->type == FPL_KT_KVM) {
		count_kvm(t, k, ev);
		return 0;
	}
	k->last_xcomp_bv = ev->xcomp_bv;
	k->last_xfeatures = ev->xfeatures;
	k->last_fpu = true;
	k->count[ev->type]++;
	t->count[ev->type]++;
	if (!k->first_ts)
		k->first_ts = ev->ts;
	k->last_ts = ev->ts;
	add_mask(k->xfeatures, &k->nxfeatures, ev->xfeatures);
	add_mask(k->xcomp_bv, &k->nxcomp_bv, ev->xcomp_bv);
	switch (ev->type) {
	case FPL_KT_REGS_ACTIVATED:
		if (ev->load) {
			k->restores++;
			t->restores++;
		} else {
			k->no_load++;
			t->no_load++;
		}
		break;
	case FPL_KT_REGS_DEACTIVATED:
		t->saves++;
		break;
	case FPL_KT_DROPPED:
		t->drops++;
		break;
	case FPL_KT_COPY_DST:
	case FPL_KT_COPY_SRC:
		t->copies++;
		break;
	default:
		break;
	}
	return 0;
}

static void header(const char *line, struct fpl_kt_tally *t)
{
	long long a, b;

	if (sscanf(line, "# entries-in-buffer/entries-written: %lld/%lld", &a, &b) == 2) {
		t->entries = a;
		t->written = b;
	}
}

int fpl_kt_tally(const char *text, size_t len, const pid_t *tids, size_t ntids,
		 const char *begin, const char *end, struct fpl_kt_tally *t,
		 struct fpl_diag *diag)
{
	bool in = !begin, done = false;
	char line[1024];
	size_t pos = 0;
	unsigned long lineno = 0;

	memset(t, 0, sizeof(*t));
	t->entries = t->written = -1;
	while (pos < len && !done) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = (nl ? (size_t)(nl - text) : len) - pos;
		struct fpl_kt_event ev;
		int r;

		lineno++;
		if (n >= sizeof(line))
			return fpl_diag_set(diag, -EINVAL, "trace line %lu: longer than %zu bytes",
					    lineno, sizeof(line) - 1);
		memcpy(line, text + pos, n);
		line[n] = 0;
		pos += n + 1;
		if (line[0] == '#')
			header(line, t);
		r = fpl_kt_parse_line(line, &ev);
		if (r < 0)
			return fpl_diag_set(diag, -EINVAL, "trace line %lu: not a trace event line: "
					    "'%.80s'", lineno, line);
		if (!r)
			continue;
		t->lines++;
		if (ev.type == FPL_KT_MARKER) {
			if (!in && begin && !strncmp(ev.text, begin, strlen(begin))) {
				in = true;
				t->begin_seen = true;
				t->begin_ts = ev.ts;
			} else if (in && end && !strncmp(ev.text, end, strlen(end))) {
				t->end_seen = true;
				t->end_ts = ev.ts;
				done = true;
			}
			continue;
		}
		if (!in)
			continue;
		r = count(t, &ev, tids, ntids);
		if (r)
			return fpl_diag_set(diag, r, "trace line %lu: more than %d tasks", lineno,
					    FPL_KT_MAX_TASKS);
	}
	return 0;
}

static const char *const class_keys[FPL_KT_NCLASSES] = {
	[FPL_KT_C_SAVE] = "saves",
	[FPL_KT_C_RESTORE] = "restores",
	[FPL_KT_C_ACTIVATE] = "restores_without_load",
	[FPL_KT_C_DROP] = "drops",
	[FPL_KT_C_COPY] = "copies",
	[FPL_KT_C_OTHER] = "other",
};

const char *fpl_kt_class_key(enum fpl_kt_class c)
{
	return (unsigned)c < FPL_KT_NCLASSES ? class_keys[c] : "?";
}

void fpl_kt_class_per_op(const json_t *pass, double per_op[FPL_KT_NCLASSES])
{
	const json_t *o = json_object_get(pass, "ops");
	double ops = json_is_number(o) ? json_number_value(o) : 0;

	for (unsigned i = 0; i < FPL_KT_NCLASSES; i++) {
		const json_t *v = json_object_get(pass, class_keys[i]);

		per_op[i] = ops > 0 && json_is_number(v) ? json_number_value(v) / ops : NAN;
	}
}

/* The events of no other class: the ones the counts above leave out. */
static uint64_t other_events(const struct fpl_kt_tally *t)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < FPL_KT_NEVENTS; i++)
		n += t->count[i];
	return n - t->saves - t->restores - t->no_load - t->drops - t->copies;
}

static json_t *hex(uint64_t v)
{
	char b[24];

	snprintf(b, sizeof(b), "0x%" PRIx64, v);
	return json_string(b);
}

static json_t *masks_json(const uint64_t *m, unsigned n, bool strip63, fpl_kt_namer namer)
{
	json_t *a = json_array();
	char names[256];

	for (unsigned i = 0; a && i < n; i++) {
		uint64_t rfbm = strip63 ? m[i] & ~(1ull << 63) : m[i];
		json_t *o = json_pack("{s:o}", "value", hex(m[i]));

		if (!o)
			break;
		if (strip63) {
			json_object_set_new(o, "compacted", json_boolean(m[i] >> 63));
			json_object_set_new(o, "rfbm", hex(rfbm));
		}
		if (namer)
			json_object_set_new(o, "components",
					    json_string(namer(rfbm, names, sizeof(names))));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *per_op(uint64_t n, double ops)
{
	return ops > 0 ? json_real((double)n / ops) : json_null();
}

static json_t *task_json(const struct fpl_kt_task *k, fpl_kt_namer namer)
{
	json_t *o = json_pack("{s:i, s:s, s:I, s:I, s:I, s:I, s:I}", "tid", (int)k->tid,
			      "comm", k->comm,
			      "saves", (json_int_t)k->count[FPL_KT_REGS_DEACTIVATED],
			      "restores", (json_int_t)k->restores,
			      "restores_without_load", (json_int_t)k->no_load,
			      "first_ts", (json_int_t)k->first_ts, "last_ts", (json_int_t)k->last_ts);

	if (!o)
		return NULL;
	json_object_set_new(o, "xfeatures", masks_json(k->xfeatures, k->nxfeatures, false, namer));
	json_object_set_new(o, "xcomp_bv", masks_json(k->xcomp_bv, k->nxcomp_bv, true, namer));
	return o;
}

/* "kvm": each kvm event's count and per-op figure; the fpstates' masks beside it in o. */
static void kvm_json(json_t *o, const struct fpl_kt_tally *t, double ops, fpl_kt_namer namer)
{
	json_t *k = json_object();
	char key[48];

	if (!k)
		return;
	for (unsigned i = 0; i < FPL_KT_KVM_NEVENTS; i++) {
		json_object_set_new(k, fpl_kt_kvm_key(i), json_integer((json_int_t)t->kvm[i]));
		snprintf(key, sizeof(key), "%s_per_op", fpl_kt_kvm_key(i));
		json_object_set_new(k, key, per_op(t->kvm[i], ops));
	}
	json_object_set_new(k, "fpu_unpaired", json_integer((json_int_t)t->kvm_unpaired));
	json_object_set_new(o, "kvm", k);
	json_object_set_new(o, "kvm_guest_xcomp_bv",
			    masks_json(t->guest_xcomp_bv, t->nguest_xcomp_bv, true, namer));
	json_object_set_new(o, "kvm_host_xcomp_bv",
			    masks_json(t->host_xcomp_bv, t->nhost_xcomp_bv, true, namer));
	json_object_set_new(o, "kvm_guest_xfeatures",
			    masks_json(t->guest_xfeatures, t->nguest_xfeatures, false, namer));
}

json_t *fpl_kt_tally_json(const struct fpl_kt_tally *t, double ops, const char *op,
			  fpl_kt_namer namer)
{
	json_t *o = json_object(), *ev = json_object(), *tasks = json_array();
	uint64_t xc[FPL_KT_MAX_MASKS];
	unsigned nxc = 0;

	if (!o || !ev || !tasks) {
		json_decref(o);
		json_decref(ev);
		json_decref(tasks);
		return NULL;
	}
	json_object_set_new(o, "status", json_string("traced"));
	json_object_set_new(o, "op", json_string(op ? op : "operation"));
	json_object_set_new(o, "ops", json_real(ops));
	json_object_set_new(o, "saves", json_integer((json_int_t)t->saves));
	json_object_set_new(o, "restores", json_integer((json_int_t)t->restores));
	json_object_set_new(o, "restores_without_load", json_integer((json_int_t)t->no_load));
	json_object_set_new(o, "drops", json_integer((json_int_t)t->drops));
	json_object_set_new(o, "copies", json_integer((json_int_t)t->copies));
	json_object_set_new(o, "other", json_integer((json_int_t)other_events(t)));
	json_object_set_new(o, "saves_per_op", per_op(t->saves, ops));
	json_object_set_new(o, "restores_per_op", per_op(t->restores, ops));
	json_object_set_new(o, "restores_without_load_per_op", per_op(t->no_load, ops));
	for (unsigned i = 0; i < FPL_KT_NEVENTS; i++)
		if (t->count[i])
			json_object_set_new(ev, fpl_kt_type_name((enum fpl_kt_type)i),
					    json_integer((json_int_t)t->count[i]));
	json_object_set_new(o, "events", ev);
	json_object_set_new(o, "other_tasks_events", json_integer((json_int_t)t->others));
	for (unsigned i = 0; i < t->ntasks; i++) {
		json_array_append_new(tasks, task_json(&t->task[i], namer));
		for (unsigned j = 0; j < t->task[i].nxcomp_bv; j++)
			add_mask(xc, &nxc, t->task[i].xcomp_bv[j]);
	}
	json_object_set_new(o, "tasks", tasks);
	/* Every task's distinct values together: what a table shows in one cell. */
	json_object_set_new(o, "xcomp_bv", masks_json(xc, nxc, true, namer));
	if (t->kvm_seen)
		kvm_json(o, t, ops, namer);
	if (t->begin_seen && t->end_seen && t->end_ts >= t->begin_ts) {
		json_object_set_new(o, "begin_ts", json_integer((json_int_t)t->begin_ts));
		json_object_set_new(o, "end_ts", json_integer((json_int_t)t->end_ts));
		json_object_set_new(o, "ticks_per_op", ops > 0 ?
				    json_real((double)(t->end_ts - t->begin_ts) / ops) :
				    json_null());
	}
	if (t->written >= 0) {
		json_object_set_new(o, "entries_in_buffer", json_integer(t->entries));
		json_object_set_new(o, "entries_written", json_integer(t->written));
		json_object_set_new(o, "complete", json_boolean(t->entries == t->written &&
								 t->begin_seen && t->end_seen));
	}
	return o;
}
