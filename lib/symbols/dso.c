// SPDX-License-Identifier: MIT
/*
 * dso.c - the symbols of one file (a dso, as perf says): loaded once with
 * libelf (.symtab, else the .symtab of its separate debug file, else
 * .dynsym; PT_LOAD segments to turn a file offset into a link-time
 * address), functions sorted by address and found by binary search;
 * when the file on disk is not the build that was recorded, a copy with
 * the recorded build id (found by lib/symbols/dso-find.c). C++ and Rust
 * names are demangled with libiberty's cplus_demangle, without options,
 * as perf 6.1 shows them. JIT code takes its names from perf's
 * /tmp/perf-PID.map files. The kernel's symbols come from /proc/kallsyms.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pebsshim/symbols.h"
#include "symbols/dso.h"
#include "core/internal.h"

#undef ARRAY_SIZE	/* libiberty's ansidecl.h has its own */
#include <libiberty/demangle.h>

struct retired {
	struct retired *next;
	char *names;
};

void dso_retire(struct dso *d, char *names)
{
	struct retired *r;

	if (!names)
		return;
	r = malloc(sizeof(*r));
	if (!r)
		return;		/* kept for good: its names may be in use */
	r->names = names;
	r->next = d->retired;
	d->retired = r;
}

void dso_free(struct dso *d)
{
	while (d->retired) {
		struct retired *r = d->retired;

		d->retired = r->next;
		free(r->names);
		free(r);
	}
	free(d->pnames);
	free(d->dsyms);
	free(d->dnames);
	free(d->path);
	free(d->syms);
	free(d->names);
	free(d->segs);
}

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
	size_t xl, yl;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/*
	 * At one address, as perf's choose_best_symbol: a sized symbol,
	 * global before local before weak, fewer leading '_', the longer
	 * name.
	 */
	if ((x->size != 0) != (y->size != 0))
		return (y->size != 0) - (x->size != 0);
	if (x->rank != y->rank)
		return x->rank - y->rank;
	xl = strlen(x->name);
	yl = strlen(y->name);
	if (xl != yl)
		return xl > yl ? -1 : 1;
	/* perf keeps the first inserted: the symbol table's order */
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Sort and drop duplicates (aliases at the same address keep one). */
void dso_syms_sort(struct sym *s, size_t *nr)
{
	size_t i, j = 0;

	/* often sorted already (kallsyms, most symbol tables in part) */
	for (i = 1; i < *nr && sym_cmp(&s[i - 1], &s[i]) < 0; i++)
		;
	if (i < *nr)
		qsort(s, *nr, sizeof(*s), sym_cmp);
	for (i = 0; i < *nr; i++) {
		if (j && s[j - 1].start == s[i].start)
			continue;
		s[j++] = s[i];
	}
	*nr = j;
}

/* Whether section @ndx is code as perf's elf_sec__is_text says: "text"
   in its name. */
static bool in_text(Elf *elf, size_t ndx)
{
	Elf_Scn *scn = elf_getscn(elf, ndx);
	const char *name;
	size_t shstrndx;
	GElf_Shdr sh;

	return scn && gelf_getshdr(scn, &sh) &&
	       !elf_getshdrstrndx(elf, &shstrndx) &&
	       (name = elf_strptr(elf, shstrndx, sh.sh_name)) &&
	       strstr(name, "text");
}

/*
 * Read the function symbols (or, with @objects, the data objects) of one
 * symbol table section.
 */
