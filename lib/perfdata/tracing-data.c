// SPDX-License-Identifier: MIT
/*
 * tracing-data.c - perf's tracing data: the tracefs text perf's readers
 * (trace-event-read.c, libtraceevent) need to decode the PERF_SAMPLE_RAW
 * payload of tracepoint samples. Written as perf 6.1's tracing_data_get()
 * and tracing_data_put() (util/trace-event-info.c) write it, version 0.6,
 * host byte order:
 *
 *	"\027\010D" "tracing" "0.6\0"
 *	u8 big endian, u8 sizeof(long), u32 page size
 *	"header_page\0"  u64 size, events/header_page
 *	"header_event\0" u64 size, events/header_event
 *	u32 nr, nr x (u64 size, events/ftrace/<name>/format)
 *	u32 nr systems, per system: "sys\0", u32 nr, nr x (u64 size, format)
 *	u32 size, kallsyms (perf writes 0 bytes since 5.x; so do we)
 *	u32 size, printk_formats
 *	u64 size, saved_cmdlines (0.6)
 *
 * Only the recorded tracepoints' formats are written, systems and
 * events in the tracefs's directory order, as perf walks them (perf
 * keeps an event of a recorded system when its name is any recorded
 * name; here the (system, name) pair must match, which only drops
 * formats no sample uses). In a file it is the HEADER_TRACING_DATA
 * feature section; in a pipe, a PERF_RECORD_HEADER_TRACING_DATA record
 * after the HEADER_FEATURE records (perf_event__synthesize_for_pipe).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pebsshim/perfdata.h"
#include "event/event-internal.h"
#include "perfdata/tracing-data.h"

#define TRACING_VERSION		"0.6"
#define NAME_MAX_TP		256

struct tp {
	char sys[NAME_MAX_TP];
	char name[NAME_MAX_TP];
};

static bool is_dir(const char *dir, const struct dirent *d)
{
	char path[PATH_MAX];
	struct stat st;

	if (d->d_name[0] == '.')
		return false;
	if (d->d_type == DT_DIR)
		return true;
	if (d->d_type != DT_UNKNOWN)
		return false;
	if (snprintf(path, sizeof(path), "%s/%s", dir, d->d_name) >=
	    (int)sizeof(path))
		return false;
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/*
 * perf's record_file: a @size_len-byte size (0: none), then the file's
 * bytes. tracefs files report size 0 to stat: read to the end.
 */
static int put_file(struct bytes *b, const char *path, size_t size_len)
{
	size_t at = b->len, got = 0;
	char buf[8192];
	uint64_t size;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return core_err(-errno, "tracing data: cannot open %s: %s",
				path, strerror(errno));
	size = 0;
	bytes_add(b, &size, size_len);
	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		bytes_add(b, buf, (size_t)n);
		got += (size_t)n;
	}
	if (n < 0) {
		n = -errno;
		close(fd);
		return core_err((int)n, "tracing data: cannot read %s: %s",
				path, strerror((int)-n));
	}
	close(fd);
	if (size_len == 4 && got > UINT32_MAX)
		return core_err(-EFBIG, "tracing data: %s is over 4 GiB", path);
	size = got;
	if (!b->oom && size_len)
		memcpy(b->p + at, &size, size_len);	/* little endian */
	return b->oom ? core_err(-ENOMEM, "tracing data: out of memory") : 0;
}

/* a file's u32/u64 size and bytes, or a zero size when it is absent */
static int put_optional(struct bytes *b, const char *root, const char *name,
			size_t size_len)
{
	char path[PATH_MAX];
	uint64_t zero = 0;

	snprintf(path, sizeof(path), "%s/%s", root, name);
	if (access(path, F_OK)) {
		bytes_add(b, &zero, size_len);
		return 0;
	}
	return put_file(b, path, size_len);
}

static bool read_id(const char *root, const char *sys, const char *name,
		    uint64_t *id)
{
	char path[PATH_MAX], buf[32], *end;

	if (snprintf(path, sizeof(path), "%s/events/%s/%s/id", root, sys,
		     name) >= (int)sizeof(path) ||
	    core_read_small(path, buf, sizeof(buf)) <= 0)
		return false;
	errno = 0;
	*id = strtoull(buf, &end, 10);
	return end != buf && !errno && (!*end || *end == '\n');
}

