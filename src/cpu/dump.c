// SPDX-License-Identifier: GPL-3.0-or-later
/* CPUID dumps: fpulab's own text format, and InstLatx64/AIDA64 dumps, read into a snapshot. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpulab/cpu.h"
#include "cpu_internal.h"

#define DUMP_MAGIC "# fpulab cpuid dump 1"
/* AIDA64 dumps of a 512-thread machine run to about 100 000 lines */
#define DUMP_MAX_LINES 1000000
/* A line is at most this long (AIDA64's are under 200 bytes). */
#define DUMP_MAX_LINE 4096
/* The largest XSAVE area a dump may describe (AMX makes 11008 bytes; 1 MiB leaves room). */
#define FPL_DUMP_MAX_XSTATE (1u << 20)

int fpl_cpu_save(const struct fpl_cpu *cpu, FILE *f)
{
	fprintf(f, "%s\n# source: %s\n# cpu: %s (%s family 0x%x model 0x%x stepping 0x%x)\n",
		DUMP_MAGIC, cpu->source, cpu->brand, cpu->vendor, cpu->family,
		cpu->model, cpu->stepping);
	fprintf(f, "# cpuid LEAF SUBLEAF EAX EBX ECX EDX\n");
	if (cpu->xcr0_known)
		fprintf(f, "xcr0 0x%016" PRIx64 "\n", cpu->xcr0);
	for (unsigned i = 0; i < cpu->nleaves; i++) {
		const struct fpl_cpuid_leaf *l = &cpu->leaves[i];

		fprintf(f, "cpuid 0x%08x 0x%02x 0x%08x 0x%08x 0x%08x 0x%08x\n",
			l->leaf, l->subleaf, l->eax, l->ebx, l->ecx, l->edx);
	}
	return ferror(f) ? -EIO : 0;
}

static int parse_hex32(const char *s, uint32_t *v, const char **end)
{
	char *e;
	unsigned long long x;

	if (!isxdigit((unsigned char)s[0]) && !(s[0] == '0' && s[1] == 'x'))
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &e, 16);
	if (errno || e == s || x > 0xffffffffull)
		return -EINVAL;
	*v = (uint32_t)x;
	*end = e;
	return 0;
}

/* "cpuid 0x0000000d 0x00 0x... 0x... 0x... 0x..." or "xcr0 0x..." */
static int parse_own(struct fpl_cpu *cpu, const char *line, bool *have_xcr0)
{
	uint32_t v[6];
	const char *p;

	if (!strncmp(line, "xcr0", 4) && isspace((unsigned char)line[4])) {
		char *e;

		errno = 0;
		p = line + 5;
		while (isspace((unsigned char)*p))
			p++;
		cpu->xcr0 = strtoull(p, &e, 16);
		if (errno || e == p)
			return -EINVAL;
		while (isspace((unsigned char)*e))
			e++;
		if (*e)
			return -EINVAL;
		*have_xcr0 = true;
		return 0;
	}
	if (strncmp(line, "cpuid", 5) || !isspace((unsigned char)line[5]))
		return -EINVAL;
	p = line + 5;
	for (int i = 0; i < 6; i++) {
		while (isspace((unsigned char)*p))
			p++;
		if (parse_hex32(p, &v[i], &p))
			return -EINVAL;
		if (*p && !isspace((unsigned char)*p))
			return -EINVAL;
	}
	while (isspace((unsigned char)*p))
		p++;
	if (*p)
		return -EINVAL;
	/* A leaf given twice: which one did the dump mean? */
	for (unsigned i = 0; i < cpu->nleaves; i++)
		if (cpu->leaves[i].leaf == v[0] && cpu->leaves[i].subleaf == v[1])
			return -EEXIST;
	return fpl_cpu_add_leaf(cpu, v[0], v[1], v + 2);
}

static bool have_leaf(const struct fpl_cpu *cpu, uint32_t leaf, uint32_t sub)
{
	for (unsigned i = 0; i < cpu->nleaves; i++)
		if (cpu->leaves[i].leaf == leaf && cpu->leaves[i].subleaf == sub)
			return true;
	return false;
}

/* One sentence more in the dump's note, "; " between them; "..." when it is full. */
static void __attribute__((format(printf, 2, 3))) note_add(struct fpl_cpu *cpu,
							    const char *fmt, ...)
{
	size_t n = strlen(cpu->note), size = sizeof(cpu->note);
	va_list ap;
	int k;

	if (n + 4 >= size)
		return;
	if (n)
		n += (size_t)snprintf(cpu->note + n, size - n, "; ");
	va_start(ap, fmt);
	k = vsnprintf(cpu->note + n, size - n, fmt, ap);
	va_end(ap);
	if (k < 0 || n + (size_t)k >= size)
		memcpy(cpu->note + size - 4, "...", 4);
}