static int elf_read_syms(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh,
			 struct dso *d, bool objects)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n, i, names_len = 0, nr = 0;
	char *names, **owned;
	struct sym *s;

	if (!data || !sh->sh_entsize)
		return 0;
	n = sh->sh_size / sh->sh_entsize;
	s = calloc(n ? n : 1, sizeof(*s));
	owned = calloc(n ? n : 1, sizeof(*owned));	/* demangled names */
	if (!s || !owned) {
		free(s);
		free(owned);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		GElf_Sym es;
		const char *name;
		int type;

		if (!gelf_getsym(data, (int)i, &es))
			continue;
		type = GELF_ST_TYPE(es.st_info);
		if (es.st_shndx == SHN_UNDEF || es.st_shndx == SHN_ABS ||
		    !es.st_value)
			continue;
		/* perf's elf_sym__is_label: sizeless NOTYPE code labels
		   (ld.so's _start) count as functions in text sections */
		if (objects ? type != STT_OBJECT :
		    type != STT_FUNC && type != STT_GNU_IFUNC &&
		    !(type == STT_NOTYPE && !es.st_size &&
		      in_text(elf, es.st_shndx)))
			continue;
		name = elf_strptr(elf, sh->sh_link, es.st_name);
		if (!name || !*name)
			continue;
		s[nr].start = es.st_value;
		s[nr].size = es.st_size;
		s[nr].name = name;
		s[nr].order = (uint32_t)i;
		/* global before local before weak (as perf); fewer leading _ */
		s[nr].rank = (GELF_ST_BIND(es.st_info) == STB_GLOBAL ? 0 :
			      GELF_ST_BIND(es.st_info) == STB_WEAK ? 2 : 1) * 16 +
			     (int)strspn(name, "_");
		/*
		 * C++ (_Z), Rust (_ZN...h<hash>E, _R) and _GLOBAL_ names as
		 * perf 6.1 shows them by default: libiberty with no options
		 * (no parameters; perf -v adds them)
		 */
		if (name[0] == '_') {
			owned[nr] = cplus_demangle(name, DMGL_NO_OPTS);
			if (owned[nr])
				s[nr].name = owned[nr];
		}
		names_len += strlen(s[nr].name) + 1;
		nr++;
	}
	/* copy the names out: the Elf handle is closed after loading */
	names = malloc(names_len ? names_len : 1);
	for (i = 0, names_len = 0; names && i < nr; i++) {
		size_t l = strlen(s[i].name) + 1;

		memcpy(names + names_len, s[i].name, l);
		s[i].name = names + names_len;
		names_len += l;
	}
	for (i = 0; i < nr; i++)
		free(owned[i]);
	free(owned);
	if (!names) {
		free(s);
		return -ENOMEM;
	}
	dso_syms_sort(s, &nr);
	if (objects) {
		d->dsyms = s;
		d->nr_dsyms = nr;
		d->dnames = names;
	} else {
		d->syms = s;
		d->nr_syms = nr;
		d->names = names;
	}
	return 0;
}

static int elf_read_segs(Elf *elf, struct dso *d)
{
	size_t n, i;

	if (elf_getphdrnum(elf, &n) || !n)
		return 0;
	d->segs = calloc(n, sizeof(*d->segs));
	if (!d->segs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		d->segs[d->nr_segs].offset = ph.p_offset;
		d->segs[d->nr_segs].filesz = ph.p_filesz;
		d->segs[d->nr_segs].vaddr = ph.p_vaddr;
		d->nr_segs++;
	}
	return 0;
}

/*
 * Load a file's symbols once. Unreadable, non-ELF or mismatching files
 * end up with no symbols (not an error for the caller: the address
 * still resolves to the file).
 */
/* The section of type @type, or NULL. */
static Elf_Scn *find_symtab(Elf *elf, unsigned int type, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, sh) && sh->sh_type == type &&
		    sh->sh_size)
			return scn;
	return NULL;
}

/* The .symtab of the ELF file @path (with build id @bid if @len): its
   code symbols, and its data objects too (perf's one table holds both:
   a stripped file's debug file names its static data as perf does) */
static int read_symtab_of(struct dso *d, const char *path, const uint8_t *bid,
			  size_t len)
{
	uint8_t got[BUILD_ID_MAX];
	size_t got_len;
	Elf_Scn *scn;
	GElf_Shdr sh;
	int fd, err = 0;
	Elf *elf;

	if (!dso_elf_open(path, bid, len, &elf, &fd, got, &got_len))
		return 0;
	scn = find_symtab(elf, SHT_SYMTAB, &sh);
	if (scn)
		err = elf_read_syms(elf, scn, &sh, d, false);
	if (!err && scn && d->nr_syms && !d->dsyms)
		err = elf_read_syms(elf, scn, &sh, d, true);
	elf_end(elf);
	close(fd);
	return err;
}

