// SPDX-License-Identifier: GPL-3.0-or-later
/* Read compare's cases: plain numbers, will-it-scale output, results JSON; kind by content. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "repro.h"
#include "fpulab/result.h"
#include "compare_internal.h"

const char *const fpl_cmp_kind_names[] = {
	[FPL_CMP_NUMBERS] = "plain numbers",
	[FPL_CMP_WIS] = "will-it-scale output",
	[FPL_CMP_RESULTS] = "fpulab results JSON",
};

void fpl_cmp_raw_free(struct fpl_cmp_raw *r)
{
	free(r->key);
	free(r->label);
	free(r->bench);
	free(r->name);
	free(r->params);
	free(r->unit);
	free(r->method);
	free(r->where);
	for (int k = 0; k < FPL_CMP_STATE_NR; k++)
		free(r->state[k]);
	free(r->v);
	free(r->runlen);
	for (size_t k = 0; r->runid && k < r->nruns; k++)
		free(r->runid[k]);
	free(r->runid);
	free(r->runpos);
}

void fpl_cmp_case_free(struct fpl_cmp_case *cs)
{
	for (size_t i = 0; i < cs->nr; i++)
		fpl_cmp_raw_free(&cs->r[i]);
	free(cs->r);
	cs->r = NULL;
	free(cs->state_first);
	cs->state_first = NULL;
	for (int k = 0; k < FPL_CMP_HOST_NR; k++) {
		free(cs->host[k]);
		cs->host[k] = NULL;
	}
	cs->nr = 0;
}

/* Room for cap runs' identities and positions (results JSON). */
static int grow_ids(struct fpl_cmp_raw *r, size_t cap)
{
	char **id = realloc(r->runid, cap * sizeof(*id));
	uint64_t *pos;

	if (!id)
		return -ENOMEM;
	r->runid = id;
	pos = realloc(r->runpos, cap * sizeof(*pos));
	if (!pos)
		return -ENOMEM;
	r->runpos = pos;
	return 0;
}

/* A new run of this metric; push() adds to the last one. */
static int begin_run(struct fpl_cmp_raw *r)
{
	if (r->nruns == r->runcap) {
		size_t cap = r->runcap ? 2 * r->runcap : 16;
		size_t *p = realloc(r->runlen, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		r->runlen = p;
		if (r->tracked && grow_ids(r, cap))
			return -ENOMEM;
		r->runcap = cap;
	}
	r->runlen[r->nruns++] = 0;
	return 0;
}

/* A new run of a results metric: its identity (copied; NULL: none) and position. */
static int begin_run_at(struct fpl_cmp_raw *r, const char *id, uint64_t pos)
{
	char *copy = id ? strdup(id) : NULL;
	int err = id && !copy ? -ENOMEM : begin_run(r);

	if (err) {
		free(copy);
		return err;
	}
	r->runid[r->nruns - 1] = copy;
	r->runpos[r->nruns - 1] = pos;
	return 0;
}

static int push(struct fpl_cmp_raw *r, double v)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 256;
		double *p = realloc(r->v, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		r->v = p;
		r->cap = cap;
	}
	r->v[r->n++] = v;
	r->runlen[r->nruns - 1]++;
	return 0;
}

/*
 * Room for one value per line of buf (and one run per line when each line is
 * a run), so that a million lines cost one allocation.
 */
static int reserve(struct fpl_cmp_raw *r, const char *buf, bool runs)
{
	size_t lines = 1, want;

	for (const char *q = buf; (q = strchr(q, '\n')); q++)
		lines++;
	want = r->n + lines;
	if (want > r->cap) {
		double *p = realloc(r->v, want * sizeof(*p));

		if (!p)
			return -ENOMEM;
		r->v = p;
		r->cap = want;
	}
	want = r->nruns + lines;
	if (runs && want > r->runcap) {
		size_t *p = realloc(r->runlen, want * sizeof(*p));

		if (!p)
			return -ENOMEM;
		r->runlen = p;
		r->runcap = want;
	}
	return 0;
}

/*
 * The series for key in this case, created on first sight. A key seen again
 * must carry the same unit: one metric cannot mix cycles and ns.
 */
