// SPDX-License-Identifier: GPL-3.0-or-later
/* fpulab under qemu-user CPU models without AVX-512, AVX or XSAVE: clean skips, never SIGILL, true layouts. */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <jansson.h>

#include "fpulab/cpu.h"
#include "runcmd.h"

/*
 * What qemu-user 7.2 (TCG) presents, found by probing (see the report of
 * this test's commit): XSAVEC is never offered; AVX-512 never (Skylake-Server
 * enumerates the AVX-512 components in CPUID 0xD.0 but leaves them out of
 * XCR0 and clears the CPUID.7 bits); RDTSCP is absent on qemu64 and Westmere;
 * Westmere's maximum basic leaf is 0xB, and CPUID 0xD there returns leaf
 * 0xB's topology data, so 0xD must not be read above the maximum leaf.
 * Instructions of absent features raise SIGILL, as on hardware.
 */
struct model {
	const char *name;
	bool xsave;		/* OSXSAVE: XSAVE usable */
	bool avx;		/* AVX usable (CPUID and XCR0) */
	const char *lacks;	/* for messages */
};

static const struct model models[] = {
	{ "qemu64", false, false, "XSAVE, AVX, AVX-512, RDTSCP" },
	{ "Westmere", false, false, "XSAVE, AVX, AVX-512, RDTSCP; max leaf 0xB" },
	{ "Skylake-Client", true, true, "AVX-512, XSAVEC" },
	{ "Skylake-Server", true, true, "AVX-512 in XCR0 (enumerated in 0xD), XSAVEC" },
};

/*
 * Generous: fpulab starts in well under a second even under TCG, and the
 * slowest command here (run --quick) takes under 2 s; a loaded 2-CPU guest
 * may stretch that several times, and only a hang should fail.
 */
#define LIMIT_S 120.0

static const char *qemu_path(void)
{
	static const char *const dirs[] = { "/usr/bin/", "/usr/local/bin/", "/bin/" };
	static char path[64];

	for (size_t i = 0; i < FPL_ARRAY_SIZE(dirs); i++) {
		snprintf(path, sizeof(path), "%sqemu-x86_64", dirs[i]);
		if (!access(path, X_OK))
			return path;
	}
	return NULL;
}

/* qemu-user cannot run an ASan binary (its shadow mapping hangs the emulator). */
static bool sanitized(void)
{
#if defined(__SANITIZE_ADDRESS__)
	return true;
#else
	const char *b = getenv("FPL_BUILD");

	return b && strstr(b, "asan");
#endif
}

static void need_qemu(void)
{
	if (!qemu_path()) {
		/* .ci/run sets it: there scripts/deps.sh installs qemu-user, a skip would hide its loss */
		if (getenv("FPL_QEMU_REQUIRE"))
			fail_msg("qemu-x86_64 not installed and FPL_QEMU_REQUIRE is set "
				 "(scripts/deps.sh installs qemu-user as root)");
		print_message("qemu-x86_64 not installed (apt-get install qemu-user): skipped\n");
		skip();
	}
	if (sanitized()) {
		print_message("sanitizer build: qemu-user cannot run it; `make test` covers this\n");
		skip();
	}
}

/* The probe below, run under the model: what CPUID and XGETBV say there. */
struct probe {
	uint32_t max_leaf;
	bool xsave, osxsave, avx_cpuid, avx512f_cpuid;
	uint64_t xcr0;
	uint32_t size_xcr0;		/* CPUID 0xD.0 EBX */
	uint64_t user;			/* CPUID 0xD.0 EDX:EAX */
	bool xsaveopt, xsavec;		/* CPUID 0xD.1 EAX */
	uint32_t size[64], offset[64], ecx[64];	/* CPUID 0xD.i for i in user */
	/* the library's view under the same model */
	uint64_t lib_xcr0;
	bool lib_avx, lib_avx2, lib_avx512f, lib_xsave;
};