/*
 * The .symtab of a separate debug file, for stripped files, where perf
 * 6.1 looks (dso_debug_candidate). A debug file must carry the build
 * id.
 */
static int read_debug_syms(struct dso *d, Elf *elf, const uint8_t *bid,
			   size_t len)
{
	char path[PATH_MAX], in[PATH_MAX];
	const char *f = d->is_file ? dso_file(d, d->path, in, sizeof(in)) :
			"";
	unsigned int i;
	int err = 0;

	/* under a symfs, as perf: the file's own directory there (so its
	   "/usr/lib/debug" + directory candidate holds the symfs too) */
	for (i = 0; !err && !d->nr_syms && f &&
		    dso_debug_candidate(f, d->symfs, elf, bid, len, i, path,
					sizeof(path)); i++)
		if (path[0])
			err = read_symtab_of(d, path, bid, len);
	return err;
}

static void drop_syms(struct dso *d)
{
	free(d->syms);
	free(d->names);
	d->syms = NULL;
	d->names = NULL;
	d->nr_syms = 0;
}

/*
 * "name@plt" symbols for the PLT entries of an x86-64 file, as perf
 * 6.1's dso__synthesize_plt_symbols: the n-th .rela.plt relocation is
 * the n-th entry (sh_entsize bytes) of .plt after its header entry, the
 * name demangled. perf 6.1 knows no .plt.sec (IBT): calls through it
 * show as addresses there, here too. And perf 6.1 gives the first byte
 * of the first entry to a sizeless symbol just before it (_init,
 * extended to there): measured `_init+0x30` for every sample on the
 * first entry of three programs, never its name.
 */
static int add_plt_syms(Elf *elf, struct dso *d)
{
	GElf_Shdr rsh, psh, ssh;
	Elf_Scn *rscn, *pscn, *sscn;
	Elf_Data *rdata, *sdata;
	size_t n, i, len = 0, nr = d->nr_syms;
	uint64_t addr, ent, first;
	GElf_Ehdr eh;
	struct sym *s;
	char *names;

	if (!gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64)
		return 0;
	rscn = dso_elf_section(elf, ".rela.plt", &rsh);
	pscn = dso_elf_section(elf, ".plt", &psh);
	sscn = rscn ? elf_getscn(elf, rsh.sh_link) : NULL;
	if (!pscn || !sscn || !gelf_getshdr(sscn, &ssh) ||
	    rsh.sh_type != SHT_RELA || !rsh.sh_entsize || !psh.sh_entsize ||
	    psh.sh_type == SHT_NOBITS)
		return 0;
	ent = psh.sh_entsize;
	addr = psh.sh_addr + ent;
	rdata = elf_getdata(rscn, NULL);
	sdata = elf_getdata(sscn, NULL);
	if (!rdata || !sdata)
		return 0;
	n = rsh.sh_size / rsh.sh_entsize;
	if (n > psh.sh_size / ent)
		n = psh.sh_size / ent;
	for (i = 0; i < n; i++) {
		GElf_Rela rela;
		GElf_Sym es;
		const char *name;
		char *dm;

		if (gelf_getrela(rdata, (int)i, &rela) &&
		    gelf_getsym(sdata, (int)GELF_R_SYM(rela.r_info), &es) &&
		    (name = elf_strptr(elf, ssh.sh_link, es.st_name))) {
			dm = name[0] == '_' ? cplus_demangle(name, DMGL_NO_OPTS) :
			     NULL;
			len += strlen(dm ? dm : name) + sizeof("@plt");
			free(dm);
		}
	}
	if (!len)
		return 0;
	s = realloc(d->syms, (nr + n) * sizeof(*s));
	if (!s)
		return -ENOMEM;
	d->syms = s;
	names = malloc(len);
	if (!names)
		return -ENOMEM;
	for (i = 0, len = 0; i < n; i++, addr += ent) {
		GElf_Rela rela;
		GElf_Sym es;
		const char *name;
		char *dm;

		if (!gelf_getrela(rdata, (int)i, &rela) ||
		    !gelf_getsym(sdata, (int)GELF_R_SYM(rela.r_info), &es) ||
		    !(name = elf_strptr(elf, ssh.sh_link, es.st_name)))
			continue;
		dm = name[0] == '_' ? cplus_demangle(name, DMGL_NO_OPTS) : NULL;
		s[nr].start = addr;
		s[nr].size = ent;
		s[nr].rank = 64;	/* after any real symbol there */
		s[nr].order = (uint32_t)i;
		s[nr].name = names + len;
		len += (size_t)sprintf(names + len, "%s@plt", dm ? dm : name) + 1;
		free(dm);
		nr++;
	}
	free(d->pnames);
	d->pnames = names;
	dso_syms_sort(s, &nr);
	d->nr_syms = nr;
	first = psh.sh_addr + ent;
	for (i = 1; i < nr; i++)
		if (s[i].start == first && s[i].rank == 64 && !s[i - 1].size)
			s[i].order |= SYM_PREV_FIRST;
	return 0;
}

