// SPDX-License-Identifier: MIT
/*
 * objects-field.c - the field of a static variable at a byte offset,
 * from the DWARF of its ELF file (libdw): "rec.tail", "table[].count"
 * (one "[]" per array type, a multi-dimensional C array being one).
 * The variable is the first one of that name at the top
 * of a compilation unit (a C global or file-static); its type's
 * typedefs and qualifiers are looked through; an array's element is
 * "[]" (every index one field: a row per field, not per element; none
 * at the end: "rec.tail", not "rec.tail[]" for a char array);
 * a struct's or union's member holding the offset is ".name" (a
 * union's first such member). The walk stops at a scalar, a bit
 * field's storage, or a type whose size libdw cannot tell; a path
 * without a member (an array of scalars) is no field. Only the file's
 * own DWARF is read (no separate debug file).
 *
 * Bounded: at most FILES files open (the first ones met), VARS
 * variables looked up (found or not) per file, each looked up once
 * (a walk over the units' top-level DIEs), a path of at most DEPTH
 * steps.
 */
#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <elfutils/libdw.h>

#include "core/internal.h"
#include "objects/objects-int.h"

#define FILES	16
#define VARS	256
#define DEPTH	16

struct var {
	char *name;
	Dwarf_Off type;		/* its type DIE; 0: not found */
};

struct dfile {
	char *path;
	int fd;
	Dwarf *dw;		/* NULL: no DWARF */
	struct var vars[VARS];
	unsigned int nr_vars;
};

struct objects_fields {
	struct dfile files[FILES];
	unsigned int nr_files;
};

int objects_fields__new(struct objects_fields **fp)
{
	*fp = calloc(1, sizeof(**fp));
	return *fp ? 0 : -ENOMEM;
}

void objects_fields__delete(struct objects_fields *f)
{
	if (!f)
		return;
	for (unsigned int i = 0; i < f->nr_files; i++) {
		struct dfile *d = &f->files[i];

		for (unsigned int j = 0; j < d->nr_vars; j++)
			free(d->vars[j].name);
		if (d->dw)
			dwarf_end(d->dw);
		if (d->fd >= 0)
			close(d->fd);
		free(d->path);
	}
	free(f);
}

static struct dfile *file_of(struct objects_fields *f, const char *path)
{
	struct dfile *d;

	for (unsigned int i = 0; i < f->nr_files; i++)
		if (!strcmp(f->files[i].path, path))
			return &f->files[i];
	if (f->nr_files == FILES)
		return NULL;
	d = &f->files[f->nr_files];
	d->path = strdup(path);
	if (!d->path)
		return NULL;
	f->nr_files++;
	d->fd = core_open_file(path);
	d->dw = d->fd >= 0 ? dwarf_begin(d->fd, DWARF_C_READ) : NULL;
	return d;
}

static bool type_of(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, DW_AT_type, &a) &&
	       dwarf_formref_die(&a, type);
}

/* the top-level variable @name's type DIE offset, 0 when none */
static Dwarf_Off find_var(Dwarf *dw, const char *name)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (!dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL)) {
		Dwarf_Die cu, die, type;

		if (dwarf_offdie(dw, off + hsize, &cu) &&
		    !dwarf_child(&cu, &die)) {
			do {
				const char *n;

				if (dwarf_tag(&die) != DW_TAG_variable)
					continue;
				n = dwarf_diename(&die);
				if (n && !strcmp(n, name) &&
				    type_of(&die, &type))
					return dwarf_dieoffset(&type);
			} while (!dwarf_siblingof(&die, &die));
		}
		off = next;
	}
	return 0;
}

static Dwarf_Off var_type(struct dfile *d, const char *name)
{
	struct var *v;

	for (unsigned int i = 0; i < d->nr_vars; i++)
		if (!strcmp(d->vars[i].name, name))
			return d->vars[i].type;
	if (d->nr_vars == VARS)
		return 0;
	v = &d->vars[d->nr_vars];
	v->name = strdup(name);
	if (!v->name)
		return 0;
	d->nr_vars++;
	v->type = find_var(d->dw, name);
	return v->type;
}

/* through typedefs and qualifiers */
static bool strip(Dwarf_Die *t)
{
	for (int i = 0; i < DEPTH; i++) {
		switch (dwarf_tag(t)) {
		case DW_TAG_typedef:
		case DW_TAG_const_type:
		case DW_TAG_volatile_type:
		case DW_TAG_restrict_type:
		case DW_TAG_atomic_type:
			if (!type_of(t, t))
				return false;
			break;
		default:
			return true;
		}
	}
	return false;
}

/* the member of struct/union @t holding @off into @m, *@off made
   relative to it */
static bool member_at(Dwarf_Die *t, uint64_t *off, Dwarf_Die *m)
{
	Dwarf_Die c, mt;

	if (dwarf_child(t, &c))
		return false;
	do {
		Dwarf_Attribute a;
		Dwarf_Word loc = 0;
		Dwarf_Word size;

		if (dwarf_tag(&c) != DW_TAG_member ||
		    dwarf_hasattr(&c, DW_AT_bit_size))
			continue;
		if (dwarf_attr(&c, DW_AT_data_member_location, &a) &&
		    dwarf_formudata(&a, &loc))
			continue;	/* a location expression: not a C member */
		if (!type_of(&c, &mt) || dwarf_aggregate_size(&mt, &size) ||
		    *off < loc || *off - loc >= size)
			continue;
		*m = c;
		*off -= loc;
		return true;
	} while (!dwarf_siblingof(&c, &c));
	return false;
}

int objects_field(struct objects_fields *f, const char *path,
		  const char *name, uint64_t off, char *buf, size_t len)
{
	struct dfile *d = file_of(f, path);
	Dwarf_Off toff;
	Dwarf_Die t, m;
	size_t n;

	if (!d || !d->dw || !(toff = var_type(d, name)) ||
	    !dwarf_offdie(d->dw, toff, &t))
		return -ENOENT;
	n = (size_t)snprintf(buf, len, "%s", name);
	for (int depth = 0; depth < DEPTH && n < len && strip(&t); depth++) {
		int tag = dwarf_tag(&t);
		Dwarf_Word size;

		if (tag == DW_TAG_array_type) {
			if (!type_of(&t, &t) || !strip(&t) ||
			    dwarf_aggregate_size(&t, &size) || !size)
				break;
			off %= size;
			n += (size_t)snprintf(buf + n, len - n, "[]");
			continue;
		}
		if ((tag != DW_TAG_structure_type && tag != DW_TAG_union_type) ||
		    !member_at(&t, &off, &m) || !dwarf_diename(&m) ||
		    !type_of(&m, &t))
			break;
		n += (size_t)snprintf(buf + n, len - n, ".%s",
				      dwarf_diename(&m));
	}
	if (n >= len)
		return -ENOENT;
	/* a member's array of scalars is the member ("rec.tail") */
	while (n >= 2 && !strcmp(buf + n - 2, "[]"))
		buf[n -= 2] = 0;
	/* a field named, not only arrays of scalars */
	return strchr(buf + strlen(name), '.') ? 0 : -ENOENT;
}