static int probe_main(void)
{
	struct fpl_cpu *cpu = malloc(sizeof(*cpu));
	uint32_t r[4], max;
	uint64_t xcr0 = 0;

	fpl_cpuid_raw(0, 0, r);
	max = r[0];
	printf("max_leaf %u\n", max);
	fpl_cpuid_raw(1, 0, r);
	printf("xsave %u\nosxsave %u\navx %u\n", r[2] >> 26 & 1, r[2] >> 27 & 1, r[2] >> 28 & 1);
	if (max >= 0xd && (r[2] >> 27 & 1)) {
		uint64_t user;

		xcr0 = fpl_xgetbv(0);
		fpl_cpuid_raw(0xd, 0, r);
		user = (uint64_t)r[3] << 32 | r[0];
		printf("size_xcr0 %u\nuser 0x%" PRIx64 "\n", r[1], user);
		fpl_cpuid_raw(0xd, 1, r);
		printf("xsaveopt %u\nxsavec %u\n", r[0] & 1, r[0] >> 1 & 1);
		for (unsigned i = 2; i < 64; i++) {
			if (!(user >> i & 1))
				continue;
			fpl_cpuid_raw(0xd, i, r);
			printf("comp %u %u %u %u\n", i, r[0], r[1], r[2]);
		}
	}
	printf("xcr0 0x%" PRIx64 "\n", xcr0);
	if (max >= 7) {
		fpl_cpuid_raw(7, 0, r);
		printf("avx512f %u\n", r[1] >> 16 & 1);
	}
	fpl_cpu_read(cpu);
	printf("lib_xcr0 0x%" PRIx64 "\nlib_avx %d\nlib_avx2 %d\nlib_avx512f %d\nlib_xsave %d\n",
	       cpu->xcr0, fpl_cpu_has(cpu, FPL_FEAT_AVX), fpl_cpu_has(cpu, FPL_FEAT_AVX2),
	       fpl_cpu_has(cpu, FPL_FEAT_AVX512F), fpl_cpu_has(cpu, FPL_FEAT_OSXSAVE));
	free(cpu);
	return 0;
}

static void parse_probe(const char *text, struct probe *p)
{
	char *copy = strdup(text), *save = NULL;

	memset(p, 0, sizeof(*p));
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char key[32];
		unsigned long long v, a, b;

		unsigned long long c;

		if (sscanf(line, "comp %llu %llu %llu %llu", &v, &a, &b, &c) == 4 && v < 64) {
			p->size[v] = a;
			p->offset[v] = b;
			p->ecx[v] = c;
			continue;
		}
		if (sscanf(line, "%31s %lli", key, &v) != 2)
			continue;
#define KEY(k, field) if (!strcmp(key, k)) p->field = v
		KEY("max_leaf", max_leaf);
		KEY("size_xcr0", size_xcr0);
		KEY("user", user);
		KEY("xsaveopt", xsaveopt);
		KEY("xsavec", xsavec);
		KEY("xsave", xsave);
		KEY("osxsave", osxsave);
		KEY("avx", avx_cpuid);
		KEY("avx512f", avx512f_cpuid);
		KEY("xcr0", xcr0);
		KEY("lib_xcr0", lib_xcr0);
		KEY("lib_avx", lib_avx);
		KEY("lib_avx2", lib_avx2);
		KEY("lib_avx512f", lib_avx512f);
		KEY("lib_xsave", lib_xsave);
#undef KEY
	}
	free(copy);
}

static char self_path[4096];

/* Run the probe (this very test binary) under the model. */
static void probe_model(const struct model *m, struct probe *p)
{
	const char *argv[] = { qemu_path(), "-cpu", m->name, self_path, "--probe", NULL };
	struct cmd_out o;

	assert_int_equal(cmd_run(argv, LIMIT_S, &o), 0);
	if (cmd_code(&o) != 0)
		fail_msg("probe under %s: exit %d\n%s", m->name, cmd_code(&o), o.err);
	parse_probe(o.out, p);
	cmd_out_free(&o);
}

/* Lines of qemu's own ("TCG doesn't support requested feature") are not fpulab's. */
static char *strip_qemu_warnings(const char *err)
{
	char *s = strdup(err), *w = s;

	for (const char *l = err; *l;) {
		const char *e = strchr(l, '\n');
		size_t n = e ? (size_t)(e - l + 1) : strlen(l);

		if (strncmp(l, "qemu-x86_64: warning:", 21)) {
			memcpy(w, l, n);
			w += n;
		}
		l += n;
	}
	*w = 0;
	return s;
}

