/* Gives back the dynamic loader's relocation tables once they are read.
 *
 * WebKitGTK's libraries carry large relocation tables: 6.6 MiB in
 * libwebkit2gtk, about 1 MiB in each speech synthesis voice it links. The
 * loader reads them once, as a process starts, to fix up the libraries'
 * pointers, and never again; yet their pages stay mapped in every process
 * that loaded the libraries (the browser's, the web and network
 * processes), about 15 MiB of the browser's resident memory in all.
 *
 * The browser loads this library into its own process (dlopen) and into
 * every process it starts (LD_PRELOAD, src-rust/loader_tables.rs). Its
 * constructor runs after the loader has relocated every library the
 * process started with, and unmaps the pages of their relocation tables
 * (MADV_DONTNEED). Those pages are file-backed, private and never written:
 * unmapped, they read again as the file's, from the page cache, should
 * anything look. A table is left alone unless it lies wholly in a
 * read-only segment of its library outside the part made read-only after
 * relocation (RELRO), and in libraries with text relocations. The lazily
 * bound calls' table (DT_JMPREL) is kept: the loader reads it at run time.
 *
 * Nothing is exported: a library loaded for its constructor alone. */
#define _GNU_SOURCE
#include <link.h>
#include <stddef.h>
#include <sys/mman.h>
#include <unistd.h>

/* The table's run-time address: glibc rewrites the dynamic section's
 * addresses to run-time ones where the section is writable, and leaves
 * them as offsets from the load address where it is not. */
static ElfW(Addr) run_time_address(ElfW(Addr) base, ElfW(Addr) value) {
    return value >= base ? value : base + value;
}

/* Whether [start, end) lies in one read-only loadable segment of the
 * object and outside its RELRO part. */
static int in_read_only_segment(const struct dl_phdr_info *info, ElfW(Addr) start, ElfW(Addr) end) {
    int inside = 0;
    for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *segment = &info->dlpi_phdr[i];
        ElfW(Addr) from = info->dlpi_addr + segment->p_vaddr;
        ElfW(Addr) to = from + segment->p_memsz;
        if (segment->p_type == PT_GNU_RELRO && start < to && end > from)
            return 0;
        if (segment->p_type == PT_LOAD && start >= from && end <= to)
            inside = segment->p_flags == PF_R;
    }
    return inside;
}

static int give_back(struct dl_phdr_info *info, size_t size, void *unused) {
    (void)size;
    (void)unused;
    const ElfW(Dyn) *dynamic = NULL;
    for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dynamic = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    if (!dynamic)
        return 0;
    ElfW(Addr) table = 0;
    ElfW(Xword) table_size = 0;
    for (const ElfW(Dyn) *entry = dynamic; entry->d_tag != DT_NULL; entry++) {
        switch (entry->d_tag) {
        case DT_RELA:
            table = entry->d_un.d_ptr;
            break;
        case DT_RELASZ:
            table_size = entry->d_un.d_val;
            break;
        case DT_TEXTREL:
            return 0;
        case DT_FLAGS:
            if (entry->d_un.d_val & DF_TEXTREL)
                return 0;
            break;
        }
    }
    long page = sysconf(_SC_PAGESIZE);
    if (!table || !table_size || page <= 0)
        return 0;
    ElfW(Addr) start = run_time_address(info->dlpi_addr, table);
    /* Whole pages only: the first and last may hold other data. */
    ElfW(Addr) from = (start + (ElfW(Addr))page - 1) & ~((ElfW(Addr))page - 1);
    ElfW(Addr) to = (start + table_size) & ~((ElfW(Addr))page - 1);
    if (to > from && in_read_only_segment(info, from, to))
        madvise((void *)from, to - from, MADV_DONTNEED);
    return 0;
}

__attribute__((constructor)) static void give_back_relocation_tables(void) {
    dl_iterate_phdr(give_back, NULL);
}
