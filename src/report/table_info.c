// SPDX-License-Identifier: GPL-3.0-or-later
/* fpulab info's table for people: CPU, XCR0/XINUSE, masks, components, kernel facts. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "fpulab/amx.h"
#include "fpulab/host.h"
#include "kernelview.h"
#include "fpulab/kvmhost.h"
#include "fpulab/report.h"
#include "table_internal.h"

static void print_cpu(FILE *f, const struct fpl_cpu *cpu, const struct fpl_sysinfo *si)
{
	char hv[13];

	fprintf(f, "CPU          %s (%s, family 0x%x model 0x%x stepping 0x%x)\n",
		cpu->brand[0] ? cpu->brand : "(no brand string)", cpu->vendor, cpu->family,
		cpu->model, cpu->stepping);
	if (cpu->live) {
		fprintf(f, "CPUID from   the running CPU\n");
		fprintf(f, "microcode    %s\n", si->microcode[0] ? si->microcode :
			"unknown (no microcode line in /proc/cpuinfo)");
	} else {
		fprintf(f, "CPUID from   dump %s (not the running CPU)\n", cpu->source);
	}
	if (cpu->note[0])
		fpl_tbl_wrap_labelled(f, "note", 13, cpu->note);
	if (fpl_host_hypervisor(cpu, hv))
		fprintf(f, "VM           yes (CPUID.1:ECX hypervisor bit%s%s%s)\n",
			hv[0] ? "; \"" : "", hv, hv[0] ? "\"" : "");
	else
		fprintf(f, "VM           no (CPUID.1:ECX hypervisor bit clear)\n");
}

static void print_xstate(FILE *f, const struct fpl_cpu *cpu, const struct fpl_xstate *xs,
			 bool have_xinuse, uint64_t xinuse)
{
	char names[256];

	fprintf(f, "XCR0         0x%" PRIx64 "  %s  (%s)\n", xs->xcr0,
		fpl_xfeature_mask_names(xs->xcr0, names, sizeof(names)),
		!xs->xsave ? "implied, not read: no XSAVE, FXSAVE's x87|SSE" :
		cpu->live ? "XGETBV(0)" :
		cpu->xcr0_known ? "from the dump" :
		"assumed: the dump has none, every user component enumerated");
	if (have_xinuse)
		fprintf(f, "XINUSE       0x%" PRIx64 "  %s  (XGETBV(1), now)\n", xinuse,
			fpl_xfeature_mask_names(xinuse, names, sizeof(names)));
	else
		fprintf(f, "XINUSE       n/a (%s)\n", cpu->live ? "no XGETBV(1) on this CPU" :
			"CPUID from a dump");
	fprintf(f, "XSAVE size   standard %" PRIu32 " bytes, compacted %" PRIu32
		" bytes (computed for XCR0)\n", fpl_xstate_size_std(xs, xs->xcr0),
		fpl_xstate_size_compacted(xs, xs->xcr0));
	if (xs->xsave)
		fprintf(f, "CPUID 0xD    0.EBX %" PRIu32 " bytes (XCR0 standard), 0.ECX %" PRIu32
			" bytes (every user component), 1.EBX %" PRIu32
			" bytes (XCR0|IA32_XSS compacted)\n", xs->size_std_xcr0, xs->size_std_max,
			xs->size_compacted_xss);
	fprintf(f, "save insns  ");
	for (int i = 0; i < FPL_INSN_NR; i++) {
		const char *why;
		int ok = fpl_save_insn_supported(cpu, i, &why);
		/* XSAVES: on the CPU and the kernel's to use, though not measurable here */
		bool there = ok || (i == FPL_INSN_XSAVES && fpl_cpu_has_cpuid(cpu, FPL_FEAT_XSAVES));

		fprintf(f, " %s %s%s%s%s", fpl_save_insn_name(i), there ? "yes" : "no",
			ok ? "" : " (", ok ? "" : why, ok ? "" : ")");
		fputc(i + 1 < FPL_INSN_NR ? ',' : '\n', f);
	}
}