/*
 * Run fpulab ARGS under the model. Returns the exit code; fails the test for
 * a death by signal (132 is SIGILL: an instruction the model lacks) or a
 * time-out. 77 must come with a reason on stderr or stdout.
 */
static bool allow_2;	/* decode: 2 is its verdict "XRSTOR would fault" */

static int run_under(const struct model *m, const char *const *args, struct cmd_out *o)
{
	const char *argv[32] = { qemu_path(), "-cpu", m->name, cmd_fpl_bin() };
	size_t n = 4;
	char cmdline[256] = "";
	char *err;
	int code;

	for (size_t i = 0; args[i] && n < FPL_ARRAY_SIZE(argv) - 1; i++) {
		argv[n++] = args[i];
		snprintf(cmdline + strlen(cmdline), sizeof(cmdline) - strlen(cmdline), " %s",
			 args[i]);
	}
	argv[n] = NULL;
	assert_int_equal(cmd_run(argv, LIMIT_S, o), 0);
	code = cmd_code(o);
	err = strip_qemu_warnings(o->err);
	if (o->timed_out)
		fail_msg("%s: fpulab%s: no exit within %.0f s", m->name, cmdline, LIMIT_S);
	if (WIFSIGNALED(o->status))
		fail_msg("%s (lacks %s): fpulab%s: killed by signal %d%s\n%s", m->name, m->lacks,
			 cmdline, WTERMSIG(o->status),
			 WTERMSIG(o->status) == SIGILL ? " (SIGILL: ran an absent instruction)" : "",
			 err);
	if (code != 0 && code != 77 && !(code == 2 && allow_2))
		fail_msg("%s: fpulab%s: exit %d\n%s", m->name, cmdline, code, err);
	if (code == 77 && !*err && !o->nout)
		fail_msg("%s: fpulab%s: exit 77 without a reason", m->name, cmdline);
	print_message("  %-15s fpulab%s: exit %d\n", m->name, cmdline, code);
	free(err);
	return code;
}

static void check_probe(const struct model *m, const struct probe *p)
{
	/* The model is what this test believes it is. */
	assert_int_equal(p->osxsave, m->xsave);
	assert_int_equal(p->avx_cpuid && (p->xcr0 & 6) == 6, m->avx);
	assert_false(p->xcr0 & 0xe0);	/* no model here enables AVX-512 state */
	/* The library reads the same. */
	assert_int_equal(p->lib_xcr0, p->xcr0);
	assert_int_equal(p->lib_xsave, m->xsave);
	assert_int_equal(p->lib_avx, m->avx);
	assert_false(p->lib_avx512f);
	if (m->xsave) {
		/* XCR0 has x87|SSE; the sizes CPUID gives are consistent with the offsets. */
		assert_int_equal(p->xcr0 & 3, 3);
		for (unsigned i = 2; i < 64; i++)
			if (p->xcr0 >> i & 1)
				assert_true(p->offset[i] + p->size[i] <= p->size_xcr0);
	}
}

static void test_probe(void **state)
{
	need_qemu();
	for (size_t i = 0; i < FPL_ARRAY_SIZE(models); i++) {
		struct probe p;

		probe_model(&models[i], &p);
		print_message("  %-15s max leaf 0x%x, xsave %d, xcr0 0x%" PRIx64
			      ", 0xD.0 EBX %u, avx %d, avx512f (CPUID) %d\n", models[i].name,
			      p.max_leaf, p.osxsave, p.xcr0, p.size_xcr0, p.lib_avx,
			      p.avx512f_cpuid);
		check_probe(&models[i], &p);
	}
}

static void test_info(void **state)
{
	static const char *const plain[] = { "info", NULL };

	need_qemu();
	for (size_t i = 0; i < FPL_ARRAY_SIZE(models); i++) {
		struct cmd_out o;

		assert_int_equal(run_under(&models[i], plain, &o), 0);
		assert_true(o.nout > 0);
		cmd_out_free(&o);
	}
}

static uint64_t hex_field(json_t *o, const char *key, bool *ok)
{
	json_t *v = json_object_get(o, key);

	if (json_is_integer(v))
		return (uint64_t)json_integer_value(v);
	if (json_is_string(v))
		return strtoull(json_string_value(v), NULL, 0);
	*ok = false;
	return 0;
}