bool dso_anon_name(const char *filename)
{
	return !strcmp(filename, "//anon") ||
	       !strncmp(filename, "/dev/zero", 9) ||
	       !strncmp(filename, "/anon_hugepage", 14) ||
	       !strncmp(filename, "[stack", 6) ||
	       !strncmp(filename, "/SYSV", 5) || !strcmp(filename, "[heap]");
}

bool dso_jit_name(const char *filename, int pid, char *buf,
		  size_t len)
{
	if (!dso_anon_name(filename))
		return false;
	return (size_t)snprintf(buf, len, "[JIT] tid %d", pid) < len;
}

bool dso_jit_map(const char *name, char *path, size_t len)
{
	int pid;

	return sscanf(name, "[JIT] tid %d", &pid) == 1 &&
	       (size_t)snprintf(path, len, "/tmp/perf-%d.map", pid) < len;
}

/*
 * The symbols of @path, a /tmp/perf-PID.map (perf's
 * dso__load_perf_map): lines "START SIZE NAME", hexadecimal, addresses
 * as executed; names as written (not demangled). A symbol of size 0
 * covers its start only.
 */
static int load_perf_map(struct dso *d, const char *path)
{
	size_t cap = 0, nr = 0, names_len = 0, lcap = 0, i;
	char *line = NULL, *names;
	struct sym *s = NULL;
	ssize_t got;
	FILE *f;

	f = core_fopen_file(path);
	if (!f)
		return 0;	/* no map file: addresses only */
	while ((got = getline(&line, &lcap, f)) > 0) {
		unsigned long long start, size;
		int at = 0;

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%llx %llx %n", &start, &size, &at) < 2 ||
		    !at || !line[at])
			continue;
		if (core_grow(&s, &cap, nr + 1, sizeof(*s)))
			goto oom;
		s[nr].start = start;
		s[nr].size = size ? size : 1;
		s[nr].rank = 0;
		s[nr].order = (uint32_t)nr;
		s[nr].name = strdup(line + at);
		if (!s[nr].name)
			goto oom;
		names_len += strlen(s[nr].name) + 1;
		nr++;
	}
	fclose(f);
	f = NULL;
	free(line);
	line = NULL;
	names = malloc(names_len ? names_len : 1);
	if (!names)
		goto oom;
	for (i = 0, names_len = 0; i < nr; i++) {
		size_t l = strlen(s[i].name) + 1;

		memcpy(names + names_len, s[i].name, l);
		free((char *)s[i].name);
		s[i].name = names + names_len;
		names_len += l;
	}
	dso_syms_sort(s, &nr);
	d->syms = s;
	d->nr_syms = nr;
	d->names = names;
	return 0;
oom:
	for (i = 0; i < nr; i++)
		free((char *)s[i].name);
	free(s);
	free(line);
	if (f)
		fclose(f);
	return -ENOMEM;
}