static void print_mask(FILE *f, const struct fpl_xstate *xs, const char *label, uint64_t m,
		       const char *what)
{
	char names[256];

	fprintf(f, "  %-10s 0x%-8" PRIx64 " standard %5" PRIu32 ", compacted %5" PRIu32
		"  %s\n             %s\n", label, m, fpl_xstate_size_std(xs, m),
		fpl_xstate_size_compacted(xs, m), what,
		fpl_xfeature_mask_names(m, names, sizeof(names)));
}

/* The three masks every size comes from, the signal frame they make, and the AMX palette. */
static void print_masks(FILE *f, const struct fpl_cpu *cpu, const struct fpl_xstate *xs)
{
	const struct fpl_amx_palette *p = &xs->amx;
	struct fpl_xstate_masks m;
	uint64_t xfd = fpl_xstate_xfd_mask(xs);
	char what[160];
	const char *why;

	fpl_xstate_masks(xs, &m);
	fprintf(f, "\nMasks (bytes: XSAVE sizes of each mask)\n");
	print_mask(f, xs, "XCR0", m.xcr0, "what the OS enabled");
	snprintf(what, sizeof(what), "what this process may use (%s)", m.permitted_from);
	print_mask(f, xs, "permitted", m.permitted, what);
	snprintf(what, sizeof(what), "permitted minus XFD-armed components not used yet (%s)",
		 m.active_from);
	print_mask(f, xs, "active", m.active, what);
	if (xs->xsave) {
		fprintf(f, "  signal frame  xstate_size %" PRIu32 " bytes (+4 magic2) for this task%s",
			fpl_xstate_size_std(xs, m.active), cpu->live ? "" : " (as the dump's "
			"default)");
		if (xfd)
			fprintf(f, "; %" PRIu32 " once %s permitted and used",
				fpl_xstate_size_std(xs, m.xcr0),
				xfd & FPL_XFEATURE_MASK_XTILE_DATA ? "AMX tile data is" :
				"every XFD component is");
		fputc('\n', f);
	}
	if (m.frame_xstate_size)
		fprintf(f, "  frame seen    xfeatures 0x%" PRIx64 ", xstate_size %" PRIu32
			" (a signal to self)\n", m.frame_xfeatures, m.frame_xstate_size);
	if (xfd & ~m.permitted)
		fprintf(f, "  note          AMX tile data not permitted: \"all\" means 0x%" PRIx64
			" here (--amx asks for it)\n", m.permitted);
	if (fpl_amx_supported(xs, &why))
		fprintf(f, "AMX          palette 1 of %u: %u tiles of %u rows x %u bytes (%u bytes per "
			"tile, %u in all); TMUL K %u, N %u  (CPUID 0x1D/0x1E)\n", p->max_palette,
			p->max_names, p->max_rows, p->bytes_per_row, p->bytes_per_tile,
			p->total_tile_bytes, p->tmul_maxk, p->tmul_maxn);
	else
		fprintf(f, "AMX          %s\n", why);
}

static void print_components(FILE *f, const struct fpl_xstate *xs)
{
	fprintf(f, "\nComponents (CPUID 0xD; bytes; offsets from the image start; compacted = XSAVEC "
		   "layout of XCR0)\n");
	fprintf(f, "  id  name              kind        XCR0  size  offset  compacted  align64  xfd\n");
	for (unsigned i = 0; i < FPL_XFEATURE_MAX; i++) {
		const struct fpl_xcomp *c = &xs->comp[i];
		int64_t std = fpl_xstate_offset_std(xs, i);
		int64_t cmp = fpl_xstate_offset_compacted(xs, xs->xcr0, i);
		char so[24] = "-", co[24] = "-";

		if (!c->enumerated || (!xs->xsave && i > 1))
			continue;
		if (std >= 0)
			snprintf(so, sizeof(so), "%" PRId64, std);
		if (cmp >= 0)
			snprintf(co, sizeof(co), "%" PRId64, cmp);
		fprintf(f, "  %2u  %-16s  %-10s  %-4s  %4" PRIu32 "  %6s  %9s  %-7s  %s\n", i,
			fpl_xfeature_name(i), c->supervisor ? "supervisor" : "user",
			xs->xcr0 >> i & 1 ? "on" : "-", c->size, so, co, c->align64 ? "yes" : "no",
			c->xfd ? "yes" : "no");
	}
}