static json_t *component(json_t *host, unsigned id)
{
	size_t i;
	json_t *c;

	json_array_foreach(json_object_get(host, "components"), i, c)
		if (json_integer_value(json_object_get(c, "id")) == (json_int_t)id)
			return c;
	return NULL;
}

static bool insn_supported(json_t *host, const char *name)
{
	size_t i;
	json_t *c;

	json_array_foreach(json_object_get(host, "save_instructions"), i, c)
		if (!strcmp(json_string_value(json_object_get(c, "name")) ?: "", name))
			return json_is_true(json_object_get(c, "supported"));
	fail_msg("info --json: no save instruction '%s'", name);
	return false;
}

#define EXPECT(cond, ...) do { if (!(cond)) fail_msg(__VA_ARGS__); } while (0)

/* info --json under the model against CPUID under the same model (the probe). */
static void check_info_json(const struct model *m, const struct probe *p, const char *text)
{
	json_error_t e;
	json_t *doc = json_loads(text, 0, &e), *host, *c;
	bool ok = true;
	uint64_t xcr0;
	uint32_t coff = 576;

	EXPECT(doc, "%s: info --json does not parse: %s", m->name, e.text);
	host = json_object_get(doc, "host");
	EXPECT(json_is_object(host), "%s: info --json has no host object", m->name);
	EXPECT(json_is_true(json_object_get(host, "xsave")) == p->osxsave,
	       "%s: info says xsave %s, CPUID says OSXSAVE %d", m->name,
	       json_is_true(json_object_get(host, "xsave")) ? "true" : "false", p->osxsave);
	EXPECT(insn_supported(host, "fxsave"), "%s: FXSAVE not supported?", m->name);
	EXPECT(insn_supported(host, "xsave") == p->osxsave, "%s: xsave support", m->name);
	EXPECT(insn_supported(host, "xsaveopt") == (p->osxsave && p->xsaveopt),
	       "%s: xsaveopt support", m->name);
	EXPECT(insn_supported(host, "xsavec") == (p->osxsave && p->xsavec),
	       "%s: info says XSAVEC %d, CPUID 0xD.1 says %d", m->name,
	       insn_supported(host, "xsavec"), p->xsavec);
	EXPECT(!insn_supported(host, "xsaves"), "%s: XSAVES offered in ring 3", m->name);
	if (!p->osxsave) {
		/* FXSAVE only: the legacy area, x87 and SSE, nothing else claimed. */
		json_t *x = json_object_get(host, "xcr0");

		EXPECT(json_is_null(x) || (json_is_string(x) && strtoull(json_string_value(x),
			NULL, 0) <= 3), "%s: an XCR0 beyond x87|SSE on a CPU without XSAVE",
		       m->name);
		EXPECT(json_is_false(json_object_get(host, "xcr0_known")),
		       "%s: xcr0_known true without XSAVE (0x3 is FXSAVE's implied state)",
		       m->name);
		EXPECT(hex_field(host, "xsave_size_standard", &ok) == 512 && ok,
		       "%s: the FXSAVE area is 512 bytes", m->name);
		for (unsigned i = 2; i < 64; i++) {
			c = component(host, i);
			EXPECT(!c || !json_is_true(json_object_get(c, "enabled")),
			       "%s: component %u enabled without XSAVE", m->name, i);
		}
		json_decref(doc);
		return;
	}
	xcr0 = hex_field(host, "xcr0", &ok);
	EXPECT(ok && xcr0 == p->xcr0, "%s: info XCR0 0x%" PRIx64 ", XGETBV 0x%" PRIx64, m->name,
	       xcr0, p->xcr0);
	EXPECT(hex_field(host, "xsave_size_standard", &ok) == p->size_xcr0,
	       "%s: standard size %" PRIu64 ", CPUID 0xD.0 EBX %u", m->name,
	       hex_field(host, "xsave_size_standard", &ok), p->size_xcr0);
	for (unsigned i = 2; i < 64; i++) {
		bool enabled = xcr0 >> i & 1;

		if (!(p->user >> i & 1))
			continue;
		c = component(host, i);
		EXPECT(c, "%s: component %u (CPUID enumerates it) missing from info", m->name, i);
		EXPECT(json_is_true(json_object_get(c, "enabled")) == enabled,
		       "%s: component %u enabled %d, XCR0 says %d", m->name, i,
		       json_is_true(json_object_get(c, "enabled")), enabled);
		EXPECT(hex_field(c, "size", &ok) == p->size[i] &&
		       hex_field(c, "offset", &ok) == p->offset[i],
		       "%s: component %u size %" PRIu64 " offset %" PRIu64 ", CPUID %u %u", m->name,
		       i, hex_field(c, "size", &ok), hex_field(c, "offset", &ok), p->size[i],
		       p->offset[i]);
		if (!enabled)
			continue;
		/* Compacted: XCR0's components in order from 576, aligned where ECX[1] says. */
		if (p->ecx[i] & 2)
			coff = (coff + 63) & ~63u;
		EXPECT(hex_field(c, "compacted_offset", &ok) == coff,
		       "%s: component %u compacted offset %" PRIu64 ", expected %u", m->name, i,
		       hex_field(c, "compacted_offset", &ok), coff);
		coff += p->size[i];
	}
	EXPECT(hex_field(host, "xsave_size_compacted", &ok) == coff,
	       "%s: compacted size %" PRIu64 ", expected %u", m->name,
	       hex_field(host, "xsave_size_compacted", &ok), coff);
	json_decref(doc);
}