/*
 * The leaves the rest of fpulab reads that the dump itself says exist, but
 * lacks: each named in the note with what is unknown for it (they read as
 * zeros), so that a partial dump is shown for what it has (issue 14).
 */
static void note_missing(struct fpl_cpu *cpu)
{
	uint32_t r[4], max = 0xffffffff, emax = 0;
	char list[160] = "";
	unsigned nmiss = 0;
	uint64_t comps;

	if (!have_leaf(cpu, 0, 0))
		note_add(cpu, "CPUID leaf 0x0 missing from the dump: vendor and highest leaf "
			 "unknown");
	else if (fpl_cpu_cpuid(cpu, 0, 0, r))
		max = r[0];
	if (max >= 1 && !have_leaf(cpu, 1, 0))
		note_add(cpu, "CPUID leaf 0x1 missing from the dump: family, model and feature "
			 "bits (XSAVE, AVX) unknown, read as absent");
	if (max >= 7 && !have_leaf(cpu, 7, 0))
		note_add(cpu, "CPUID leaf 0x7 missing from the dump: AVX2, AVX-512 and AMX bits "
			 "unknown, read as absent");
	fpl_cpu_cpuid(cpu, 1, 0, r);
	if (r[2] >> 26 & 1 && max >= 0xd) {	/* XSAVE */
		if (!have_leaf(cpu, 0xd, 0))
			note_add(cpu, "CPUID leaf 0xD missing from the dump: XSAVE components and "
				 "sizes unknown");
		if (have_leaf(cpu, 0xd, 0) && !have_leaf(cpu, 0xd, 1))
			note_add(cpu, "CPUID leaf 0xD subleaf 1 missing from the dump: XSAVEOPT, "
				 "XSAVEC, XSAVES and XFD unknown, read as absent");
		fpl_cpu_cpuid(cpu, 0xd, 0, r);
		comps = (uint64_t)r[3] << 32 | r[0];
		fpl_cpu_cpuid(cpu, 0xd, 1, r);
		comps |= (uint64_t)r[3] << 32 | r[2];
		for (unsigned i = 2; i < 63; i++)
			if (comps >> i & 1 && !have_leaf(cpu, 0xd, i) && ++nmiss)
				snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%u",
					 nmiss > 1 ? ", " : "", i);
		if (nmiss)
			note_add(cpu, "CPUID leaf 0xD %s %s missing from the dump: %s size and "
				 "offset read as 0", nmiss > 1 ? "subleaves" : "subleaf", list,
				 nmiss > 1 ? "those components'" : "that component's");
	}
	fpl_cpu_cpuid(cpu, 7, 0, r);
	if (r[3] >> 24 & 1 && max >= 0x1d) {	/* AMX-TILE */
		if (!have_leaf(cpu, 0x1d, 0) || !have_leaf(cpu, 0x1d, 1))
			note_add(cpu, "CPUID leaf 0x1D missing from the dump: AMX palette unknown");
		if (max >= 0x1e && !have_leaf(cpu, 0x1e, 0))
			note_add(cpu, "CPUID leaf 0x1E missing from the dump: AMX TMUL limits "
				 "unknown");
	}
	if (!have_leaf(cpu, 0x80000000, 0)) {
		note_add(cpu, "CPUID leaf 0x80000000 missing from the dump: the extended leaves "
			 "(brand string, RDTSCP, invariant TSC) unknown");
		return;
	}
	fpl_cpu_cpuid(cpu, 0x80000000, 0, r);
	emax = r[0];
	if (emax >= 0x80000004 && (!have_leaf(cpu, 0x80000002, 0) ||
				   !have_leaf(cpu, 0x80000003, 0) ||
				   !have_leaf(cpu, 0x80000004, 0)))
		note_add(cpu, "CPUID leaves 0x80000002-0x80000004 missing from the dump: brand "
			 "string unknown");
}

/*
 * Leaf 0xD must describe a state that fits in memory, in both formats: a
 * size of 0xffffffff would wrap the layout's sums at 32 bits, and a user
 * component past the standard area 0xD.0 ECX gives would lie outside every
 * image sized by it. AIDA64's unlabelled subleaves are checked where
 * place_unlabelled_d put them (placed: the message says so).
 */