static int series(struct fpl_cmp_case *cs, const char *key, const char *unit,
		  const char *file, struct fpl_cmp_raw **out, struct fpl_diag *diag)
{
	struct fpl_cmp_raw *r;

	for (size_t i = 0; i < cs->nr; i++) {
		r = &cs->r[i];
		if (strcmp(r->key, key))
			continue;
		if (strcmp(r->unit, unit))
			return fpl_diag_set(diag, -EINVAL,
					    "mixed units: %s is in '%s' in %s but in '%s' in %s",
					    r->label, r->unit, r->where, unit, file);
		*out = r;
		return 0;
	}
	r = realloc(cs->r, (cs->nr + 1) * sizeof(*r));
	if (!r)
		return -ENOMEM;
	cs->r = r;
	r = &cs->r[cs->nr];
	memset(r, 0, sizeof(*r));
	r->key = strdup(key);
	r->unit = strdup(unit);
	r->where = strdup(file);
	if (!r->key || !r->unit || !r->where) {
		fpl_cmp_raw_free(r);
		return -ENOMEM;
	}
	cs->nr++;
	*out = r;
	return 0;
}

static int set_text(struct fpl_cmp_raw *r, const char *label, const char *method)
{
	if (!r->label)
		r->label = strdup(label);
	if (!r->method)
		r->method = strdup(method);
	return r->label && r->method ? 0 : -ENOMEM;
}

/* The whole file, NUL-terminated; sized from fstat so a big file is read without copies. */
#define CMP_MAX_FILE (256 << 20)

static char *slurp(const char *path, size_t *len, struct fpl_diag *diag, int *err)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap, n = 0, got;
	struct stat st;

	*err = 0;
	if (!f) {
		*err = fpl_diag_set(diag, -EINVAL, "%s: %s", path, strerror(errno));
		return NULL;
	}
	cap = !fstat(fileno(f), &st) && st.st_size > 0 ? (size_t)st.st_size + 2 : 1 << 16;
	do {
		if (cap - n < 2) {
			char *p = realloc(buf, cap *= 2);

			if (!p) {
				*err = -ENOMEM;
				break;
			}
			buf = p;
		} else if (!buf && !(buf = malloc(cap))) {
			*err = -ENOMEM;
			break;
		}
		/* a device or a pipe that never ends (/dev/zero) must not eat the memory */
		if (n > CMP_MAX_FILE) {
			*err = fpl_diag_set(diag, -EINVAL, "%s: more than %d MiB: too large for a "
					    "case file", path, CMP_MAX_FILE >> 20);
			break;
		}
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
	} while (got);
	if (!*err && ferror(f))
		*err = fpl_diag_set(diag, -EINVAL, "%s: read error", path);
	fclose(f);
	if (*err) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* Does a line of buf start with word? strstr is vectorised: far faster than walking lines. */
static bool line_starts(const char *buf, const char *word)
{
	char nl[32];

	if (!strncmp(buf, word, strlen(word)))
		return true;
	snprintf(nl, sizeof(nl), "\n%s", word);
	return strstr(buf, nl) != NULL;
}

static enum fpl_cmp_kind detect(const char *buf)
{
	while (isspace((unsigned char)*buf))
		buf++;
	if (*buf == '{')
		return FPL_CMP_RESULTS;
	/* will-it-scale starts with "testcase:"; a bare copy may hold only "average:". */
	if (!strncmp(buf, "testcase:", 9) || line_starts(buf, "average:"))
		return FPL_CMP_WIS;
	return FPL_CMP_NUMBERS;
}

/* A number alone on its line (after '#' comments and blanks are removed), or an error. */
static int parse_number(char *s, double *v, const char *path, size_t line,
			struct fpl_diag *diag)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	while (isspace((unsigned char)*end))
		end++;
	if (end == s || *end || !isfinite(*v)) {
		end = s + strlen(s);
		while (end > s && isspace((unsigned char)end[-1]))
			*--end = '\0';
		return fpl_diag_set(diag, -EINVAL, "%s:%zu: not a number: '%.60s'", path, line, s);
	}
	return 0;
}

/*
 * A file of numbers given alone as a case: each number is one run's value (as
 * ministat reads them). One of several files of a case: the file is one run.
 */
/* Field n (1-based) of a line split at blanks and tabs, NUL-terminated in place; NULL if none. */
static char *field(char *s, unsigned n)
{
	for (unsigned i = 1;; i++) {
		char *e;

		s += strspn(s, " \t");
		if (!*s)
			return NULL;
		e = s + strcspn(s, " \t");
		if (i == n) {
			*e = '\0';
			return s;
		}
		s = e;
	}
}

