// SPDX-License-Identifier: GPL-3.0-or-later
/* A tracefs instance of fpulab's own: found or privately mounted, x86_fpu events, always removed. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fpulab/ktrace.h"
#include "ktrace_internal.h"

#define BUFFER_TOTAL_KB	(64 * 1024)	/* over all CPUs, at most */
#define BUFFER_CPU_KB	(16 * 1024)	/* per CPU, at most: 16 MiB */
#define BUFFER_MIN_KB	2048

struct fpl_ktrace {
	char root[1024];
	char inst[PATH_MAX];
	char clock[16];
	bool mounted;			/* by us, in our private namespace */
	bool created;
	int marker_fd;
	unsigned seq;
	char stale[256];		/* instances of gone fpulab processes removed at open */
};

pid_t fpl_ktrace_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

int fpl_kt_write_whole(int fd, const void *buf, size_t len)
{
	ssize_t w = len ? write(fd, buf, len) : 0;

	if (w < 0)
		return -errno;
	return (size_t)w == len ? 0 : -EIO;
}

static int write_str(const char *dir, const char *file, const char *s, int flags)
{
	char path[PATH_MAX + 64];
	int fd, err;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC | flags);
	if (fd < 0)
		return -errno;
	err = fpl_kt_write_whole(fd, s, strlen(s));
	close(fd);
	return err;
}

/* The whole of a (pseudo) file: malloc'ed, NUL-terminated. */
static int read_all(const char *dir, const char *file, char **out, size_t *outlen)
{
	char path[PATH_MAX + 64];
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap), *nb;
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (!buf)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	for (;;) {
		ssize_t r;

		if (cap - len < 4096) {
			nb = realloc(buf, cap * 2);
			if (!nb) {
				err = -ENOMEM;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + len, cap - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			break;
		}
		if (!r)
			break;
		len += (size_t)r;
	}
	close(fd);
	if (err) {
		free(buf);
		return err;
	}
	buf[len] = 0;
	*out = buf;
	*outlen = len;
	return 0;
}