static int check_sizes(const struct fpl_cpu *cpu, const char *name, bool placed,
		       uint64_t xcr0_line, struct fpl_diag *diag)
{
	const char *how = placed ? " (as placed by content: the dump's leaf 0xD lines have no "
				   "subleaf labels)" : "";
	uint32_t r[4], xsave_max;
	uint64_t comps, user;

	fpl_cpu_cpuid(cpu, 1, 0, r);
	if (!(r[2] >> 26 & 1) || !have_leaf(cpu, 0xd, 0))
		return 0;	/* no XSAVE, or no leaf 0xD to read (the note says so) */
	fpl_cpu_cpuid(cpu, 0xd, 0, r);
	comps = user = (uint64_t)r[3] << 32 | r[0];
	xsave_max = r[2];
	if (xsave_max > FPL_DUMP_MAX_XSTATE || r[1] > xsave_max)
		return fpl_diag_set(diag, -EINVAL, "%s: leaf 0xD.0 says the standard XSAVE area is "
				    "%u bytes (ECX; EBX %u): not a size a CPU has (at most %u, and "
				    "EBX <= ECX)", name, xsave_max, r[1], FPL_DUMP_MAX_XSTATE);
	fpl_cpu_cpuid(cpu, 0xd, 1, r);
	comps |= (uint64_t)r[3] << 32 | r[2];
	user &= ~((uint64_t)r[3] << 32 | r[2]);
	for (unsigned i = 2; i < 63; i++) {
		uint64_t end;

		if (!(comps >> i & 1) || !have_leaf(cpu, 0xd, i))
			continue;
		fpl_cpu_cpuid(cpu, 0xd, i, r);
		/*
		 * AMD answers zeros for a component its OS left out of XCR0
		 * (zen3-5950x.aida); a component the dump's own xcr0 line enables
		 * must have a size.
		 */
		if (!r[0] && !r[1] && !r[2] && !r[3] && !(xcr0_line >> i & 1))
			continue;
		end = (uint64_t)r[0] + (r[2] & 1 ? 0 : r[1]);
		if (!r[0] || end > FPL_DUMP_MAX_XSTATE)
			return fpl_diag_set(diag, -EINVAL, "%s: leaf 0xD subleaf %u%s: component %u "
					    "of %u bytes at offset %u: not a size a CPU has (at most "
					    "%u bytes in all)", name, i, how, i, r[0], r[1],
					    FPL_DUMP_MAX_XSTATE);
		/* as fpl_xstate_init: a user component unless 0xD.1 or its ECX bit 0 says not */
		if (user >> i & 1 && !(r[2] & 1) && end > xsave_max)
			return fpl_diag_set(diag, -EINVAL, "%s: leaf 0xD subleaf %u%s: component %u "
					    "of %u bytes at offset %u ends at %" PRIu64 ", past the "
					    "standard XSAVE area of %u bytes (leaf 0xD.0 ECX)", name,
					    i, how, i, r[0], r[1], end, xsave_max);
	}
	return 0;
}

struct aida {
	uint32_t last_leaf;
	uint32_t last_sub;
	bool any;
	bool done;		/* the logical CPU after the wanted one began */
	unsigned want, cur;	/* the logical CPU wanted, the one being read */
	unsigned n_d;		/* unlabelled leaf 0xD lines, in order */
	uint32_t d[64][4];
};

/*
 * Another logical CPU begins: done when the wanted one was read, else the
 * snapshot starts again for the next one. True when done.
 */
static bool next_block(struct fpl_cpu *cpu, struct aida *st)
{
	if (st->cur == st->want) {
		st->done = true;
		return true;
	}
	st->cur++;
	st->any = false;
	st->n_d = 0;
	cpu->nleaves = 0;
	return false;
}

/* "CPUID 0000000D: 000002E7-00000980-00000988-00000000 [SL 00] [x87]" */
static int parse_aida(struct fpl_cpu *cpu, struct aida *st, const char *line)
{
	uint32_t leaf, r[4], sub = 0;
	const char *p = line + 6, *sl;
	bool labelled = false;

	if (parse_hex32(p, &leaf, &p) || *p != ':')
		return -EINVAL;
	p++;
	for (int i = 0; i < 4; i++) {
		while (*p == ' ')
			p++;
		if (parse_hex32(p, &r[i], &p))
			return -EINVAL;
		if (i < 3 && *p++ != '-')
			return -EINVAL;
	}
	if (*p && !isspace((unsigned char)*p))
		return -EINVAL;
	sl = strstr(p, "[SL ");
	if (sl) {
		if (parse_hex32(sl + 4, &sub, &p) || *p != ']')
			return -EINVAL;
		labelled = true;
	}
	if (leaf == 0 && st->any && next_block(cpu, st))
		return 0;
	if (!labelled && st->any && leaf == st->last_leaf)
		sub = st->last_sub + 1;
	st->any = true;
	st->last_leaf = leaf;
	st->last_sub = sub;
	if (leaf == 0xd && !labelled) {
		if (st->n_d < FPL_ARRAY_SIZE(st->d))
			memcpy(st->d[st->n_d++], r, sizeof(r));
		return 0;
	}
	return fpl_cpu_add_leaf(cpu, leaf, sub, r);
}