static void test_info_json(void **state)
{
	static const char *const args[] = { "info", "--json", NULL };

	need_qemu();
	for (size_t i = 0; i < FPL_ARRAY_SIZE(models); i++) {
		struct cmd_out o;
		struct probe p;

		probe_model(&models[i], &p);
		assert_int_equal(run_under(&models[i], args, &o), 0);
		check_info_json(&models[i], &p, o.out);
		cmd_out_free(&o);
	}
}

/* A dump taken under the model describes the same CPU when read back natively. */
static void test_dump_roundtrip(void **state)
{
	char dir[] = "/tmp/fpl-cpumodels-XXXXXX", path[64];

	need_qemu();
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/dump", dir);
	for (size_t i = 0; i < FPL_ARRAY_SIZE(models); i++) {
		const char *dump[] = { "info", "--dump-cpuid", "-o", path, NULL };
		const char *native[] = { cmd_fpl_bin(), "info", "--cpuid", path, "--json", NULL };
		struct cmd_out o;
		struct probe p;

		probe_model(&models[i], &p);
		assert_int_equal(run_under(&models[i], dump, &o), 0);
		cmd_out_free(&o);
		assert_int_equal(cmd_run(native, LIMIT_S, &o), 0);
		if (cmd_code(&o))
			fail_msg("%s: info --cpuid of its dump: exit %d\n%s", models[i].name,
				 cmd_code(&o), o.err);
		check_info_json(&models[i], &p, o.out);
		cmd_out_free(&o);
		unlink(path);
	}
	rmdir(dir);
}

/* Commands that run benchmarks: `run` and every command whose --help lists the common options. */
static size_t bench_commands(char names[][32], size_t max)
{
	static struct fplrun_cmds all;
	size_t n = 0;

	assert_int_equal(fplrun_commands(&all, true), 0);
	for (size_t i = 0; i < all.n && n < max; i++) {
		const char *h[] = { cmd_fpl_bin(), all.name[i], "--help", NULL };
		struct cmd_out ho;

		assert_int_equal(cmd_run(h, LIMIT_S, &ho), 0);
		if (!strcmp(all.name[i], "run") || strstr(ho.out, "Common options:"))
			snprintf(names[n++], 32, "%s", all.name[i]);
		cmd_out_free(&ho);
	}
	return n;
}

/* Every skipped run says why; the host is the model's. */
static void check_results(const struct model *m, const struct probe *p, const char *cmd,
			  const char *text, unsigned *skipped, unsigned *measured)
{
	json_error_t e;
	json_t *doc = json_loads(text, 0, &e), *run, *host;
	bool ok = true;
	size_t i;

	EXPECT(doc, "%s: fpulab %s --json: output does not parse: %s", m->name, cmd, e.text);
	host = json_object_get(doc, "host");
	if (json_object_get(host, "xcr0") && p->osxsave)
		EXPECT(hex_field(host, "xcr0", &ok) == p->xcr0,
		       "%s: fpulab %s: host XCR0 is not XGETBV's 0x%" PRIx64, m->name, cmd, p->xcr0);
	json_array_foreach(json_object_get(doc, "runs"), i, run) {
		json_t *why = json_object_get(run, "skip_reason");

		if (json_is_true(json_object_get(run, "skipped"))) {
			EXPECT(json_is_string(why) && json_string_length(why) > 0,
			       "%s: fpulab %s: runs[%zu] skipped without a reason", m->name, cmd, i);
			(*skipped)++;
		} else {
			(*measured)++;
		}
	}
	json_decref(doc);
}