static bool is_dir(const char *a, const char *b)
{
	char path[PATH_MAX + 64];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", a, b);
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* The mount point of a tracefs in /proc/mounts (ours: the private namespace's view). */
static bool mounted_tracefs(char *root, size_t len)
{
	FILE *f = fopen("/proc/mounts", "re");
	char dev[256], dir[1024], type[64];
	bool found = false;

	if (!f)
		return false;
	while (!found && fscanf(f, "%255s %1023s %63s %*[^\n]", dev, dir, type) == 3)
		if (!strcmp(type, "tracefs") && is_dir(dir, "instances")) {
			snprintf(root, len, "%s", dir);
			found = true;
		}
	fclose(f);
	return found;
}

/* tracefs mounted for this process only: a private mount namespace, / private below it. */
static int mount_private(struct fpl_ktrace *kt, struct fpl_diag *diag)
{
	static const char *const where[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

	if (geteuid() != 0)
		return fpl_diag_set(diag, -EPERM, "not root: tracefs is not mounted and only root "
				    "can mount it");
	if (unshare(CLONE_NEWNS))
		return fpl_diag_set(diag, -errno, "unshare(CLONE_NEWNS): %s", strerror(errno));
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return fpl_diag_set(diag, -errno, "making / private in the new mount namespace: %s",
				    strerror(errno));
	for (size_t i = 0; i < FPL_ARRAY_SIZE(where); i++) {
		if (mount("nodev", where[i], "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
			continue;
		snprintf(kt->root, sizeof(kt->root), "%s", where[i]);
		kt->mounted = true;
		return 0;
	}
	return fpl_diag_set(diag, -ENODEV, "no tracefs: mount -t tracefs on /sys/kernel/tracing "
			    "failed (%s)", strerror(errno));
}

static int find_root(struct fpl_ktrace *kt, struct fpl_diag *diag)
{
	const char *env = getenv("FPL_TRACEFS");

	if (env && *env) {
		if (!is_dir(env, "instances"))
			return fpl_diag_set(diag, -ENODEV, "no tracefs at %s (FPL_TRACEFS)", env);
		snprintf(kt->root, sizeof(kt->root), "%s", env);
		return 0;
	}
	if (mounted_tracefs(kt->root, sizeof(kt->root)))
		return 0;
	return mount_private(kt, diag);
}

/* x86-tsc where the kernel offers it: timestamps in TSC ticks, comparable across CPUs. */
static void set_clock(struct fpl_ktrace *kt)
{
	char *clocks = NULL, *sel, *e;
	size_t len;

	if (read_all(kt->inst, "trace_clock", &clocks, &len))
		return;
	if (strstr(clocks, "x86-tsc") && !write_str(kt->inst, "trace_clock", "x86-tsc", 0)) {
		free(clocks);
		clocks = NULL;
		if (read_all(kt->inst, "trace_clock", &clocks, &len))
			return;
	}
	sel = strchr(clocks, '[');
	e = sel ? strchr(sel, ']') : NULL;
	if (sel && e)
		snprintf(kt->clock, sizeof(kt->clock), "%.*s", (int)(e - sel - 1), sel + 1);
	free(clocks);
}

static int set_buffer(struct fpl_ktrace *kt)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	long kb = BUFFER_TOTAL_KB / (ncpu > 0 ? ncpu : 1);
	char v[32];

	kb = kb > BUFFER_CPU_KB ? BUFFER_CPU_KB : kb < BUFFER_MIN_KB ? BUFFER_MIN_KB : kb;
	snprintf(v, sizeof(v), "%ld", kb);
	return write_str(kt->inst, "buffer_size_kb", v, 0);
}

/*
 * Make the instance directory, ours alone. One of that name is left by an
 * earlier process with this pid: removed first. One that cannot be removed
 * (busy: a reader holds one of its files; or not ours to remove) is an
 * error, never used: its settings and events are another's, and close would
 * try to remove it.
 */
static int create_instance(const char *inst, struct fpl_diag *diag)
{
	if (!mkdir(inst, 0700))
		return 0;
	if (errno == EEXIST) {
		if (rmdir(inst))
			return fpl_diag_set(diag, errno == EACCES ? -EPERM : -errno,
					    "the tracefs instance %s is already there and cannot "
					    "be removed: %s", inst, strerror(errno));
		if (!mkdir(inst, 0700))
			return 0;
	}
	return fpl_diag_set(diag, errno == EACCES ? -EPERM : -errno,
			    "creating the tracefs instance %s: %s", inst, strerror(errno));
}

static int setup(struct fpl_ktrace *kt, struct fpl_diag *diag)
{
	char path[PATH_MAX + 64];
	int err;

	snprintf(kt->inst, sizeof(kt->inst), "%s/instances/fpulab-%d", kt->root, (int)getpid());
	err = create_instance(kt->inst, diag);
	if (err)
		return err;
	kt->created = true;
	err = write_str(kt->inst, "tracing_on", "0", 0);
	if (err)
		return fpl_diag_set(diag, err, "%s/tracing_on: %s", kt->inst, strerror(-err));
	set_clock(kt);
	err = set_buffer(kt);
	if (err)
		return fpl_diag_set(diag, err, "%s/buffer_size_kb: %s", kt->inst, strerror(-err));
	err = write_str(kt->inst, "events/x86_fpu/enable", "1", 0);
	if (err)
		return fpl_diag_set(diag, err, "enabling the x86_fpu events: %s", strerror(-err));
	snprintf(path, sizeof(path), "%s/trace_marker", kt->inst);
	kt->marker_fd = open(path, O_WRONLY | O_CLOEXEC);
	if (kt->marker_fd < 0)
		return fpl_diag_set(diag, -errno, "%s: %s", path, strerror(errno));
	return 0;
}

/* "fpulab-<pid>" with nothing after the digits: the pid, else 0. */
static pid_t instance_pid(const char *name)
{
	const char *p = name + 7;
	char *end;
	long v;

	if (strncmp(name, "fpulab-", 7) || *p < '1' || *p > '9')
		return 0;
	errno = 0;
	v = strtol(p, &end, 10);
	return *end || errno || v <= 0 || v > INT_MAX ? 0 : (pid_t)v;
}

int fpl_ktrace_remove_stale(const char *root, char *names, size_t len)
{
	char path[PATH_MAX + 16];
	struct dirent *de;
	size_t used = 0;
	int n = 0;
	DIR *d;

	if (len)
		names[0] = 0;
	snprintf(path, sizeof(path), "%s/instances", root);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		pid_t pid = instance_pid(de->d_name);
		char inst[PATH_MAX + 300];

		/* a live process's instance is its own (or another fpulab's): left alone */
		if (!pid || pid == getpid() || !kill(pid, 0) || errno != ESRCH)
			continue;
		snprintf(inst, sizeof(inst), "%s/%s", path, de->d_name);
		if (rmdir(inst))
			continue;
		n++;
		if (used < len)
			used += (size_t)snprintf(names + used, len - used, "%s%s", used ? ", " : "",
						 de->d_name);
	}
	closedir(d);
	return n;
}

const char *fpl_ktrace_stale(const struct fpl_ktrace *kt)
{
	return kt->stale;
}

int fpl_ktrace_open(struct fpl_ktrace **out, struct fpl_diag *diag)
{
	struct fpl_ktrace *kt = calloc(1, sizeof(*kt));
	int err;

	*out = NULL;
	if (!kt)
		return fpl_diag_set(diag, -ENOMEM, "out of memory");
	kt->marker_fd = -1;
	err = find_root(kt, diag);
	if (!err && !is_dir(kt->root, "events/x86_fpu"))
		err = fpl_diag_set(diag, -ENOENT, "no x86_fpu trace events in this kernel "
				   "(%s/events/x86_fpu)", kt->root);
	if (!err)
		fpl_ktrace_remove_stale(kt->root, kt->stale, sizeof(kt->stale));
	if (!err)
		err = setup(kt, diag);
	if (err) {
		fpl_ktrace_close(kt);
		return err;
	}
	*out = kt;
	return 0;
}

void fpl_ktrace_remove_instance(struct fpl_ktrace *kt)
{
	if (!kt || !kt->created)
		return;
	if (kt->marker_fd >= 0) {
		close(kt->marker_fd);
		kt->marker_fd = -1;
	}
	/* rmdir drops the events, the buffer and the settings with the instance. */
	if (!rmdir(kt->inst) || errno == ENOENT)
		kt->created = false;
}

void fpl_ktrace_close(struct fpl_ktrace *kt)
{
	if (!kt)
		return;
	if (kt->created)
		write_str(kt->inst, "tracing_on", "0", 0);
	fpl_ktrace_remove_instance(kt);
	if (kt->mounted)
		umount2(kt->root, MNT_DETACH);
	free(kt);
}

const char *fpl_ktrace_root(const struct fpl_ktrace *kt)
{
	return kt->root;
}

const char *fpl_ktrace_instance(const struct fpl_ktrace *kt)
{
	return kt->inst;
}

const char *fpl_ktrace_clock(const struct fpl_ktrace *kt)
{
	return kt->clock[0] ? kt->clock : "unknown";
}

int fpl_ktrace_kvm(struct fpl_ktrace *kt, bool on, struct fpl_diag *diag)
{
	static const char *const events[] = {
		"kvm_fpu", "kvm_userspace_exit", "kvm_pio", "kvm_cpuid", "kvm_exit", "kvm_entry",
		"kvm_emulate_insn",
	};
	char file[96];
	int err = 0;

	if (!is_dir(kt->inst, "events/kvm/kvm_fpu"))
		return fpl_diag_set(diag, -ENOENT, "no kvm trace events in this kernel (%s/events/"
				    "kvm/kvm_fpu)", kt->inst);
	for (size_t i = 0; i < FPL_ARRAY_SIZE(events); i++) {
		int e;

		snprintf(file, sizeof(file), "events/kvm/%s/enable", events[i]);
		e = write_str(kt->inst, file, on ? "1" : "0", 0);
		/* One this kernel lacks is left out: its count stays 0. */
		if (e && e != -ENOENT && !err)
			err = fpl_diag_set(diag, e, "%s/%s: %s", kt->inst, file, strerror(-e));
	}
	return err;
}

static int marker(struct fpl_ktrace *kt, const char *what, const char *tag)
{
	char m[128];
	int n = snprintf(m, sizeof(m), "fpulab-%s %d.%u %s", what, (int)getpid(), kt->seq, tag);

	if (n < 0 || (size_t)n >= sizeof(m))
		n = (int)sizeof(m) - 1;
	return fpl_kt_write_whole(kt->marker_fd, m, (size_t)n);
}

int fpl_ktrace_begin(struct fpl_ktrace *kt, const char *tag)
{
	int err;

	kt->seq++;
	err = write_str(kt->inst, "trace", "", O_TRUNC);
	if (!err)
		err = write_str(kt->inst, "tracing_on", "1", 0);
	if (!err)
		err = marker(kt, "begin", tag);
	return err;
}

int fpl_ktrace_end(struct fpl_ktrace *kt, const char *tag, const pid_t *tids, size_t ntids,
		   struct fpl_kt_tally *t, struct fpl_diag *diag)
{
	char begin[96], end[96];
	char *text = NULL;
	size_t len = 0;
	int err = marker(kt, "end", tag), err2;

	err2 = write_str(kt->inst, "tracing_on", "0", 0);
	if (err || err2)
		return fpl_diag_set(diag, err ? err : err2, "tracefs marker or tracing_on: %s",
				    strerror(-(err ? err : err2)));
	err = read_all(kt->inst, "trace", &text, &len);
	if (err)
		return fpl_diag_set(diag, err, "reading %s/trace: %s", kt->inst, strerror(-err));
	snprintf(begin, sizeof(begin), "fpulab-begin %d.%u ", (int)getpid(), kt->seq);
	snprintf(end, sizeof(end), "fpulab-end %d.%u ", (int)getpid(), kt->seq);
	err = fpl_kt_tally(text, len, tids, ntids, begin, end, t, diag);
	free(text);
	if (!err && (!t->begin_seen || !t->end_seen))
		err = fpl_diag_set(diag, -EIO, "the trace lost its %s marker (buffer overrun?)",
				   t->begin_seen ? "end" : "begin");
	return err;
}

int fpl_ktrace_probe_self(struct fpl_ktrace *kt, struct fpl_kt_tally *t, struct fpl_diag *diag)
{
	const struct timespec ms = { 0, 1000000 };
	pid_t self = fpl_ktrace_gettid();
	int err = fpl_ktrace_begin(kt, "self");

	if (err)
		return fpl_diag_set(diag, err, "tracefs: %s", strerror(-err));
	for (int i = 0; i < 4; i++)
		nanosleep(&ms, NULL);
	return fpl_ktrace_end(kt, "self", &self, 1, t, diag);
}

int fpl_ktrace_list_instances(const char *root, const char *prefix, char *buf, size_t len)
{
	char path[PATH_MAX + 16];
	struct dirent *de;
	size_t used = 0;
	int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/instances", root);
	d = opendir(path);
	if (!d)
		return -errno;
	if (len)
		buf[0] = 0;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		n++;
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "," : "",
						 de->d_name);
	}
	closedir(d);
	return n;
}