static int read_numbers(struct fpl_cmp_case *cs, char *buf, const char *path,
			struct fpl_diag *diag)
{
	struct fpl_cmp_raw *r;
	size_t line = 0;
	int err;

	err = series(cs, "value", "", path, &r, diag);
	if (err || (err = set_text(r, "value", cs->many ?
				   "plain numbers, one file per run, its median (trimmed mean with --trim)" :
				   "plain numbers, one run per line")))
		return err;
	err = reserve(r, buf, !cs->many);
	if (err || (cs->many && (err = begin_run(r))))
		return err;
	for (char *p = buf, *next; p && *p; p = next) {
		char *hash, *q;
		double v;

		line++;
		next = strchr(p, '\n');
		if (next)
			*next++ = '\0';
		hash = strchr(p, '#');
		if (hash)
			*hash = '\0';
		for (q = p; isspace((unsigned char)*q); q++)
			;
		if (!*q)
			continue;
		if (cs->column) {
			q = field(q, cs->column);
			if (!q)
				continue;	/* ministat skips a line without the column */
		}
		err = parse_number(q, &v, path, line, diag);
		if (err || (!cs->many && (err = begin_run(r))) || (err = push(r, v)))
			return err;
	}
	return 0;
}

static int read_wis(struct fpl_cmp_case *cs, char *buf, const char *path,
		    struct fpl_diag *diag)
{
	struct fpl_cmp_raw *r;
	size_t line = 0, found = 0;
	double v = 0;
	int err;

	for (char *p = buf, *next; p && *p; p = next) {
		line++;
		next = strchr(p, '\n');
		if (next)
			*next++ = '\0';
		if (strncmp(p, "average:", 8))
			continue;
		if (found++)
			return fpl_diag_set(diag, -EINVAL,
					    "%s:%zu: a second 'average:' line (one run per file)",
					    path, line);
		err = parse_number(p + 8, &v, path, line, diag);
		if (err)
			return err;
	}
	if (!found)
		return fpl_diag_set(diag, -EINVAL, "%s: will-it-scale output without an 'average:' line",
				    path);
	err = series(cs, "average", "ops/s", path, &r, diag);
	if (err || (err = set_text(r, "average",
				   "will-it-scale 'average:' line, one run per file")))
		return err;
	err = begin_run(r);
	return err ? err : push(r, v);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "bench k=v k=v: name", params in key order. */
static char *metric_label(const char *bench, json_t *params, const char *name)
{
	size_t nk = json_object_size(params), i = 0, len = 0;
	const char **keys = calloc(nk + 1, sizeof(*keys));
	char *s = NULL;
	const char *k;
	json_t *v;
	FILE *f;

	if (!keys)
		return NULL;
	json_object_foreach(params, k, v)
		keys[i++] = k;
	qsort(keys, nk, sizeof(*keys), cmp_str);
	f = open_memstream(&s, &len);
	if (f) {
		fputs(bench, f);
		for (i = 0; i < nk; i++) {
			v = json_object_get(params, keys[i]);
			if (json_is_string(v)) {
				fprintf(f, " %s=%s", keys[i], json_string_value(v));
			} else {
				/* for people: 0.2, not the double's 0.20000000000000001 */
				char *d = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT |
							JSON_REAL_PRECISION(6));

				fprintf(f, " %s=%s", keys[i], d ? d : "?");
				free(d);
			}
		}
		fprintf(f, ": %s", name);
		fclose(f);
	}
	free(keys);
	return s;
}

/* Remove the keys of the comma-separated list from params. */
/* Bit i of *found: the list's i-th key was in these params (the first 64 keys). */
static void drop_params(json_t *params, const char *list, uint64_t *found)
{
	const char *p = list;

	for (unsigned i = 0; p && *p; i++) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char key[128];

		if (len && len < sizeof(key)) {
			memcpy(key, p, len);
			key[len] = 0;
			if (!json_object_del(params, key) && i < 64)
				*found |= UINT64_C(1) << i;
		}
		p = e ? e + 1 : NULL;
	}
}

/*
 * The interference reference's quiet share of a run (xsave), for compare's
 * note; not of a run kept by round (the xor sweep), which waits for quiet
 * rounds: its share says how long it waited, not how far off it reads.
 */
