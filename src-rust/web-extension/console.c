/* Console capture: hands every console message the engine records
 * (console API calls, uncaught exceptions, unhandled rejections, failed
 * loads, security errors) to the browser, with the
 * engine's own level, source, line and URL. Page scripts cannot post to
 * this channel: it runs in the web process, outside every script world.
 *
 * The engine keeps only a console call's first argument and no stack, so
 * the details script (assets/console.js, handed over at start) runs in each
 * frame's page world and reports the formatted arguments and stacks to a
 * native function that only its closure holds, bound to that frame. The
 * script reports just before the engine records the message, in the same
 * turn of the frame's event loop: a detail joins only the engine message
 * that comes next, carrying its frame's address; one that message does not
 * take, and one not joined by the end of that turn, is dropped. So no frame can prepare text for another's
 * message, and a detail never makes an entry.
 *
 * Every string goes out cut to a bound and made valid UTF-8 (a page can log
 * a lone surrogate, which the engine hands over as invalid UTF-8, and a
 * GVariant string must be valid).
 *
 * WebKitGTK 4.1 marks the console signal deprecated (2.40) without a
 * replacement in this API; it is still emitted, and it is the only
 * browser-side source of console messages. */
#include "extension.h"
#include <string.h>

/* Must match CONSOLE_MESSAGE in src-rust/browser/tab/console.rs. */
#define CONSOLE_MESSAGE "sovereign-console"
#define PENDING_KEY "sovereign-console-pending"
/* Bytes kept of a message's text, a detail's text or stack (the browser
 * keeps 2,000 characters of each), and of a URL (see console.rs). */
#define TEXT_MAX (8 * 1024)
#define URL_MAX 2048
/* Details waiting for their engine message, per page. */
#define PENDING_MAX 8

typedef struct {
    char *frame_uri;
    char *kind; /* "console", "error" or "rejection" */
    int level;  /* WebKitConsoleMessageLevel of a console call, else -1 */
    char *key;  /* the engine's text-to-be, cut to TEXT_MAX */
    char *text;
    char *stack;
    guint32 column;
} Detail;

typedef struct {
    GQueue details;
    guint idle; /* the source that drops what was not joined */
} Pending;

static char *console_source;

/* `text` cut to `max` bytes, as valid UTF-8 (a cut character or an invalid
 * sequence becomes U+FFFD). Never NULL. */
static char *valid_cut(const char *text, gsize max) {
    if (!text)
        return g_strdup("");
    gsize length = strnlen(text, max);
    return g_utf8_make_valid(text, (gssize)length);
}

/* A URL cut to URL_MAX bytes says so, with its length. */
static char *url_cut(const char *url) {
    if (!url || strnlen(url, URL_MAX + 1) <= URL_MAX)
        return valid_cut(url, URL_MAX);
    char *start = valid_cut(url, URL_MAX);
    char *cut = g_strdup_printf("%s…[URL of %zu bytes]", start, strlen(url));
    g_free(start);
    return cut;
}

static void detail_free(Detail *detail) {
    g_free(detail->frame_uri);
    g_free(detail->kind);
    g_free(detail->key);
    g_free(detail->text);
    g_free(detail->stack);
    g_free(detail);
}

static void pending_free(Pending *pending) {
    if (pending->idle)
        g_source_remove(pending->idle);
    g_queue_clear_full(&pending->details, (GDestroyNotify)detail_free);
    g_free(pending);
}

static gboolean drop_unjoined(gpointer data) {
    Pending *pending = data;
    pending->idle = 0;
    g_queue_clear_full(&pending->details, (GDestroyNotify)detail_free);
    return G_SOURCE_REMOVE;
}

static int level_of(const char *name) {
    static const char *names[] = {"info", "log", "warn", "error", "debug"};
    for (int i = 0; i < 5; i++)
        if (g_strcmp0(name, names[i]) == 0)
            return i;
    return -1;
}

static char *arg_string(GPtrArray *args, guint i, gsize max) {
    JSCValue *value = i < args->len ? g_ptr_array_index(args, i) : NULL;
    if (!value || !jsc_value_is_string(value))
        return NULL;
    char *text = jsc_value_to_string(value);
    char *cut = valid_cut(text, max);
    g_free(text);
    return cut;
}

/* The frame a details function belongs to. */
typedef struct {
    WebKitWebPage *page; /* weak: the page outlives its frames' scripts */
    WebKitFrame *frame;  /* weak, as the page */
} Origin;

/* detail(kind, level, key, text, column, stack), from the frame's script. */
static void on_detail(GPtrArray *args, gpointer data) {
    Origin *origin = data;
    if (!origin->page || !origin->frame)
        return;
    Pending *pending = g_object_get_data(G_OBJECT(origin->page), PENDING_KEY);
    char *kind = arg_string(args, 0, 16);
    char *key = arg_string(args, 2, TEXT_MAX);
    if (!pending || !kind || !key ||
        (strcmp(kind, "console") != 0 && strcmp(kind, "error") != 0 &&
         strcmp(kind, "rejection") != 0)) {
        g_free(kind);
        g_free(key);
        return;
    }
    Detail *detail = g_new0(Detail, 1);
    detail->kind = kind;
    detail->key = key;
    char *level = arg_string(args, 1, 16);
    detail->level = level_of(level);
    g_free(level);
    detail->text = arg_string(args, 3, TEXT_MAX);
    JSCValue *column = args->len > 4 ? g_ptr_array_index(args, 4) : NULL;
    if (column && jsc_value_is_number(column)) {
        double n = jsc_value_to_double(column);
        detail->column = n > 0 && n < G_MAXUINT32 ? (guint32)n : 0;
    }
    detail->stack = arg_string(args, 5, TEXT_MAX);
    detail->frame_uri = url_cut(webkit_frame_get_uri(origin->frame));
    g_queue_push_tail(&pending->details, detail);
    while (pending->details.length > PENDING_MAX)
        detail_free(g_queue_pop_head(&pending->details));
    if (!pending->idle)
        pending->idle = g_idle_add(drop_unjoined, pending);
}

