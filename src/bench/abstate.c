// SPDX-License-Identifier: GPL-3.0-or-later
/* The one --state / --ab parser of the host-task benchmarks: names, widest, what this CPU lacks. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "abstate.h"
#include "livestate.h"

/* One state name into out->name[i], "widest" as what it is here. */
static int name_state(const struct fpl_xstate *xs, struct fpl_ab_states *out, unsigned i,
		      const char *name, size_t len, struct fpl_diag *diag)
{
	uint64_t m;

	if (len >= sizeof(out->name[i]))
		return fpl_diag_set(diag, -EINVAL, "'%.*s': not a state (too long)", (int)len, name);
	memcpy(out->name[i], name, len);
	out->name[i][len] = 0;
	if (!strcasecmp(out->name[i], "widest"))
		snprintf(out->name[i], sizeof(out->name[i]), "%s",
			 fpl_xstate_widest(fpl_xstate_xcr0(xs), &m));
	return 0;
}

static int parse_ab(const struct fpl_xstate *xs, const char *ab, struct fpl_ab_states *out,
		    struct fpl_diag *diag)
{
	const char *comma = strchr(ab, ',');
	int err;

	if (!comma || strchr(comma + 1, ','))
		return fpl_diag_set(diag, -EINVAL, "'%s': give two states as A,B (join "
				    "components with '+')", ab);
	out->ab = true;
	out->n = 2;
	err = name_state(xs, out, 0, ab, (size_t)(comma - ab), diag);
	if (!err)
		err = name_state(xs, out, 1, comma + 1, strlen(comma + 1), diag);
	if (err)
		return err;
	/* Both names before the CPU is asked: a state absent here must not hide a bad name. */
	for (unsigned i = 0; i < 2; i++) {
		struct fpl_diag d = { "" };
		bool none;
		int e = fpl_live_parse(xs, out->name[i], &none, &out->mask[i], &d);

		if (!e && none)
			return fpl_diag_set(diag, -EINVAL, "'none' cannot be compared; use init");
		if (e && (!err || e == -EINVAL) && err != -EINVAL) {
			err = e;
			snprintf(diag->msg, sizeof(diag->msg), "%s", d.msg);
		}
	}
	out->aa = !err && !strcmp(out->name[0], out->name[1]);
	return err;
}

int fpl_ab_states_parse(const struct fpl_xstate *xs, const char *state, const char *ab,
			struct fpl_ab_states *out, struct fpl_diag *diag)
{
	int err;

	memset(out, 0, sizeof(*out));
	if (ab)
		return fpl_diag_prefix(diag, parse_ab(xs, ab, out, diag), "--ab");
	out->n = 1;
	err = name_state(xs, out, 0, state, strlen(state), diag);
	if (!err)
		err = fpl_live_parse(xs, out->name[0], &out->none, &out->mask[0], diag);
	return fpl_diag_prefix(diag, err, "--state");
}