/* @hint's "sys:name" (a modifier may follow after ':' or '/') */
static bool from_hint(const char *root, uint64_t id, const char *hint,
		      struct tp *tp)
{
	size_t ls, ln;
	uint64_t got;

	if (!hint)
		return false;
	ls = strcspn(hint, ":/");
	if (hint[ls] != ':' || !ls || ls >= sizeof(tp->sys))
		return false;
	ln = strcspn(hint + ls + 1, ":/");
	if (!ln || ln >= sizeof(tp->name))
		return false;
	memcpy(tp->sys, hint, ls);
	tp->sys[ls] = '\0';
	memcpy(tp->name, hint + ls + 1, ln);
	tp->name[ln] = '\0';
	return read_id(root, tp->sys, tp->name, &got) && got == id;
}

/* perf's tracepoint_id_to_path: every events/<sys>/<name>/id */
static bool from_walk(const char *root, uint64_t id, struct tp *tp)
{
	char path[PATH_MAX];
	struct dirent *d, *e;
	bool found = false;
	DIR *top, *sub;
	uint64_t got;

	snprintf(path, sizeof(path), "%s/events", root);
	top = opendir(path);
	if (!top)
		return false;
	while (!found && (d = readdir(top))) {
		if (!is_dir(path, d) || strlen(d->d_name) >= sizeof(tp->sys))
			continue;
		snprintf(tp->sys, sizeof(tp->sys), "%s", d->d_name);
		snprintf(path, sizeof(path), "%s/events/%s", root, tp->sys);
		sub = opendir(path);
		while (sub && !found && (e = readdir(sub)))
			found = is_dir(path, e) &&
				strlen(e->d_name) < sizeof(tp->name) &&
				read_id(root, tp->sys, e->d_name, &got) &&
				got == id &&
				snprintf(tp->name, sizeof(tp->name), "%s",
					 e->d_name) > 0;
		if (sub)
			closedir(sub);
		snprintf(path, sizeof(path), "%s/events", root);
	}
	closedir(top);
	return found;
}

static bool tp_has(const struct tp *tps, unsigned int nr, const char *sys,
		   const char *name)
{
	for (unsigned int i = 0; i < nr; i++)
		if (!strcmp(tps[i].sys, sys) &&
		    (!name || !strcmp(tps[i].name, name)))
			return true;
	return false;
}

/* perf's copy_event_system: u32 nr, then each recorded event's format */
static int put_system(struct bytes *b, const char *root, const char *sys,
		      const struct tp *tps, unsigned int nr)
{
	char dir[PATH_MAX], path[PATH_MAX];
	size_t at = b->len;
	uint32_t count = 0;
	struct dirent *d;
	int err = 0;
	DIR *dp;

	snprintf(dir, sizeof(dir), "%s/events/%s", root, sys);
	bytes_u32(b, 0);
	dp = opendir(dir);
	if (!dp)	/* no ftrace directory: no ftrace formats */
		return 0;
	while (!err && (d = readdir(dp))) {
		if (!is_dir(dir, d) || !tp_has(tps, nr, sys, d->d_name))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s/format", dir,
			     d->d_name) >= (int)sizeof(path) ||
		    access(path, F_OK))
			continue;
		err = put_file(b, path, 8);
		count++;
	}
	closedir(dp);
	if (!err && !b->oom)
		memcpy(b->p + at, &count, sizeof(count));
	return err;
}

static int put_systems(struct bytes *b, const char *root,
		       const struct tp *tps, unsigned int nr)
{
	char dir[PATH_MAX];
	size_t at = b->len;
	uint32_t count = 0;
	struct dirent *d;
	int err = 0;
	DIR *dp;

	snprintf(dir, sizeof(dir), "%s/events", root);
	dp = opendir(dir);
	if (!dp)
		return core_err(-errno, "tracing data: cannot read %s: %s",
				dir, strerror(errno));
	bytes_u32(b, 0);
	while (!err && (d = readdir(dp))) {
		if (!is_dir(dir, d) || !strcmp(d->d_name, "ftrace") ||
		    !tp_has(tps, nr, d->d_name, NULL))
			continue;
		bytes_add(b, d->d_name, strlen(d->d_name) + 1);
		err = put_system(b, root, d->d_name, tps, nr);
		count++;
	}
	closedir(dp);
	if (!err && !b->oom)
		memcpy(b->p + at, &count, sizeof(count));
	return err;
}