/*
 * Old AIDA64 dumps print leaf 0xD without subleaf numbers and leave out some
 * subleaves (Sandy Bridge: 0 and 2 only). Subleaf 1 holds feature bits in EAX
 * (values below 0x20); a component subleaf holds its size there (at least 8,
 * and never first after subleaf 0 when below 0x20). The rest follow the
 * enumerated components in ascending order.
 */
static int place_unlabelled_d(struct fpl_cpu *cpu, const struct aida *st)
{
	unsigned i = 1, comp = 2;
	uint64_t bits;
	int err;

	if (!st->n_d)
		return 0;
	err = fpl_cpu_add_leaf(cpu, 0xd, 0, st->d[0]);
	if (err)
		return err;
	bits = ((uint64_t)st->d[0][3] << 32) | st->d[0][0];
	if (i < st->n_d && st->d[i][0] < 0x20) {
		err = fpl_cpu_add_leaf(cpu, 0xd, 1, st->d[i]);
		if (err)
			return err;
		bits |= ((uint64_t)st->d[i][3] << 32) | st->d[i][2];
		i++;
	}
	for (; i < st->n_d; i++) {
		while (comp < 64 && !(bits >> comp & 1))
			comp++;
		if (comp >= 64)
			break;
		err = fpl_cpu_add_leaf(cpu, 0xd, comp++, st->d[i]);
		if (err)
			return err;
	}
	note_add(cpu, "leaf 0xD subleaves were not labelled in the dump; %u lines placed by "
		 "content", st->n_d);
	return 0;
}

/*
 * "CPUID 0000000D: ..." is a leaf line (and must parse); "CPUID Manufacturer
 * : GenuineIntel", "CPUID CPU Name : ..." in InstLatx64's header are prose.
 */
static bool aida_leaf_line(const char *line)
{
	return !strncmp(line, "CPUID ", 6) && strspn(line + 6, "0123456789abcdefABCDEF") == 8 &&
	       line[14] == ':';
}

