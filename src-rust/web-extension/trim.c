/* Gives back what loading the GL driver's compiler left resident.
 *
 * A web process needs an EGL display, and under Xvfb that is Mesa's
 * software driver, which links LLVM: loading it reads its relocation and
 * symbol tables and runs its static initialisers, about 35 MiB of the
 * library's file pages that nothing reads again unless a page draws with GL
 * (WebGL, 3D transforms), when the few it needs come back from the page
 * cache. A moment after this process starts, its clean, read-only
 * mappings of LLVM are unmapped (MADV_DONTNEED); the pages stay in the
 * page cache for the next web process. Mappings with private dirty pages (the
 * relocated data) or write permission are left alone: unmapping those
 * would lose their contents. */
#include "extension.h"
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

/* Once WebKit has opened the EGL display, which it does as it starts. */
#define TRIM_AFTER_MS 200

/* Whether `path` names LLVM's shared library (libLLVM-15.so.1, libLLVM.so.20.1...). */
static gboolean is_llvm(const char *path) {
    const char *base = strrchr(path, '/');
    return base && g_str_has_prefix(base + 1, "libLLVM") && strstr(base, ".so");
}

/* One mapping of /proc/self/smaps, as far as read. */
typedef struct {
    unsigned long start, end;
    gboolean readonly_llvm;
    gboolean clean;
} Mapping;

/* Unmaps the pages of `m` when it is a clean, read-only mapping of LLVM;
 * answers the bytes given back. */
static unsigned long trim(const Mapping *m) {
    if (!m->readonly_llvm || !m->clean || m->end <= m->start)
        return 0;
    /* A private file mapping with no dirty page: its pages read again as
     * the file's, from the page cache. */
    return madvise((void *)m->start, m->end - m->start, MADV_DONTNEED) == 0 ? m->end - m->start : 0;
}

static gboolean trim_llvm(gpointer unused) {
    (void)unused;
    FILE *smaps = fopen("/proc/self/smaps", "re");
    if (!smaps)
        return G_SOURCE_REMOVE;
    char line[4096];
    Mapping m = {0};
    unsigned long given = 0;
    while (fgets(line, sizeof line, smaps)) {
        unsigned long start, end, kib;
        char perms[5];
        int path_at = -1;
        if (sscanf(line, "%lx-%lx %4s %*s %*s %*s %n", &start, &end, perms, &path_at) == 3 &&
            path_at > 0) {
            /* A new mapping: the one before is complete. */
            given += trim(&m);
            line[strcspn(line, "\n")] = '\0';
            m = (Mapping){start, end, strchr(perms, 'w') == NULL && is_llvm(line + path_at), TRUE};
        } else if (sscanf(line, "Private_Dirty: %lu kB", &kib) == 1 && kib > 0) {
            m.clean = FALSE;
        } else if (sscanf(line, "Anonymous: %lu kB", &kib) == 1 && kib > 0) {
            m.clean = FALSE;
        }
    }
    given += trim(&m);
    fclose(smaps);
    if (given)
        g_debug("unmapped %lu KiB of LLVM's loaded pages", given / 1024);
    return G_SOURCE_REMOVE;
}

void trim_start(void) {
    g_timeout_add_full(G_PRIORITY_LOW, TRIM_AFTER_MS, trim_llvm, NULL, NULL);
}