int tracing_data_build(struct bytes *b, const char *root,
		       const uint64_t *ids, const char *const *names,
		       unsigned int nr)
{
	static const char magic[10] = "\027\010Dtracing";
	uint8_t endian_long[2] = { __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__,
				   sizeof(long) };
	char path[PATH_MAX];
	struct tp *tps;
	int err = 0;

	if (!root)
		return core_err(-ENOENT, "tracing data: no tracefs (mount "
				"it on /sys/kernel/tracing)");
	tps = calloc(nr ? nr : 1, sizeof(*tps));
	if (!tps)
		return core_err(-ENOMEM, "tracing data: out of memory");
	for (unsigned int i = 0; i < nr && !err; i++)
		if (!from_hint(root, ids[i], names ? names[i] : NULL,
			       &tps[i]) && !from_walk(root, ids[i], &tps[i]))
			err = core_err(-ENOENT, "tracing data: no tracepoint "
				       "has id %" PRIu64 " in %s/events",
				       ids[i], root);
	if (err)
		goto out;
	bytes_add(b, magic, sizeof(magic));
	bytes_add(b, TRACING_VERSION, sizeof(TRACING_VERSION));
	bytes_add(b, endian_long, sizeof(endian_long));
	bytes_u32(b, (uint32_t)sysconf(_SC_PAGESIZE));
	bytes_add(b, "header_page", sizeof("header_page"));
	snprintf(path, sizeof(path), "%s/events/header_page", root);
	err = put_file(b, path, 8);
	if (err)
		goto out;
	bytes_add(b, "header_event", sizeof("header_event"));
	snprintf(path, sizeof(path), "%s/events/header_event", root);
	err = put_file(b, path, 8);
	if (!err)
		err = put_system(b, root, "ftrace", tps, nr);
	if (!err)
		err = put_systems(b, root, tps, nr);
	bytes_u32(b, 0);		/* kallsyms */
	if (!err)
		err = put_optional(b, root, "printk_formats", 4);
	if (!err)
		err = put_optional(b, root, "saved_cmdlines", 8);
	if (!err && b->oom)
		err = core_err(-ENOMEM, "tracing data: out of memory");
out:
	free(tps);
	return err;
}

/* ---- reading ------------------------------------------------------------ */

struct cur {
	const unsigned char *p;
	size_t len, at;
	const char *what;	/* the part being read, for the message */
};

static int cut(const struct cur *c)
{
	return core_err(-EINVAL, "tracing data: cut short or malformed at "
			"byte %zu (%s)", c->at, c->what);
}

static bool get(struct cur *c, void *out, size_t n)
{
	if (c->len - c->at < n)
		return false;
	memcpy(out, c->p + c->at, n);
	c->at += n;
	return true;
}

/* a NUL-terminated string in the input */
static const char *get_str(struct cur *c)
{
	const char *s = (const char *)c->p + c->at;
	const void *nul = memchr(s, '\0', c->len - c->at);

	if (!nul)
		return NULL;
	c->at += (size_t)((const char *)nul - s) + 1;
	return s;
}

/* a @size_len-byte size and that many bytes */
static bool get_blob(struct cur *c, size_t size_len, const char **p,
		     size_t *len)
{
	uint64_t size = 0;

	if (!get(c, &size, size_len) || size > c->len - c->at)
		return false;
	*p = (const char *)c->p + c->at;
	*len = (size_t)size;
	c->at += (size_t)size;
	return true;
}

static int get_formats(struct cur *c, struct pebs_tracing_data *td,
		       const char *sys, pebs_tracing_format_fn fn, void *arg)
{
	uint32_t nr;
	const char *f;
	size_t len;
	int ret;

	if (!get(c, &nr, 4))
		return cut(c);
	for (uint32_t i = 0; i < nr; i++) {
		if (!get_blob(c, 8, &f, &len))
			return cut(c);
		td->nr_formats++;
		if (fn && (ret = fn(arg, sys, f, len)))
			return ret;
	}
	return 0;
}