static void origin_free(gpointer data) {
    Origin *origin = data;
    if (origin->page)
        g_object_remove_weak_pointer(G_OBJECT(origin->page), (gpointer *)&origin->page);
    if (origin->frame)
        g_object_remove_weak_pointer(G_OBJECT(origin->frame), (gpointer *)&origin->frame);
    g_free(origin);
}

void console_install(WebKitWebPage *page, WebKitFrame *frame, JSCContext *context) {
    if (!console_source || !g_object_get_data(G_OBJECT(page), PENDING_KEY))
        return;
    JSCValue *install =
        jsc_context_evaluate_with_source_uri(context, console_source, -1, "sovereign:console", 1);
    if (install && jsc_value_is_function(install)) {
        Origin *origin = g_new0(Origin, 1);
        origin->page = page;
        origin->frame = frame;
        g_object_add_weak_pointer(G_OBJECT(page), (gpointer *)&origin->page);
        g_object_add_weak_pointer(G_OBJECT(frame), (gpointer *)&origin->frame);
        JSCValue *detail = jsc_value_new_function_variadic(
            context, NULL, G_CALLBACK(on_detail), origin, origin_free, G_TYPE_NONE);
        JSCValue *done =
            jsc_value_function_call(install, JSC_TYPE_VALUE, detail, G_TYPE_NONE);
        g_clear_object(&done);
        g_object_unref(detail);
    }
    g_clear_object(&install);
}

G_GNUC_BEGIN_IGNORE_DEPRECATIONS

/* The detail that describes `message` (kind, key and level), taken: only
 * the newest may, as the script reports just before the engine's message. */
static Detail *take_detail(Pending *pending, WebKitConsoleMessage *message, const char *text) {
    Detail *detail = pending ? g_queue_peek_tail(&pending->details) : NULL;
    if (!detail)
        return NULL;
    WebKitConsoleMessageSource source = webkit_console_message_get_source(message);
    WebKitConsoleMessageLevel level = webkit_console_message_get_level(message);
    const char *kind;
    if (source == WEBKIT_CONSOLE_MESSAGE_SOURCE_JAVASCRIPT &&
        level == WEBKIT_CONSOLE_MESSAGE_LEVEL_ERROR)
        kind = g_str_has_prefix(text, "Unhandled Promise Rejection:") ? "rejection" : "error";
    else if (source == WEBKIT_CONSOLE_MESSAGE_SOURCE_CONSOLE_API)
        kind = "console";
    else
        return NULL;
    if (strcmp(detail->kind, kind) != 0 || strcmp(detail->key, text) != 0)
        return NULL;
    if (strcmp(kind, "console") == 0 && detail->level != (int)level)
        return NULL;
    return g_queue_pop_tail(&pending->details);
}

static void on_console_message(WebKitWebPage *page, WebKitConsoleMessage *message,
                               gpointer unused) {
    (void)unused;
    char *text = valid_cut(webkit_console_message_get_text(message), TEXT_MAX);
    char *source_id = url_cut(webkit_console_message_get_source_id(message));
    char *page_uri = url_cut(webkit_web_page_get_uri(page));
    Pending *pending = g_object_get_data(G_OBJECT(page), PENDING_KEY);
    Detail *detail = take_detail(pending, message, text);
    /* What was not joined by now never will be: a detail is reported just
     * before its message, so an older one is stale. */
    if (pending)
        g_queue_clear_full(&pending->details, (GDestroyNotify)detail_free);
    /* (source, level, line, text, source_url, page_url,
     *  joined, frame_url, detail_text, detail_stack, column) */
    GVariant *fields = g_variant_new(
        "(uuusssbsssu)", (guint32)webkit_console_message_get_source(message),
        (guint32)webkit_console_message_get_level(message),
        (guint32)webkit_console_message_get_line(message), text, source_id, page_uri,
        detail != NULL, detail ? detail->frame_uri : "",
        detail && detail->text ? detail->text : "",
        detail && detail->stack ? detail->stack : "", detail ? detail->column : 0);
    /* No reply is awaited: the browser only listens. */
    webkit_web_page_send_message_to_view(page, webkit_user_message_new(CONSOLE_MESSAGE, fields),
                                         NULL, NULL, NULL);
    if (detail)
        detail_free(detail);
    g_free(text);
    g_free(source_id);
    g_free(page_uri);
}

G_GNUC_END_IGNORE_DEPRECATIONS

void console_start(const char *details) {
    if (details)
        console_source = g_strdup(details);
}

void console_watch(WebKitWebPage *page) {
    Pending *pending = g_new0(Pending, 1);
    g_queue_init(&pending->details);
    g_object_set_data_full(G_OBJECT(page), PENDING_KEY, pending, (GDestroyNotify)pending_free);
    g_signal_connect(page, "console-message-sent", G_CALLBACK(on_console_message), NULL);
}