static void print_kernel(FILE *f, const struct fpl_cpu *cpu, const struct fpl_sysinfo *si)
{
	const char *p = si->arch_status;

	fprintf(f, "\nKernel%s\n", cpu->live ? "" : " (the running one, not the dump's)");
	fprintf(f, "  release              %s\n", si->release);
	if (si->minsigstksz)
		fprintf(f, "  AT_MINSIGSTKSZ       %lu bytes (getauxval)\n", si->minsigstksz);
	else
		fprintf(f, "  AT_MINSIGSTKSZ       not given (getauxval)\n");
	if (si->xcomp_supp_err)
		fprintf(f, "  ARCH_GET_XCOMP_SUPP  error: %s\n", strerror(-si->xcomp_supp_err));
	else
		fprintf(f, "  ARCH_GET_XCOMP_SUPP  0x%" PRIx64 " (arch_prctl)\n", si->xcomp_supp);
	if (si->xcomp_perm_err)
		fprintf(f, "  ARCH_GET_XCOMP_PERM  error: %s\n", strerror(-si->xcomp_perm_err));
	else
		fprintf(f, "  ARCH_GET_XCOMP_PERM  0x%" PRIx64 " (arch_prctl): the components this "
			"process may use; AMX tile\n"
			"                       data only after arch_prctl(ARCH_REQ_XCOMP_PERM, 18), "
			"which forks inherit\n", si->xcomp_perm);
	if (!*p)
		fprintf(f, "  arch_status          absent (/proc/self/arch_status)\n");
	while (*p) {
		size_t n = strcspn(p, "\n"), k = strcspn(p, ":\n");
		const char *v = p + k + (p[k] == ':');

		v += strspn(v, " \t");
		fprintf(f, "  arch_status          %.*s: %.*s\n", (int)k, p, (int)(p + n - v), v);
		p += n + (p[n] == '\n');
	}
}

/* What /dev/kvm offers guests: the module behind it, the guest XCR0 and XSS, XSAVE2's size. */
static void print_kvm(FILE *f)
{
	struct fpl_kvm_host k;
	int err = fpl_kvm_host_read(&k);
	const char *label = fpl_kvm_backend_label(k.backend);
	char names[200];

	fprintf(f, "\nKVM (/dev/kvm, what it offers guests)\n");
	fprintf(f, "  module               %s, from /sys/module (this CPU: %s%s)\n",
		fpl_kvm_backend_name(k.backend), k.vmx ? "VMX" : k.svm ? "SVM" :
		"neither VMX nor SVM", k.nested ? "; this host is itself a guest" : "");
	if (*label)
		fprintf(f, "  guests               %s\n", label);
	if (err && !k.api) {
		fprintf(f, "  usable               no: %s\n", k.why);
		return;
	}
	fprintf(f, "  capabilities         API %d; KVM_CAP_XSAVE %s, KVM_CAP_XCRS %s, "
		"KVM_CAP_XSAVE2 %d bytes\n", k.api, k.cap_xsave ? "yes" : "no",
		k.cap_xcrs ? "yes" : "no", k.xsave2_size);
	if (k.cpuid_read) {
		fprintf(f, "  guest XCR0           0x%" PRIx64 " (%s; KVM_GET_SUPPORTED_CPUID 0xD.0)\n",
			k.supported_xcr0, fpl_xfeature_mask_names(k.supported_xcr0, names,
								   sizeof(names)));
		fprintf(f, "  guest XSS            0x%" PRIx64 " (%s; 0xD.1 ECX:EDX; 0xD.1 EAX 0x%x)\n",
			k.supported_xss, fpl_xfeature_mask_names(k.supported_xss, names,
								  sizeof(names)), k.d1_eax);
	}
	if (!k.guest_supp_err)
		fprintf(f, "  guest fpstate        0x%" PRIx64 " (KVM_X86_XCOMP_GUEST_SUPP: what a "
			"guest may hold, AMX with permission)\n", k.guest_supp);
	if (!k.guest_perm_err)
		fprintf(f, "  guest permission     0x%" PRIx64 " (ARCH_GET_XCOMP_GUEST_PERM; tile data "
			"after ARCH_REQ_XCOMP_GUEST_PERM)\n", k.guest_perm);
	if (err)
		fprintf(f, "  usable               no: %s\n", k.why);
}

