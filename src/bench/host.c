// SPDX-License-Identifier: GPL-3.0-or-later
/* The host object shared by `fpulab info --json` and every results document. */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <unistd.h>

#include "fpulab/amx.h"
#include "fpulab/clock.h"
#include "fpulab/host.h"
#include "fpulab/kvmhost.h"
#include "fpl_version.h"

/* Collects jansson failures so the builder can report one -ENOMEM at the end. */
struct jb {
	bool bad;
};

static void set(struct jb *b, json_t *o, const char *key, json_t *v)
{
	if (!v || json_object_set_new(o, key, v))
		b->bad = true;
}

static json_t *hex(uint64_t v)
{
	char s[24];

	snprintf(s, sizeof(s), "0x%" PRIx64, v);
	return json_string(s);
}

static json_t *str_or_null(const char *s)
{
	return s && *s ? json_string(s) : json_null();
}

static json_t *components(struct jb *b, const struct fpl_xstate *xs)
{
	json_t *arr = json_array();

	if (!arr) {
		b->bad = true;
		return NULL;
	}
	for (unsigned i = 0; i < FPL_XFEATURE_MAX; i++) {
		const struct fpl_xcomp *c = &xs->comp[i];
		int64_t std = fpl_xstate_offset_std(xs, i);
		int64_t cmp = fpl_xstate_offset_compacted(xs, xs->xcr0, i);
		json_t *o;

		if (!c->enumerated || (!xs->xsave && i > 1))
			continue;
		o = json_object();
		if (!o || json_array_append_new(arr, o)) {
			b->bad = true;
			break;
		}
		set(b, o, "id", json_integer(i));
		set(b, o, "name", json_string(fpl_xfeature_name(i)));
		set(b, o, "supervisor", json_boolean(c->supervisor));
		set(b, o, "enabled", json_boolean(xs->xcr0 >> i & 1));
		set(b, o, "size", json_integer(c->size));
		set(b, o, "offset", std >= 0 ? json_integer(std) : json_null());
		set(b, o, "compacted_offset", cmp >= 0 ? json_integer(cmp) : json_null());
		set(b, o, "align64", json_boolean(c->align64));
		set(b, o, "xfd", json_boolean(c->xfd));
	}
	return arr;
}

static json_t *save_insns(struct jb *b, const struct fpl_cpu *cpu)
{
	json_t *arr = json_array();

	if (!arr) {
		b->bad = true;
		return NULL;
	}
	for (int i = 0; i < FPL_INSN_NR; i++) {
		const char *why;
		int ok = fpl_save_insn_supported(cpu, i, &why);
		json_t *o = json_object();

		if (!o || json_array_append_new(arr, o)) {
			b->bad = true;
			break;
		}
		set(b, o, "name", json_string(fpl_save_insn_name(i)));
		set(b, o, "supported", json_boolean(ok));
		set(b, o, "on_cpu", json_boolean(ok || (i == FPL_INSN_XSAVES &&
							fpl_cpu_has_cpuid(cpu, FPL_FEAT_XSAVES))));
		set(b, o, "why", ok ? json_null() : json_string(why));
	}
	return arr;
}

/* "key:\tvalue" lines of /proc/self/arch_status as an object of strings. */
static json_t *arch_status(struct jb *b, const char *text)
{
	json_t *o = json_object();
	char line[256];

	if (!o) {
		b->bad = true;
		return NULL;
	}
	while (*text) {
		size_t n = strcspn(text, "\n");
		char *colon, *v;

		snprintf(line, sizeof(line), "%.*s", (int)(n < sizeof(line) ? n : sizeof(line) - 1),
			 text);
		text += n + (text[n] == '\n');
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = 0;
		v = colon + 1 + strspn(colon + 1, " \t");
		set(b, o, line, json_string(v));
	}
	return o;
}

static json_t *kernel(struct jb *b, const struct fpl_sysinfo *si)
{
	json_t *o = json_object();

	if (!o) {
		b->bad = true;
		return NULL;
	}
	set(b, o, "release", str_or_null(si->release));
	set(b, o, "machine", str_or_null(si->machine));
	set(b, o, "at_minsigstksz", si->minsigstksz ? json_integer((json_int_t)si->minsigstksz)
						     : json_null());
	set(b, o, "xcomp_supp", si->xcomp_supp_err ? json_null() : hex(si->xcomp_supp));
	set(b, o, "xcomp_perm", si->xcomp_perm_err ? json_null() : hex(si->xcomp_perm));
	if (si->xcomp_supp_err)
		set(b, o, "xcomp_supp_error", json_string(strerror(-si->xcomp_supp_err)));
	if (si->xcomp_perm_err)
		set(b, o, "xcomp_perm_error", json_string(strerror(-si->xcomp_perm_err)));
	set(b, o, "arch_status", arch_status(b, si->arch_status));
	return o;
}