/*
 * Options that keep a command short where --budget alone does not (xor's
 * size sweep goes to 64 MiB whatever the budget: minutes under emulation).
 */
static void extra_args(const char *cmd, const char **tail)
{
	static const char *const extra[][6] = {
		{ "xor", "--sizes", "4k", "--arities", "2" },
	};

	for (size_t i = 0; i < FPL_ARRAY_SIZE(extra); i++)
		if (!strcmp(extra[i][0], cmd))
			for (size_t k = 1; k < 6 && extra[i][k]; k++)
				*tail++ = extra[i][k];
	*tail = NULL;
}

/* Each benchmark command and the quick suite, tiny budget: 0 or 77, skips with reasons. */
static void test_benchmarks(void **state)
{
	char names[32][32];
	size_t n;

	need_qemu();
	n = bench_commands(names, FPL_ARRAY_SIZE(names));
	if (!n) {
		print_message("  no benchmark commands in this build yet\n");
		skip();
	}
	for (size_t i = 0; i < FPL_ARRAY_SIZE(models); i++) {
		struct probe p;

		probe_model(&models[i], &p);
		for (size_t k = 0; k < n; k++) {
			const char *args[12] = { names[k], "--quick", "-q", "--budget", "0.02", "--json" };
			unsigned skipped = 0, measured = 0;
			struct cmd_out o;

			extra_args(names[k], args + 6);
			/*
			 * Nothing asked for measurable here (section's xsavec without
			 * XSAVEC): 77 with the reason before anything is measured, no
			 * document; otherwise every skipped run says why.
			 */
			if (run_under(&models[i], args, &o) == 77 && !o.nout) {
				if (!strstr(o.err, "skipped: "))
					fail_msg("%s: fpulab %s: 77 and no document without "
						 "'skipped: REASON' on stderr:\n%s", models[i].name,
						 names[k], o.err);
				skipped++;
			} else {
				check_results(&models[i], &p, names[k], o.out, &skipped,
					      &measured);
			}
			print_message("  %-15s   %u runs measured, %u skipped with a reason\n",
				      models[i].name, measured, skipped);
			cmd_out_free(&o);
		}
	}
}

/*
 * Skylake-Client (AVX2, no AVX-512, no XSAVEC): a state, mask or template
 * named that the CPU lacks is 77 with the reason and nothing measured (no
 * clock line on stderr, no figure); "widest" is AVX, said once.
 */
static void test_absent_and_widest(void **state)
{
	static const char *const absent[][10] = {
		{ "xor", "--impl", "avx512", "--quick", NULL },
		{ "xsave", "--part", "matrix", "--mask", "avx512", "--quick", NULL },
		{ "ctxsw", "--state", "avx512", "--quick", NULL },
		{ "ctxsw", "--ab", "init,avx512", "--quick", NULL },
		{ "signal", "--state", "avx512", "--quick", NULL },
		{ "section", "--owner", "avx512", "--insn", "xsaveopt", "--quick", NULL },
		{ "run", "signal", "--state", "avx512", NULL },
	};
	static const char *const widest[] = { "signal", "--state", "widest", "--quick", "--budget",
					      "0.02", NULL };
	static const char *const bad[] = { "ctxsw", "--ab", "avx512,nosuch", NULL };
	const struct model *m = &models[2];
	struct cmd_out o;
	const char *p;
	int n = 0;

	need_qemu();
	assert_string_equal(m->name, "Skylake-Client");
	for (size_t i = 0; i < FPL_ARRAY_SIZE(absent); i++) {
		int code = run_under(m, absent[i], &o);

		/* the skip and its reason in the output, no clock calibrated, nothing measured */
		if (code != 77 || (!strstr(o.out, "skipped") && !strstr(o.err, "skipped: ")) ||
		    strstr(o.err, "pinned to CPU") || strstr(o.out, "MB/s") ||
		    strstr(o.out, "cycles"))
			fail_msg("%s: fpulab %s %s %s: exit %d, %zu bytes on stdout, stderr:\n%s",
				 m->name, absent[i][0], absent[i][1], absent[i][2], code, o.nout,
				 o.err);
		cmd_out_free(&o);
	}
	assert_int_equal(run_under(m, widest, &o), 0);
	for (p = o.err; (p = strstr(p, "state 'widest' here: avx (0x4): no AVX-512 in XCR0 0x7"));
	     p++)
		n++;
	if (n != 1 || !strstr(o.out, "signal state=avx "))
		fail_msg("%s: signal --state widest: %d notices; stdout:\n%s\nstderr:\n%s", m->name,
			 n, o.out, o.err);
	cmd_out_free(&o);
	allow_2 = true;
	assert_int_equal(run_under(m, bad, &o), 2);	/* bad input first, on every CPU */
	allow_2 = false;
	assert_non_null(strstr(o.err, "nosuch"));
	cmd_out_free(&o);
}