static void print_kernel_view(FILE *f, const json_t *view)
{
	const json_t *d = json_object_get(view, "dmesg"), *t = json_object_get(view, "own_task");
	const json_t *x;
	size_t i;

	if (json_is_object(d) && json_object_get(d, "checks"))
		fpl_kview_dmesg_print(d, f);
	else if (json_is_object(d))
		fprintf(f, "Kernel's view (dmesg x86/fpu): %s: %s\n",
			json_string_value(json_object_get(d, "status")),
			json_string_value(json_object_get(d, "reason")));
	if (!json_is_object(t))
		return;
	if (strcmp(json_string_value(json_object_get(t, "status")), "traced")) {
		fprintf(f, "Kernel's xcomp_bv of this task: %s: %s\n",
			json_string_value(json_object_get(t, "status")),
			json_string_value(json_object_get(t, "reason")));
		return;
	}
	json_array_foreach(json_object_get(t, "xcomp_bv"), i, x)
		fprintf(f, "Kernel's xcomp_bv of this task: %s (RFBM %s: %s; tracefs x86_fpu)\n",
			json_string_value(json_object_get(x, "value")),
			json_string_value(json_object_get(x, "rfbm")),
			json_string_value(json_object_get(x, "components")));
	if (!json_array_size(json_object_get(t, "xcomp_bv")))
		fprintf(f, "Kernel's xcomp_bv of this task: no x86_fpu event seen\n");
}

int fpl_table_info(FILE *f, const struct fpl_cpu *cpu, const struct fpl_xstate *xs,
		   const struct fpl_sysinfo *si, const json_t *kview)
{
	uint64_t xinuse = 0;
	bool have_xinuse = fpl_xinuse(cpu, &xinuse);

	print_cpu(f, cpu, si);
	print_xstate(f, cpu, xs, have_xinuse, xinuse);
	print_masks(f, cpu, xs);
	print_components(f, xs);
	print_kernel(f, cpu, si);
	print_kvm(f);
	print_kernel_view(f, kview);
	return ferror(f) ? -EIO : 0;
}

int fpl_json_info(FILE *f, const struct fpl_cpu *cpu, const struct fpl_xstate *xs,
		  const struct fpl_sysinfo *si, bool trace)
{
	json_t *host, *doc, *kview;
	int err = fpl_host_json(cpu, xs, si, &host);

	if (err)
		return err;
	kview = fpl_kview_info_json(cpu, xs, trace);
	if (kview && json_object_set_new(host, "kernel_view", kview)) {
		json_decref(host);
		return -ENOMEM;
	}
	doc = json_pack("{s:o}", "host", host);
	if (!doc)
		return -ENOMEM;
	err = json_dumpf(doc, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) ? -EIO : 0;
	fputc('\n', f);
	json_decref(doc);
	return err;
}
