/* Gives back what an agent's page operations left behind, soon.
 *
 * A snapshot of a big page walks it in the agent's world and leaves about
 * 1.5 MiB of garbage (on the 5,000-element page). JavaScriptCore collects
 * it on its own timers and the allocator returns the pages later still,
 * so twenty snapshots in a row raised the web process by 40 MiB before any
 * came back; garbage a script made stayed until the engine needed room.
 * The browser tells the page as each agent operation answers
 * (RELIEF_MESSAGE, src-rust/browser/page/page_memory.rs); once this process's
 * resident memory has grown RELIEF_GROWTH_KIB since its first page started
 * or the last relief, it collects the garbage at once and gives the
 * allocator's free pages back: 2 to 5 ms on that page (more after a script
 * that made much), at most once per RELIEF_GROWTH_KIB grown. A
 * page's own allocations alone never cause one: only an agent's operation
 * asks. */
#include "extension.h"
#include <JavaScriptCore/JSBase.h>
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>

#define RELIEF_GROWTH_KIB (4 * 1024)

typedef void (*CollectNow)(JSContextRef);
typedef void (*ReleaseFree)(void);

/* The resident size of this process in KiB, or -1. */
static long resident_kib(void) {
    FILE *statm = fopen("/proc/self/statm", "re");
    if (!statm)
        return -1;
    long size = 0, resident = -1;
    if (fscanf(statm, "%ld %ld", &size, &resident) != 2)
        resident = -1;
    fclose(statm);
    long page = sysconf(_SC_PAGESIZE);
    return resident < 0 || page <= 0 ? -1 : resident * (page / 1024);
}

/* JavaScriptCore's synchronous full collection and WebKit's allocator
 * scavenge, looked up at run time: both are exported by the engine's
 * library but not declared in its public headers, so a build without them
 * gets JSGarbageCollect's hint alone, and no failure to load. */
static CollectNow collect_now;
static ReleaseFree release_free;

static void look_up_once(void) {
    static gboolean looked;
    if (looked)
        return;
    looked = TRUE;
    /* The names as the library exports them (the second is C++'s
     * WTF::releaseFastMallocFreeMemory()). */
    collect_now = (CollectNow)dlsym(RTLD_DEFAULT, "JSSynchronousGarbageCollectForDebugging");
    release_free = (ReleaseFree)dlsym(RTLD_DEFAULT, "_ZN3WTF27releaseFastMallocFreeMemoryEv");
}

static void relieve(WebKitWebPage *page) {
    look_up_once();
    G_GNUC_BEGIN_IGNORE_DEPRECATIONS
    /* Every page has a main frame; its global context is the page's, and
     * the heap it collects is the whole process's (one per thread). */
    WebKitFrame *frame = webkit_web_page_get_main_frame(page);
    JSGlobalContextRef context = frame ? webkit_frame_get_javascript_global_context(frame) : NULL;
    G_GNUC_END_IGNORE_DEPRECATIONS
    if (context) {
        if (collect_now)
            collect_now(context);
        else
            JSGarbageCollect(context);
    }
    if (release_free)
        release_free();
}

/* The resident size after the last relief (or the lowest seen since). */
static long baseline = -1;

static void relief_asked(WebKitWebPage *page) {
    long now = resident_kib();
    if (now < 0)
        return;
    if (baseline < 0 || now < baseline) {
        baseline = now;
        return;
    }
    if (now - baseline < RELIEF_GROWTH_KIB)
        return;
    relieve(page);
    long after = resident_kib();
    baseline = after < 0 ? now : after;
}

static gboolean on_message(WebKitWebPage *page, WebKitUserMessage *message, gpointer unused) {
    (void)unused;
    if (g_strcmp0(webkit_user_message_get_name(message), RELIEF_MESSAGE) != 0)
        return FALSE;
    relief_asked(page);
    /* The reply is floating: sending takes it. */
    webkit_user_message_send_reply(message, webkit_user_message_new(RELIEF_MESSAGE, NULL));
    return TRUE;
}

void relief_watch(WebKitWebPage *page) {
    /* Growth counts from the first page's start: an agent's first
     * operation may be the one that left the most behind. */
    if (baseline < 0)
        baseline = resident_kib();
    g_signal_connect(page, "user-message-received", G_CALLBACK(on_message), NULL);
}