static void note_quiet(struct fpl_cmp_case *cs, const struct fpl_run *run)
{
	const json_t *o = fpl_run_obs_get(run, "interference");
	const json_t *q = json_object_get(o, "quiet_share");
	const char *by = json_string_value(json_object_get(o, "kept_by"));
	double v;

	if (!json_is_number(q) || (by && !strcmp(by, "round")))
		return;
	v = json_number_value(q);
	if (!cs->nquiet++ || v < cs->quiet_lo)
		cs->quiet_lo = v;
	if (cs->nquiet == 1 || v > cs->quiet_hi)
		cs->quiet_hi = v;
}

const char *const fpl_cmp_state_keys[FPL_CMP_STATE_NR] = {
	"save_rfbm", "frame_xstate_size", "frame_xstate_size_initiator", "frame_xstate_size_echo",
};

/*
 * The run's state observations into the series: for each key the first
 * value seen, or "mixed" once two runs differ. A run without a key (a file
 * from before it was recorded) says nothing either way.
 */
static int note_state(struct fpl_cmp_raw *r, const struct fpl_run *run)
{
	for (int k = 0; k < FPL_CMP_STATE_NR; k++) {
		const json_t *o = fpl_run_obs_get(run, fpl_cmp_state_keys[k]);
		char *v = !o ? NULL : json_is_string(o) ? strdup(json_string_value(o)) :
			  json_dumps(o, JSON_ENCODE_ANY | JSON_COMPACT);

		if (o && !v)
			return -ENOMEM;
		if (!v || (r->state[k] && (!strcmp(r->state[k], "mixed") ||
					   !strcmp(r->state[k], v)))) {
			free(v);
			continue;
		}
		if (r->state[k]) {
			free(v);
			v = strdup("mixed");
			if (!v)
				return -ENOMEM;
		}
		free(r->state[k]);
		r->state[k] = v;
	}
	return 0;
}

const char *const fpl_cmp_host_words[FPL_CMP_HOST_NR] = {
	"kernel", "CPU", "microcode", "hypervisor", "XCR0", "fpulab build",
};

static const char *hstr(const json_t *h, const char *key)
{
	const char *v = json_string_value(json_object_get(h, key));

	return v ? v : "?";
}

/* One host fact of a results file, as words into *out; NULL when the file does not say. */
static int host_fact(const json_t *h, int k, char **out)
{
	const json_t *o;
	int n = 0;

	*out = NULL;
	switch (k) {
	case FPL_CMP_HOST_KERNEL:
		o = json_object_get(h, "kernel");
		if (o && json_object_get(o, "release"))
			n = asprintf(out, "%s", hstr(o, "release"));
		break;
	case FPL_CMP_HOST_CPU:
		if (json_object_get(h, "family"))
			n = asprintf(out, "%s (family 0x%llx model 0x%llx stepping %llu)",
				     hstr(h, "name"),
				     (unsigned long long)json_integer_value(json_object_get(h, "family")),
				     (unsigned long long)json_integer_value(json_object_get(h, "model")),
				     (unsigned long long)json_integer_value(json_object_get(h,
											    "stepping")));
		break;
	case FPL_CMP_HOST_MICROCODE:
		if (json_object_get(h, "microcode"))
			n = asprintf(out, "%s", hstr(h, "microcode"));
		break;
	case FPL_CMP_HOST_VM:
		if (json_object_get(h, "vm"))
			n = asprintf(out, "%s", json_is_true(json_object_get(h, "vm")) ?
				     hstr(h, "hypervisor") : "none");
		break;
	case FPL_CMP_HOST_XCR0:
		if (json_object_get(h, "xcr0"))
			n = asprintf(out, "%s", hstr(h, "xcr0"));
		break;
	case FPL_CMP_HOST_BUILD:
		o = json_object_get(h, "tool");
		if (o)
			n = asprintf(out, "%s (git %s, %s)", hstr(o, "version"), hstr(o, "git"),
				     hstr(o, "cflags"));
		break;
	}
	if (n < 0) {
		*out = NULL;
		return -ENOMEM;
	}
	return 0;
}

/*
 * The file's host facts into the case: the first value seen, "mixed" once
 * a file says another. A file that does not say is no evidence either way.
 */