int tracing_data_parse(const void *buf, size_t len,
		       struct pebs_tracing_data *td,
		       pebs_tracing_format_fn fn, void *arg)
{
	struct cur c = { .p = buf, .len = len, .what = "magic" };
	unsigned char head[12];
	uint32_t nr_sys;
	const char *s;
	int ret;

	memset(td, 0, sizeof(*td));
	if (!get(&c, head, 10) || memcmp(head, "\027\010Dtracing", 10))
		return core_err(-EINVAL, "tracing data: no \\027\\bDtracing "
				"magic: not perf's tracing data");
	c.what = "version";
	s = get_str(&c);
	if (!s || strlen(s) >= sizeof(td->version))
		return cut(&c);
	strcpy(td->version, s);
	if (strcmp(s, "0.5") && strcmp(s, "0.6"))
		return core_err(-EINVAL, "tracing data: version %s, not 0.5 "
				"or 0.6", s);
	c.what = "endianness, long size, page size";
	if (!get(&c, head, 2) || !get(&c, &td->page_size, 4))
		return cut(&c);
	td->big_endian = head[0];
	td->long_size = head[1];
	if (td->big_endian)
		return core_err(-EINVAL, "tracing data: big-endian data is "
				"not read here");
	c.what = "header_page";
	s = get_str(&c);
	if (!s || strcmp(s, "header_page") ||
	    !get_blob(&c, 8, &td->header_page, &td->header_page_len))
		return cut(&c);
	c.what = "header_event";
	s = get_str(&c);
	if (!s || strcmp(s, "header_event") ||
	    !get_blob(&c, 8, &td->header_event, &td->header_event_len))
		return cut(&c);
	c.what = "ftrace formats";
	if ((ret = get_formats(&c, td, "ftrace", fn, arg)))
		return ret;
	c.what = "event systems";
	if (!get(&c, &nr_sys, 4))
		return cut(&c);
	for (uint32_t i = 0; i < nr_sys; i++) {
		c.what = "event system";
		s = get_str(&c);
		if (!s)
			return cut(&c);
		c.what = "event formats";
		if ((ret = get_formats(&c, td, s, fn, arg)))
			return ret;
		td->nr_systems++;
	}
	c.what = "kallsyms";
	if (!get_blob(&c, 4, &td->kallsyms, &td->kallsyms_len))
		return cut(&c);
	c.what = "printk formats";
	if (!get_blob(&c, 4, &td->printk, &td->printk_len))
		return cut(&c);
	c.what = "saved cmdlines";
	if (!strcmp(td->version, "0.6") &&
	    !get_blob(&c, 8, &td->cmdlines, &td->cmdlines_len))
		return cut(&c);
	return 0;
}

/* ---- the writer's part --------------------------------------------------- */

int wr_tracing_data_prepare(struct pebs_perfdata_writer *w)
{
	const char **names;
	uint64_t *ids;
	unsigned int nr = 0;
	int err;

	w->tracing.len = 0;
	for (unsigned int i = 0; i < w->nr_attrs; i++)
		nr += w->attrs[i].attr.type == PERF_TYPE_TRACEPOINT;
	if (!nr)
		return 0;
	ids = calloc(nr, sizeof(*ids));
	names = calloc(nr, sizeof(*names));
	nr = 0;
	for (unsigned int i = 0; ids && names && i < w->nr_attrs; i++) {
		const struct perf_event_attr *a = &w->attrs[i].attr;
		unsigned int j = 0;

		if (a->type != PERF_TYPE_TRACEPOINT)
			continue;
		while (j < nr && ids[j] != a->config)
			j++;
		if (j == nr) {
			ids[nr] = a->config;
			names[nr++] = w->attrs[i].name;
		}
	}
	if (ids && names)
		err = tracing_data_build(&w->tracing, event_tp_root(), ids,
					 names, nr);
	else
		err = core_err(-ENOMEM, "tracing data: out of memory");
	free(ids);
	free(names);
	if (err)
		w->tracing.len = 0;
	return err;
}

void wr_tracing_data_record(const struct pebs_perfdata_writer *w,
			    struct bytes *b)
{
	static const char zero[8];
	size_t aligned = ALIGN8(w->tracing.len);
	struct {
		struct perf_event_header h;
		uint32_t size, pad;
	} rec = {
		.h = { .type = PEBS_PERF_RECORD_HEADER_TRACING_DATA,
		       .size = sizeof(rec) },
		.size = (uint32_t)aligned,
	};

	if (!w->tracing.len)
		return;
	bytes_add(b, &rec, sizeof(rec));
	bytes_add(b, w->tracing.p, w->tracing.len);
	bytes_add(b, zero, aligned - w->tracing.len);
}