static const char *modules_text(unsigned m, char *buf, size_t n)
{
	snprintf(buf, n, "%s%s%s%s%s", m & FPL_KVM_MOD_INTEL ? "kvm_intel" : "",
		 (m & FPL_KVM_MOD_INTEL) && (m & (FPL_KVM_MOD_AMD | FPL_KVM_MOD_PVM)) ? "," : "",
		 m & FPL_KVM_MOD_AMD ? "kvm_amd" : "",
		 (m & FPL_KVM_MOD_AMD) && (m & FPL_KVM_MOD_PVM) ? "," : "",
		 m & FPL_KVM_MOD_PVM ? "kvm_pvm" : "");
	return buf;
}

json_t *fpl_host_kvm_json(const struct fpl_kvm_host *k, int err)
{
	struct jb b = { false };
	json_t *o = json_object();
	char mods[64], names[200];

	if (!o)
		return NULL;
	set(&b, o, "device", json_string("/dev/kvm"));
	set(&b, o, "present", json_boolean(k->dev));
	set(&b, o, "usable", json_boolean(!err));
	set(&b, o, "why", err ? str_or_null(k->why) : json_null());
	set(&b, o, "backend", json_string(fpl_kvm_backend_name(k->backend)));
	set(&b, o, "label", str_or_null(fpl_kvm_backend_label(k->backend)));
	set(&b, o, "modules", json_string(modules_text(k->modules, mods, sizeof(mods))));
	set(&b, o, "cpu_vmx", json_boolean(k->vmx));
	set(&b, o, "cpu_svm", json_boolean(k->svm));
	set(&b, o, "nested", json_boolean(k->nested));
	if (k->api) {
		set(&b, o, "api_version", json_integer(k->api));
		set(&b, o, "cap_xsave", json_boolean(k->cap_xsave));
		set(&b, o, "cap_xcrs", json_boolean(k->cap_xcrs));
		set(&b, o, "xsave2_size", k->xsave2_size ? json_integer(k->xsave2_size) :
			json_null());
	}
	if (k->cpuid_read) {
		set(&b, o, "supported_xcr0", hex(k->supported_xcr0));
		set(&b, o, "supported_xcr0_components", json_string(
			fpl_xfeature_mask_names(k->supported_xcr0, names, sizeof(names))));
		set(&b, o, "supported_xss", hex(k->supported_xss));
		set(&b, o, "supported_xss_components", json_string(
			fpl_xfeature_mask_names(k->supported_xss, names, sizeof(names))));
		set(&b, o, "cpuid_d1_eax", hex(k->d1_eax));
	}
	if (k->api) {
		set(&b, o, "xcomp_guest_supp", k->guest_supp_err ? json_null() : hex(k->guest_supp));
		set(&b, o, "guest_perm", k->guest_perm_err ? json_null() : hex(k->guest_perm));
	}
	if (b.bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

bool fpl_host_hypervisor(const struct fpl_cpu *cpu, char name[13])
{
	uint32_t r[4];
	size_t n;

	name[0] = 0;
	if (!fpl_cpu_has_cpuid(cpu, FPL_FEAT_HYPERVISOR))
		return false;
	if (fpl_cpu_cpuid(cpu, 0x40000000, 0, r)) {
		memcpy(name, &r[1], 4);
		memcpy(name + 4, &r[2], 4);
		memcpy(name + 8, &r[3], 4);
		name[12] = 0;
		n = strlen(name);
		while (n && (name[n - 1] == ' ' || name[n - 1] == '\t'))
			name[--n] = 0;
	}
	return true;
}

static void identity(struct jb *b, json_t *h, const struct fpl_cpu *cpu,
		     const struct fpl_sysinfo *si)
{
	char hv[13];

	set(b, h, "cpuid_source", json_string(cpu->live ? "live" : cpu->source));
	if (cpu->note[0])
		set(b, h, "cpuid_note", json_string(cpu->note));
	set(b, h, "vendor", json_string(cpu->vendor));
	set(b, h, "name", json_string(cpu->brand));
	set(b, h, "family", json_integer(cpu->family));
	set(b, h, "model", json_integer(cpu->model));
	set(b, h, "stepping", json_integer(cpu->stepping));
	set(b, h, "microcode", cpu->live && si ? str_or_null(si->microcode) : json_null());
	set(b, h, "vm", json_boolean(fpl_host_hypervisor(cpu, hv)));
	set(b, h, "hypervisor", str_or_null(hv));
}

static json_t *sizes(struct jb *b, const struct fpl_xstate *xs, const struct fpl_xstate_masks *m,
		     uint32_t (*fn)(const struct fpl_xstate *, uint64_t))
{
	json_t *o = json_object();

	if (!o) {
		b->bad = true;
		return NULL;
	}
	set(b, o, "xcr0", json_integer(fn(xs, m->xcr0)));
	set(b, o, "permitted", json_integer(fn(xs, m->permitted)));
	set(b, o, "active", json_integer(fn(xs, m->active)));
	return o;
}

json_t *fpl_host_masks_json(const struct fpl_xstate *xs, const struct fpl_xstate_masks *m)
{
	struct jb b = { false };
	uint64_t xfd = fpl_xstate_xfd_mask(xs);
	json_t *o = json_object();
	char note[160];

	if (!o)
		return NULL;
	set(&b, o, "xcr0", hex(m->xcr0));
	set(&b, o, "permitted", hex(m->permitted));
	set(&b, o, "permitted_from", json_string(m->permitted_from));
	set(&b, o, "active", hex(m->active));
	set(&b, o, "active_from", json_string(m->active_from));
	set(&b, o, "xfd", hex(xfd));
	set(&b, o, "size_standard", sizes(&b, xs, m, fpl_xstate_size_std));
	set(&b, o, "size_compacted", sizes(&b, xs, m, fpl_xstate_size_compacted));
	/* The kernel writes this task's state into a signal frame: the active mask's standard size. */
	set(&b, o, "signal_frame_xstate_size",
	    json_integer(xs->xsave ? fpl_xstate_size_std(xs, m->active) : 0));
	set(&b, o, "signal_frame_xstate_size_all_used",
	    json_integer(xs->xsave ? fpl_xstate_size_std(xs, m->xcr0) : 0));
	if (m->frame_xstate_size)
		set(&b, o, "signal_frame_seen",
		    json_pack("{s:o, s:I}", "xfeatures", hex(m->frame_xfeatures), "xstate_size",
			      (json_int_t)m->frame_xstate_size));
	if (xfd & ~m->permitted) {
		snprintf(note, sizeof(note),
			 "AMX tile data not permitted (no --amx): \"all\" is the permitted set "
			 "0x%" PRIx64 ", not XCR0 0x%" PRIx64, m->permitted, m->xcr0);
		set(&b, o, "note", json_string(note));
	}
	if (b.bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *fpl_host_amx_json(const struct fpl_xstate *xs)
{
	const struct fpl_amx_palette *p = &xs->amx;
	const char *why = NULL;
	int ok = fpl_amx_supported(xs, &why);

	if (!xs->comp[FPL_XFEATURE_XTILE_DATA].enumerated && !p->valid)
		return json_pack("{s:b, s:s}", "supported", 0, "why", why);
	return json_pack("{s:b, s:s?, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "supported", ok,
			 "why", ok ? NULL : why, "max_palette", (json_int_t)p->max_palette,
			 "tiles", (json_int_t)p->max_names, "rows", (json_int_t)p->max_rows,
			 "bytes_per_row", (json_int_t)p->bytes_per_row, "bytes_per_tile",
			 (json_int_t)p->bytes_per_tile, "total_tile_bytes",
			 (json_int_t)p->total_tile_bytes, "tmul_maxk", (json_int_t)p->tmul_maxk,
			 "tmul_maxn", (json_int_t)p->tmul_maxn);
}

int fpl_host_json(const struct fpl_cpu *cpu, const struct fpl_xstate *xs,
		  const struct fpl_sysinfo *si, json_t **out)
{
	struct jb b = { false };
	struct fpl_xstate_masks masks;
	uint64_t xinuse = 0;
	bool have_xinuse = fpl_xinuse(cpu, &xinuse);	/* before jansson touches vector state */
	json_t *h = json_object();

	*out = NULL;
	if (!h)
		return -ENOMEM;
	set(&b, h, "tool", json_pack("{s:s, s:s, s:s, s:s}", "name", "fpulab", "version",
				     FPL_VERSION, "git", FPL_GIT_REV, "cflags", FPL_CFLAGS));
	identity(&b, h, cpu, si);
	set(&b, h, "xcr0", hex(xs->xcr0));
	/* Without XSAVE there is no XCR0 to read: 0x3 is FXSAVE's implied x87|SSE. */
	set(&b, h, "xcr0_known", json_boolean(cpu->xcr0_known && xs->xsave));
	set(&b, h, "xcr0_source", json_string(!xs->xsave ? "implied: no XSAVE, FXSAVE's x87|SSE" :
					      cpu->live ? "XGETBV(0)" : cpu->xcr0_known ?
					      "from the dump" : "assumed: every user component "
					      "enumerated"));
	set(&b, h, "xinuse", have_xinuse ? hex(xinuse) : json_null());
	set(&b, h, "xsave", json_boolean(xs->xsave));
	set(&b, h, "xsave_size_standard", json_integer(fpl_xstate_size_std(xs, xs->xcr0)));
	set(&b, h, "xsave_size_compacted", json_integer(fpl_xstate_size_compacted(xs, xs->xcr0)));
	set(&b, h, "xsave_size_max", json_integer(xs->size_std_max));
	set(&b, h, "cpuid_xsave_size_xcr0", json_integer(xs->size_std_xcr0));
	set(&b, h, "cpuid_xsave_size_compacted_xss", json_integer(xs->size_compacted_xss));
	set(&b, h, "user_components", hex(xs->user));
	set(&b, h, "supervisor_components", hex(xs->supervisor));
	set(&b, h, "save_instructions", save_insns(&b, cpu));
	set(&b, h, "components", components(&b, xs));
	fpl_xstate_masks(xs, &masks);
	set(&b, h, "masks", fpl_host_masks_json(xs, &masks));
	set(&b, h, "amx", fpl_host_amx_json(xs));
	if (si) {
		struct fpl_kvm_host k;
		int kerr = fpl_kvm_host_read(&k);

		set(&b, h, "kernel", kernel(&b, si));
		set(&b, h, "kvm", fpl_host_kvm_json(&k, kerr));
	}
	if (b.bad) {
		json_decref(h);
		return -ENOMEM;
	}
	*out = h;
	return 0;
}

int fpl_host_measured_json(const struct fpl_cpu *cpu, const struct fpl_clock *clock, json_t **out)
{
	struct fpl_xstate *xs = malloc(sizeof(*xs));
	struct fpl_sysinfo *si = malloc(sizeof(*si));
	json_t *h = NULL;
	int err = -ENOMEM;

	if (!xs || !si)
		goto out;
	fpl_sysinfo_read(si);
	err = fpl_xstate_init(xs, cpu);
	if (!err)
		err = fpl_host_json(cpu, xs, si, &h);
	if (err)
		goto out;
	/* no clock: a session that measured nothing (everything asked for refused) */
	if (clock && json_object_set_new(h, "clock", fpl_clock_json(clock))) {
		err = -ENOMEM;
		goto out;
	}
	*out = h;
	h = NULL;
out:
	json_decref(h);
	free(xs);
	free(si);
	return err;
}

/* The CPUs this process may run on, as a list ("0-1"), before the clock pins it. */
static void cpus_allowed(char *buf, size_t n)
{
	cpu_set_t set;
	size_t len = 0;

	buf[0] = 0;
	if (sched_getaffinity(0, sizeof(set), &set))
		return;
	for (int c = 0; c < CPU_SETSIZE && len < n; c++) {
		int e = c;

		if (!CPU_ISSET(c, &set))
			continue;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, &set))
			e++;
		len += (size_t)snprintf(buf + len, n - len, e > c ? "%s%d-%d" : "%s%d",
					len ? "," : "", c, e);
		c = e;
	}
}

json_t *fpl_host_process_json(void)
{
	int pers = personality(0xffffffff), local = 0;
	long long rva = -1;
	FILE *f = fopen("/proc/sys/kernel/randomize_va_space", "r");
	void *heap = malloc(4096), *map = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
						MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char st[24], hp[24], mp[24], cpus[256];
	json_t *o;

	if (f) {
		if (fscanf(f, "%lld", &rva) != 1)
			rva = -1;
		fclose(f);
	}
	snprintf(st, sizeof(st), "0x%" PRIxPTR, (uintptr_t)&local);
	snprintf(hp, sizeof(hp), "0x%" PRIxPTR, (uintptr_t)heap);
	snprintf(mp, sizeof(mp), "0x%" PRIxPTR, map == MAP_FAILED ? (uintptr_t)0 : (uintptr_t)map);
	cpus_allowed(cpus, sizeof(cpus));
	o = json_pack("{s:I, s:b, s:I, s:b, s:s, s:s, s:s, s:s}", "pid", (json_int_t)getpid(),
		      "aslr", pers >= 0 && !(pers & ADDR_NO_RANDOMIZE) && rva != 0,
		      "randomize_va_space", (json_int_t)rva,
		      "addr_no_randomize", pers >= 0 && (pers & ADDR_NO_RANDOMIZE),
		      "addr_stack", st, "addr_heap", hp, "addr_mmap", mp, "cpus_allowed", cpus);
	free(heap);
	if (map != MAP_FAILED)
		munmap(map, 4096);
	return o;
}
