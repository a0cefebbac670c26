// SPDX-License-Identifier: MIT
/* Resolve an address of this program to its symbol, as a report does. */
#include <stdio.h>
#include <unistd.h>
#include <pebsshim.h>

int main(void)
{
    uint64_t ip = (uint64_t)(uintptr_t)main + 4;
    struct pebs_symbols *syms;
    struct pebs_sym sym;
    char buf[256];
    int err;

    err = pebs_symbols__new(&syms);
    if (!err && (err = pebs_symbols__load_pid(syms, getpid())) > 0)
        err = pebs_symbols__resolve(syms, getpid(), ip, &sym);
    if (err < 0) {
        fprintf(stderr, "%s\n", pebs_errmsg());
        pebs_symbols__delete(syms);
        return 1;
    }
    pebs_sym__str(&sym, ip, buf, sizeof(buf));
    printf("%#llx is %s in %s\n", (unsigned long long)ip, buf,
           sym.dso ? sym.dso : "?");
    pebs_symbols__delete(syms);
    return 0;
}