static char *trim(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = 0;
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/* What a dump has shown so far: our own format, AIDA64's, an xcr0 line. */
struct dump_seen {
	bool own, aida, xcr0;
};

/* One line (trimmed, not blank, no comment) of either format: 0, -EEXIST (given before), -errno. */
static int dump_line(struct fpl_cpu *cpu, struct aida *st, const char *line,
		     struct dump_seen *seen)
{
	if (aida_leaf_line(line)) {
		seen->aida = true;
		return st->done ? 0 : parse_aida(cpu, st, line);
	}
	if (strstr(line, "Logical CPU #") && st->any && !st->done) {
		next_block(cpu, st);
		return 0;
	}
	if (!strncmp(line, "cpuid", 5) || !strncmp(line, "xcr0", 4)) {
		seen->own = true;
		return parse_own(cpu, line, &seen->xcr0);
	}
	/* anything else is AIDA64's prose around its CPUID lines; our format has nothing else */
	return seen->own && !seen->aida ? -EINVAL : 0;
}

/*
 * A dump without an xcr0 line: every user component CPUID.(0xD,0) EDX:EAX
 * enumerates, less those whose subleaf the dump gives as zeros (AMD answers
 * so for a component the dumping OS had not enabled): their size and offset
 * are unknown, so no XCR0 can hold them. The note says which.
 */
static uint64_t derived_xcr0(struct fpl_cpu *cpu)
{
	uint64_t x = fpl_cpu_xfeatures_user(cpu);
	uint32_t r[4];

	for (unsigned i = 2; i < 63; i++) {
		if (!(x >> i & 1) || !have_leaf(cpu, 0xd, i))
			continue;
		fpl_cpu_cpuid(cpu, 0xd, i, r);
		if (r[0] || r[1] || r[2] || r[3])
			continue;
		x &= ~(1ull << i);
		note_add(cpu, "CPUID leaf 0xD subleaf %u reads zeros although 0xD.0 enumerates "
			 "component %u (the dumping OS had not enabled it): left out of XCR0", i, i);
	}
	return x;
}

/* After the last line: the unlabelled 0xD subleaves placed, the own format checked, decoded. */
static int dump_end(struct fpl_cpu *cpu, struct aida *st, const struct dump_seen *seen,
		    const char *name, unsigned lines, struct fpl_diag *diag)
{
	int err;

	if (st->cur < st->want || (st->want && !st->any))
		return fpl_diag_set(diag, -ENOENT, "%s: no logical CPU #%u in the dump (%u found)",
				    name, st->want, st->cur + (st->any ? 1 : 0));
	if (place_unlabelled_d(cpu, st))
		return fpl_diag_set(diag, -EINVAL, "%s: too many CPUID leaves", name);
	if (!cpu->nleaves)
		return fpl_diag_set(diag, -EINVAL, "%s: no CPUID leaves found (%u lines): not a "
				    "CPUID dump", name, lines);
	err = check_sizes(cpu, name, st->n_d > 0, seen->xcr0 ? cpu->xcr0 : 0, diag);
	if (err)
		return err;
	note_missing(cpu);
	fpl_cpu_decode(cpu);
	cpu->xcr0_known = seen->xcr0;
	if (!seen->xcr0)
		cpu->xcr0 = fpl_cpu_has_cpuid(cpu, FPL_FEAT_OSXSAVE) ? derived_xcr0(cpu) : 0;
	return 0;
}

static int load_stream(struct fpl_cpu *cpu, FILE *f, const char *name, unsigned want,
		       struct fpl_diag *diag)
{
	char *buf = malloc(DUMP_MAX_LINE + 2);
	size_t got;
	unsigned lineno = 0;
	struct dump_seen seen = { false, false, false };
	struct aida *st;
	int err = 0;

	st = calloc(1, sizeof(*st));
	if (!st || !buf) {
		free(st);
		free(buf);
		return fpl_diag_set(diag, -ENOMEM, "%s: out of memory", name);
	}
	st->want = want;
	memset(cpu, 0, sizeof(*cpu));
	snprintf(cpu->source, sizeof(cpu->source), "%s", name);

	/* Whole lines only: one longer than the buffer is an error on its own line number. */
	while (fgets(buf, DUMP_MAX_LINE + 2, f)) {
		char *line;

		got = strlen(buf);

		/* a device that never ends (/dev/zero) must not keep us reading forever */
		if (++lineno > DUMP_MAX_LINES) {
			err = fpl_diag_set(diag, -EINVAL, "%s: more than %d lines: not a CPUID dump",
					   name, DUMP_MAX_LINES);
			goto out;
		}
		if (got > DUMP_MAX_LINE && buf[got - 1] != '\n') {
			err = fpl_diag_set(diag, -EINVAL, "%s:%u: longer than %d bytes: not a CPUID "
					   "dump line", name, lineno, DUMP_MAX_LINE);
			goto out;
		}
		line = trim(buf);
		if (!strncmp(line, DUMP_MAGIC, strlen(DUMP_MAGIC)))
			seen.own = true;
		if (!*line || line[0] == '#')
			continue;
		err = dump_line(cpu, st, line, &seen);
		if (err == -EEXIST) {
			err = fpl_diag_set(diag, -EINVAL, "%s:%u: this leaf and subleaf were given "
					   "before: '%.80s'", name, lineno, line);
			goto out;
		}
		if (err) {
			err = fpl_diag_set(diag, err == -ENOSPC ? -EINVAL : err,
					   "%s:%u: not a CPUID dump line: '%.80s'", name,
					   lineno, line);
			goto out;
		}
	}
	if (ferror(f))
		err = fpl_diag_set(diag, -EIO, "%s: cannot read it: %s", name, strerror(errno));
	else
		err = dump_end(cpu, st, &seen, name, lineno, diag);
out:
	free(buf);
	free(st);
	return err;
}

int fpl_cpu_load_stream(struct fpl_cpu *cpu, FILE *f, const char *name,
			struct fpl_diag *diag)
{
	return load_stream(cpu, f, name, 0, diag);
}

int fpl_cpu_load_nth(struct fpl_cpu *cpu, const char *path, unsigned n, struct fpl_diag *diag)
{
	FILE *f = fopen(path, "r");
	int err;

	if (!f)
		return fpl_diag_set(diag, -errno, "%s: %s", path, strerror(errno));
	err = load_stream(cpu, f, path, n, diag);
	fclose(f);
	return err;
}

int fpl_cpu_load(struct fpl_cpu *cpu, const char *path, struct fpl_diag *diag)
{
	return fpl_cpu_load_nth(cpu, path, 0, diag);
}