/* The xsave matrix here: its skipped cells, one line per reason (no reason twice). */
static void test_xsave_skips_once(void **state)
{
	static const char *const args[] = { "xsave", "--part", "matrix", "--quick", "--budget",
					    "0.02", "-q", NULL };
	const struct model *m = &models[2];
	struct cmd_out o;
	char *copy, *save = NULL;
	size_t nreasons = 0;
	char reasons[64][256];

	need_qemu();
	assert_int_equal(run_under(m, args, &o), 0);
	copy = strdup(o.out);
	/* a wrapped line goes on indented by four: join them, then split */
	for (char *w = copy; (w = strstr(w, "\n    "));)
		memmove(w, w + 4, strlen(w + 4) + 1), *w = ' ';
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *why = strstr(line, "skipped");

		if (!why || nreasons == FPL_ARRAY_SIZE(reasons))
			continue;
		why = strstr(why, ": ") ? strstr(why, ": ") + 2 : why;
		for (size_t k = 0; k < nreasons; k++)
			if (!strcmp(reasons[k], why))
				fail_msg("%s: xsave: the reason '%s' twice:\n%s", m->name, why, o.out);
		snprintf(reasons[nreasons++], sizeof(reasons[0]), "%s", why);
	}
	print_message("  %s: %zu skip reasons, each once\n", m->name, nreasons);
	assert_true(nreasons >= 2);	/* AVX-512 masks, XSAVEC */
	free(copy);
	cmd_out_free(&o);
}

/* decode judges an image against the CPU it runs on: no XSAVE is a verdict, not a crash. */
static void test_decode(void **state)
{
	char dir[] = "/tmp/fpl-cpumodels-XXXXXX", path[64];
	uint8_t img[576] = { 0x7f, 0x03 };
	const uint32_t mxcsr = 0x1f80;
	const uint64_t xstate_bv = 3;
	FILE *f;

	need_qemu();
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/img", dir);
	memcpy(img + 24, &mxcsr, 4);
	memcpy(img + 512, &xstate_bv, 8);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(img, 1, sizeof(img), f), sizeof(img));
	fclose(f);
	allow_2 = true;
	for (size_t i = 0; i < FPL_ARRAY_SIZE(models); i++) {
		const char *args[] = { "decode", "--json", path, NULL };
		struct cmd_out o;
		int code = run_under(&models[i], args, &o);

		/* x87|SSE in their init values: XRSTOR takes it wherever XSAVE exists */
		if (code != (models[i].xsave ? 0 : 2))
			fail_msg("%s: decode of a valid x87|SSE image: exit %d\n%s", models[i].name,
				 code, o.err);
		cmd_out_free(&o);
	}
	allow_2 = false;
	unlink(path);
	rmdir(dir);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe),
		cmocka_unit_test(test_info),
		cmocka_unit_test(test_info_json),
		cmocka_unit_test(test_dump_roundtrip),
		cmocka_unit_test(test_decode),
		cmocka_unit_test(test_benchmarks),
		cmocka_unit_test(test_absent_and_widest),
		cmocka_unit_test(test_xsave_skips_once),
	};
	ssize_t n;

	if (argc > 1 && !strcmp(argv[1], "--probe"))
		return probe_main();
	n = readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);
	if (n > 0)
		self_path[n] = 0;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