static int note_host(struct fpl_cmp_case *cs, const json_t *h)
{
	for (int k = 0; k < FPL_CMP_HOST_NR; k++) {
		char *v;
		int err = host_fact(h, k, &v);

		if (err)
			return err;
		if (v && !cs->host[k]) {
			cs->host[k] = v;
			continue;
		}
		if (v && strcmp(v, cs->host[k]) && strcmp(cs->host[k], "mixed")) {
			free(cs->host[k]);
			cs->host[k] = strdup("mixed");
			if (!cs->host[k]) {
				free(v);
				return -ENOMEM;
			}
		}
		free(v);
	}
	return 0;
}

/*
 * A run's identity from --runs (observed run_index, run_pid and
 * run_started: one process's run), in words; *out NULL when it has none.
 */
static int run_identity(const struct fpl_run *run, char **out)
{
	const json_t *ix = fpl_run_obs_get(run, "run_index"), *pid = fpl_run_obs_get(run, "run_pid");
	const json_t *st = fpl_run_obs_get(run, "run_started");

	*out = NULL;
	if (!json_is_integer(ix) || !json_is_integer(pid) || !json_is_string(st))
		return 0;
	if (asprintf(out, "run_index %lld, run_pid %lld, run_started %s",
		     (long long)json_integer_value(ix), (long long)json_integer_value(pid),
		     json_string_value(st)) < 0) {
		*out = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* The series of one metric of run (params its compact JSON), created with its text. */
static int metric_series(struct fpl_cmp_case *cs, const struct fpl_run *run, const char *params,
			 const struct fpl_metric *m, const char *path, struct fpl_cmp_raw **out,
			 struct fpl_diag *diag)
{
	struct fpl_cmp_raw *r;
	char *key = NULL;
	int err;

	/* the ignored params were dropped already (drop_params): the one configuration key */
	key = fpl_run_config_key(run, m->name, NULL, NULL);
	if (!key)
		return -ENOMEM;
	err = series(cs, key, m->unit, path, &r, diag);
	free(key);
	if (err)
		return err;
	*out = r;
	/* a new series (no run yet, so no room to grow): results runs carry identities */
	if (!r->runcap)
		r->tracked = true;
	if (r->label)
		return 0;
	r->label = metric_label(run->bench, run->params, m->name);
	r->bench = strdup(run->bench);
	r->name = strdup(m->name);
	r->params = strdup(params);
	r->method = strdup(m->method ? m->method : "");
	r->kind = fpl_metric_kind(m);
	return r->label && r->bench && r->name && r->params && r->method ? 0 : -ENOMEM;
}

/*
 * One run's metrics into their series. Each fpl_run is one run, but a
 * repro case's samples are its runs' figures (docs/results-schema.md):
 * each one a run, as the repro's own table tests them. The reader turns a
 * null sample into NaN.
 */
static int read_run(struct fpl_cmp_case *cs, const struct fpl_run *run, const char *params,
		    const char *id, const char *path, struct fpl_diag *diag)
{
	bool per_sample = !strcmp(run->bench, FPL_REPRO_BENCH);
	uint64_t pos = (uint64_t)cs->runs_seen++ << 20;
	int err = 0;

	for (size_t j = 0; j < run->nmetrics && !err; j++) {
		struct fpl_metric *m = run->metrics[j];
		struct fpl_cmp_raw *r;

		err = metric_series(cs, run, params, m, path, &r, diag);
		if (!err)
			err = note_state(r, run);
		if (!err && !per_sample)
			err = begin_run_at(r, id, pos);
		for (size_t k = 0; k < m->n && !err; k++)
			if (!isfinite(m->samples[k]))
				r->dropped++;
			else if (!per_sample || !(err = begin_run_at(r, NULL, pos | (k & 0xfffff))))
				err = push(r, m->samples[k]);
	}
	return err;
}

/* Every metric of every run that was not skipped, keyed by bench, params and name. */
/* From the bytes already read: a pipe (<(cat A.json)) cannot be read twice. */
static int read_results(struct fpl_cmp_case *cs, const char *buf, size_t len, const char *path,
			struct fpl_diag *diag)
{
	struct fpl_result *res;
	int err = fpl_result_load_buf(buf, len, path, &res, diag);

	/* A missing or unreadable file is bad input like any other. */
	if (err)
		return err == -ENOMEM ? err : -EINVAL;
	err = note_host(cs, res->host);
	for (size_t i = 0; i < res->nruns && !err; i++) {
		struct fpl_run *run = res->runs[i];
		char *params, *id = NULL;

		if (run->skipped)
			continue;
		note_quiet(cs, run);
		drop_params(run->params, cs->ignore_params, &cs->ignore_found);
		params = json_dumps(run->params, JSON_SORT_KEYS | JSON_COMPACT);
		err = params ? run_identity(run, &id) : -ENOMEM;
		if (!err)
			err = read_run(cs, run, params, id, path, diag);
		free(params);
		free(id);
	}
	fpl_result_free(res);
	return err;
}

static int read_file(struct fpl_cmp_case *cs, const char *path, size_t idx,
		     struct fpl_diag *diag)
{
	enum fpl_cmp_kind kind;
	size_t len;
	int err;
	char *buf = slurp(path, &len, diag, &err);

	if (!buf)
		return err;
	kind = detect(buf);
	if (cs->kind_set && kind != cs->kind) {
		free(buf);
		return fpl_diag_set(diag, -EINVAL, "case %zu (%s): %s is %s, other files are %s",
				    idx + 1, cs->path, path, fpl_cmp_kind_names[kind],
				    fpl_cmp_kind_names[cs->kind]);
	}
	cs->kind = kind;
	cs->kind_set = true;
	cs->nfiles++;
	if (kind == FPL_CMP_NUMBERS)
		err = read_numbers(cs, buf, path, diag);
	else if (kind == FPL_CMP_WIS)
		err = read_wis(cs, buf, path, diag);
	else
		err = read_results(cs, buf, len, path, diag);
	free(buf);
	return err;
}

static int skip_hidden(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/* A directory's regular files, in name order, are the runs of one case. */
static int read_dir(struct fpl_cmp_case *cs, const char *path, size_t idx,
		    struct fpl_diag *diag)
{
	struct dirent **ents;
	int n = scandir(path, &ents, skip_hidden, alphasort), err = 0;

	if (n < 0)
		return fpl_diag_set(diag, -EINVAL, "%s: %s", path, strerror(errno));
	for (int i = 0; i < n; i++) {
		char *file = NULL;
		struct stat st;

		if (!err && asprintf(&file, "%s/%s", path, ents[i]->d_name) < 0)
			err = -ENOMEM;
		if (!err && !stat(file, &st) && S_ISREG(st.st_mode))
			err = read_file(cs, file, idx, diag);
		free(file);
		free(ents[i]);
	}
	free(ents);
	return err;
}

/* One file or directory of a case. */
static int read_path(struct fpl_cmp_case *cs, const char *path, size_t idx,
		     struct fpl_diag *diag)
{
	struct stat st;

	if (stat(path, &st))
		return fpl_diag_set(diag, -EINVAL, "case %zu: %s: %s", idx + 1, path,
				    strerror(errno));
	if (S_ISDIR(st.st_mode))
		cs->many = true;
	return S_ISDIR(st.st_mode) ? read_dir(cs, path, idx, diag) : read_file(cs, path, idx, diag);
}

/* "a.json,b.json": files (or directories) that together are one case. */
static int read_list(struct fpl_cmp_case *cs, const char *path, size_t idx,
		     struct fpl_diag *diag)
{
	char *copy = strdup(path), *save = NULL;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	cs->many = true;
	for (char *p = strtok_r(copy, ",", &save); p && !err; p = strtok_r(NULL, ",", &save))
		err = read_path(cs, p, idx, diag);
	free(copy);
	return err;
}

int fpl_cmp_read_case(struct fpl_cmp_case *cs, const char *path, size_t idx,
		      const struct fpl_cmp_opts *opts, struct fpl_diag *diag)
{
	struct stat st;
	int err;

	memset(cs, 0, sizeof(*cs));
	cs->path = path;
	cs->column = opts->column;
	cs->ignore_params = opts->ignore_params;
	if (strchr(path, ',') && stat(path, &st))
		err = read_list(cs, path, idx, diag);
	else
		err = read_path(cs, path, idx, diag);
	if (err)
		return err;
	if (!cs->nfiles)
		return fpl_diag_set(diag, -EINVAL, "case %zu (%s): empty case: no files", idx + 1,
				    path);
	for (size_t i = 0; i < cs->nr; i++)
		if (cs->r[i].n)
			return 0;
	return fpl_diag_set(diag, -EINVAL, "case %zu (%s): empty case: no values", idx + 1, path);
}