int dso_load(struct dso *d)
{
	uint8_t bid[BUILD_ID_MAX];
	size_t bid_len = 0;
	char map[64], in[PATH_MAX];
	const char *f;
	int fd, err;
	Elf_Scn *scn;
	GElf_Shdr sh;
	Elf *elf;

	if (d->loaded)
		return 0;
	d->loaded = true;
	if (dso_jit_map(d->path, map, sizeof(map))) {
		d->jit = true;
		f = dso_file(d, map, in, sizeof(in));	/* perf's JAVA_JIT */
		err = f ? load_perf_map(d, f) : 0;
		return err ? core_err(err, "symbols: out of memory") : 0;
	}
	if (!dso_open(d, &elf, &fd, bid, &bid_len))
		return 0;	/* no symbols, not an error */
	err = elf_read_segs(elf, d);
	scn = find_symtab(elf, SHT_SYMTAB, &sh);
	if (!err && scn)
		err = elf_read_syms(elf, scn, &sh, d, false);
	if (!err && !d->nr_syms) {
		drop_syms(d);
		err = read_debug_syms(d, elf, bid, bid_len);
	}
	scn = find_symtab(elf, SHT_DYNSYM, &sh);
	if (!err && !d->nr_syms && scn) {
		drop_syms(d);
		err = elf_read_syms(elf, scn, &sh, d, false);
	}
	if (!err)
		err = add_plt_syms(elf, d);
	/* data objects: .symtab, else the debug file's (read with its
	   code symbols), else .dynsym */
	scn = find_symtab(elf, SHT_SYMTAB, &sh);
	if (!scn)
		scn = find_symtab(elf, SHT_DYNSYM, &sh);
	if (!err && scn && !d->dsyms)
		err = elf_read_syms(elf, scn, &sh, d, true);
	elf_end(elf);
	close(fd);
	return err ? core_err(-ENOMEM, "symbols: out of memory") : 0;
}

struct sym *dso_find_sym(struct sym *s, size_t nr, uint64_t addr)
{
	size_t lo = 0, hi = nr;

	/* the last symbol starting at or below addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	/* sizeless: up to the next symbol; the last one, as perf 6.1's
	   symbols__fixup_end, to the page after its own */
	if (lo == nr && !s[lo - 1].size &&
	    addr >= ((s[lo - 1].start + 4095) & ~4095ULL) + 4096)
		return NULL;
	s += lo - 1;
	if (s->size && addr >= s->start + s->size)
		return NULL;
	if (addr == s->start && (s->order & SYM_PREV_FIRST) && lo > 1)
		return s - 1;	/* perf 6.1's answer there (add_plt_syms) */
	return s;
}

bool dso_file_to_vaddr(const struct dso *d, uint64_t off, uint64_t *va)
{
	size_t i;

	if (d->jit) {		/* mapped with pgoff = start */
		*va = off;
		return true;
	}
	for (i = 0; i < d->nr_segs; i++) {
		const struct seg *s = &d->segs[i];

		if (off >= s->offset && off < s->offset + s->filesz) {
			*va = off - s->offset + s->vaddr;
			return true;
		}
	}
	return false;
}

/* A resolved address as text (pebs_symbols__resolve's answer). */
int pebs_sym__str(const struct pebs_sym *sym, uint64_t ip, char *buf,
		  size_t len)
{
	const char *base;

	if (sym->name)
		return sym->offset ?
		       snprintf(buf, len, "%s+0x%llx", sym->name,
				(unsigned long long)sym->offset) :
		       snprintf(buf, len, "%s", sym->name);
	if (sym->dso) {
		base = strrchr(sym->dso, '/');
		base = base ? base + 1 : sym->dso;
		return snprintf(buf, len, "%s%s%s+0x%llx",
				*base == '[' ? "" : "[", base,
				*base == '[' ? "" : "]",
				(unsigned long long)sym->dso_offset);
	}
	return snprintf(buf, len, "0x%llx", (unsigned long long)ip);
}
