// SPDX-License-Identifier: GPL-3.0-or-later
/* The kernel's own view for fpulab info: read where it is readable, checked against CPUID. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernelview.h"
#include "fpulab/ktrace.h"

static json_t *status(const char *st, const char *reason)
{
	return json_pack("{s:s, s:s}", "status", st, "reason", reason);
}

static json_t *dmesg_view(const struct fpl_cpu *cpu, const struct fpl_xstate *xs)
{
	struct fpl_diag diag = { "" };
	struct fpl_kt_dmesg d;
	char *text = NULL;
	size_t len = 0;
	json_t *c = NULL;
	int err = fpl_kt_dmesg_read(&text, &len);

	if (err)
		return status("unreadable", err == -EPERM ? "the kernel log needs CAP_SYSLOG "
			      "(dmesg_restrict)" : strerror(-err));
	err = fpl_kt_dmesg_parse(text, len, &d, &diag);
	free(text);
	if (err)
		return status(err == -ENOENT ? "absent" : "malformed", err == -ENOENT ?
			      "no x86/fpu lines in the kernel log (rotated out?)" : diag.msg);
	if (!cpu->live)
		return status("not compared", "CPUID comes from a dump, the log from this kernel");
	if (fpl_kview_dmesg_check(&d, xs, &c))
		return NULL;
	json_object_set_new(c, "status", json_string("read"));
	return c;
}

static json_t *own_task(void)
{
	struct fpl_diag diag = { "" };
	struct fpl_ktrace *kt;
	struct fpl_kt_tally t;
	json_t *o;
	int err = fpl_ktrace_open(&kt, &diag);

	if (err)
		return status("skipped", diag.msg);
	err = fpl_ktrace_probe_self(kt, &t, &diag);
	fpl_ktrace_close(kt);
	if (err)
		return status("failed", diag.msg);
	o = fpl_kt_tally_json(&t, 4, "sleep of 1 ms", fpl_xfeature_mask_names);
	return o;
}

json_t *fpl_kview_info_json(const struct fpl_cpu *cpu, const struct fpl_xstate *xs, bool trace)
{
	json_t *v = json_object();

	if (!v)
		return NULL;
	json_object_set_new(v, "dmesg", dmesg_view(cpu, xs));
	if (trace)
		json_object_set_new(v, "own_task", own_task());
	return v;
}
