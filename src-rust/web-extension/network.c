/* Network bodies: WebKit gives the browser every request's metadata, but
 * keeps no body of a fetch() or XMLHttpRequest response, nor of what their
 * requests sent, for it to read.
 * The recorder (assets/network.js, handed over at start) runs in each
 * frame's page world before any page script and reports each response's
 * body to a native function that only its closure holds, bound to that
 * frame's document: its frame id and origin come from WebKit, never from
 * the page. The bodies stay here, in this page's web process, bounded,
 * until the browser asks for one by method, URL, the origin the request
 * was made from and start time (the nearest start wins). A capture of one
 * origin never answers for a request another origin made, and a frame
 * that floods captures pushes out its own origin's first. */
#include "extension.h"
#include <math.h>
#include <string.h>

/* Must match BODY_REQUEST in src-rust/browser/network/network_body.rs. */
#define BODY_REQUEST "sovereign-network-body"
#define STORE_KEY "sovereign-network-store"
/* Per body (the recorder stops reading there), per page, and for all the
 * pages of this web process together (the oldest capture of any goes). */
#define BODY_MAX (10 * 1024 * 1024)
#define BODIES_MAX 500
#define BYTES_MAX (64 * 1024 * 1024)
#define PROCESS_BODIES_MAX 1000
#define PROCESS_BYTES_MAX (128 * 1024 * 1024)
/* Characters kept of a capture's method and URL (longer ones are never
 * asked for: the browser keeps no body of a URL it cut at 2,048 characters). */
#define METHOD_MAX 64
#define URL_MAX 2048

typedef struct {
    guint64 seq;    /* its place among this process's captures */
    guint64 frame;  /* WebKit's id of the frame that made the request */
    gboolean main;  /* that frame is the page's main frame */
    char *origin;   /* that frame's document's origin, as WebKit has it */
    char *kind;     /* "fetch" or "xhr" */
    char *method;
    char *url;
    double started; /* Unix time in ms when the page made the request */
    GBytes *body;   /* NULL: not captured; `note` says why */
    gboolean truncated;
    char *note;
    GBytes *sent;   /* the request's body; NULL: it sent none */
    gboolean sent_truncated;
    char *sent_note;
} Capture;

typedef struct {
    GQueue captures;
    gsize bytes;
} Store;

/* What one document's report function is bound to. */
typedef struct {
    Store *store; /* a reference */
    guint64 frame;
    gboolean main;
    char *origin;
} Reporter;

static char *recorder_source;
/* Every page's store, and what they hold together. */
static GList *stores;
static gsize process_bytes;
static guint process_captures;
static guint64 next_seq;

static gsize body_size(const Capture *capture) {
    return (capture->body ? g_bytes_get_size(capture->body) : 0) +
           (capture->sent ? g_bytes_get_size(capture->sent) : 0);
}

static void capture_free(Capture *capture) {
    g_free(capture->origin);
    g_free(capture->kind);
    g_free(capture->method);
    g_free(capture->url);
    g_free(capture->note);
    g_free(capture->sent_note);
    if (capture->body)
        g_bytes_unref(capture->body);
    if (capture->sent)
        g_bytes_unref(capture->sent);
    g_free(capture);
}

static void store_clear(Store *store) {
    process_bytes -= store->bytes;
    process_captures -= store->captures.length;
    stores = g_list_remove(stores, store);
    g_queue_clear_full(&store->captures, (GDestroyNotify)capture_free);
}

static void store_release(gpointer store) {
    g_rc_box_release_full(store, (GDestroyNotify)store_clear);
}

static void reporter_free(gpointer data) {
    Reporter *reporter = data;
    store_release(reporter->store);
    g_free(reporter->origin);
    g_free(reporter);
}

/* The origin of a URL as WebKit writes it (scheme, host, port; lower case,
 * default port left out): what precedes the path. "" for a URL with no
 * host (about:blank, data:), which no request's origin matches. */
static char *origin_of(const char *url) {
    const char *authority = url ? strstr(url, "://") : NULL;
    if (!authority)
        return g_strdup("");
    authority += 3;
    const char *end = authority + strcspn(authority, "/?#");
    const char *at = memchr(authority, '@', (gsize)(end - authority));
    const char *host = at ? at + 1 : authority;
    if (host == end)
        return g_strdup("");
    return g_strdup_printf("%.*s%.*s", (int)(authority - url), url, (int)(end - host), host);
}

static void drop(Store *store, GList *link) {
    Capture *old = link->data;
    g_queue_delete_link(&store->captures, link);
    store->bytes -= body_size(old);
    process_bytes -= body_size(old);
    process_captures--;
    capture_free(old);
}

/* The oldest capture of the origin that holds the most of `store` (by
 * bytes when `by_bytes`, else by count): a flood pushes out its own. */
static GList *greediest_oldest(Store *store, gboolean by_bytes) {
    GHashTable *held = g_hash_table_new(g_str_hash, g_str_equal);
    const char *greediest = NULL;
    gsize most = 0;
    for (GList *l = store->captures.head; l; l = l->next) {
        Capture *capture = l->data;
        gsize total = GPOINTER_TO_SIZE(g_hash_table_lookup(held, capture->origin)) +
                      (by_bytes ? body_size(capture) : 1);
        g_hash_table_insert(held, capture->origin, GSIZE_TO_POINTER(total));
        if (total > most) {
            most = total;
            greediest = capture->origin;
        }
    }
    GList *oldest = NULL;
    for (GList *l = store->captures.head; l && greediest; l = l->next) {
        if (strcmp(((Capture *)l->data)->origin, greediest) == 0) {
            oldest = l;
            break;
        }
    }
    g_hash_table_destroy(held);
    return oldest ? oldest : store->captures.head;
}

/* The store whose oldest capture is the oldest of all. */
static Store *oldest_store(void) {
    Store *oldest = NULL;
    for (GList *l = stores; l; l = l->next) {
        Store *store = l->data;
        Capture *head = g_queue_peek_head(&store->captures);
        if (head && (!oldest || head->seq < ((Capture *)g_queue_peek_head(&oldest->captures))->seq))
            oldest = store;
    }
    return oldest;
}

/* Keeps `capture`, dropping others past any bound. */
static void store_add(Store *store, Capture *capture) {
    capture->seq = ++next_seq;
    store->bytes += body_size(capture);
    process_bytes += body_size(capture);
    process_captures++;
    g_queue_push_tail(&store->captures, capture);
    while (store->captures.length > BODIES_MAX)
        drop(store, greediest_oldest(store, FALSE));
    while (store->bytes > BYTES_MAX)
        drop(store, greediest_oldest(store, TRUE));
    while (process_captures > PROCESS_BODIES_MAX || process_bytes > PROCESS_BYTES_MAX) {
        Store *oldest = oldest_store();
        if (!oldest)
            break;
        drop(oldest, oldest->captures.head);
    }
}

static JSCValue *arg(GPtrArray *args, guint i) {
    return i < args->len ? g_ptr_array_index(args, i) : NULL;
}

/* A string argument, NULL when it is none or longer than `max` bytes. */
static char *string_arg(GPtrArray *args, guint i, gsize max) {
    JSCValue *value = arg(args, i);
    if (!value || !jsc_value_is_string(value))
        return NULL;
    char *text = jsc_value_to_string(value);
    if (text && strlen(text) > max) {
        g_free(text);
        return NULL;
    }
    return text;
}

/* Up to BODY_MAX bytes of a Uint8Array argument; NULL when it is none. */
static GBytes *bytes_arg(GPtrArray *args, guint i, gboolean *cut) {
    JSCValue *value = arg(args, i);
    if (!value || !jsc_value_is_typed_array(value) ||
        jsc_value_typed_array_get_type(value) != JSC_TYPED_ARRAY_UINT8)
        return NULL;
    gsize length = 0;
    gpointer bytes = jsc_value_typed_array_get_data(value, &length);
    *cut = length > BODY_MAX;
    return g_bytes_new(bytes, MIN(length, (gsize)BODY_MAX));
}

/* report(kind, method, url, started, body: Uint8Array | null, truncated, note,
 *        sent: Uint8Array | null, sent_truncated, sent_note) */
static void on_report(GPtrArray *args, gpointer data) {
    Reporter *reporter = data;
    char *kind = string_arg(args, 0, 8);
    char *method = string_arg(args, 1, METHOD_MAX);
    char *url = string_arg(args, 2, URL_MAX);
    JSCValue *started = arg(args, 3);
    if (!kind || !method || !url || !started || !jsc_value_is_number(started)) {
        g_free(kind);
        g_free(method);
        g_free(url);
        return;
    }
    Capture *capture = g_new0(Capture, 1);
    capture->frame = reporter->frame;
    capture->main = reporter->main;
    capture->origin = g_strdup(reporter->origin);
    capture->kind = kind;
    capture->method = method;
    capture->url = url;
    capture->started = jsc_value_to_double(started);
    capture->body = bytes_arg(args, 4, &capture->truncated);
    JSCValue *truncated = arg(args, 5);
    if (truncated && jsc_value_to_boolean(truncated))
        capture->truncated = TRUE;
    capture->note = string_arg(args, 6, 256);
    capture->sent = bytes_arg(args, 7, &capture->sent_truncated);
    JSCValue *sent_truncated = arg(args, 8);
    if (sent_truncated && jsc_value_to_boolean(sent_truncated))
        capture->sent_truncated = TRUE;
    capture->sent_note = string_arg(args, 9, 256);
    store_add(reporter->store, capture);
}

/* A new document in a frame: the recorder goes in before its scripts,
 * with a report function bound to this frame and its document's origin. */
void network_install(WebKitWebPage *page, WebKitFrame *frame, JSCContext *context) {
    Store *store = g_object_get_data(G_OBJECT(page), STORE_KEY);
    if (!store || !recorder_source)
        return;
    JSCValue *install =
        jsc_context_evaluate_with_source_uri(context, recorder_source, -1, "sovereign:network", 1);
    if (install && jsc_value_is_function(install)) {
        Reporter *reporter = g_new0(Reporter, 1);
        reporter->store = g_rc_box_acquire(store);
        reporter->frame = webkit_frame_get_id(frame);
        reporter->main = webkit_frame_is_main_frame(frame);
        reporter->origin = origin_of(webkit_frame_get_uri(frame));
        JSCValue *report = jsc_value_new_function_variadic(
            context, NULL, G_CALLBACK(on_report), reporter, reporter_free, G_TYPE_NONE);
        JSCValue *done = jsc_value_function_call(install, JSC_TYPE_VALUE, report, G_TYPE_DOUBLE,
                                                 (double)BODY_MAX, G_TYPE_NONE);
        g_clear_object(&done);
        g_object_unref(report);
    }
    g_clear_object(&install);
}

static GVariant *empty_body(void) {
    return g_variant_new_from_data(G_VARIANT_TYPE_BYTESTRING, NULL, 0, TRUE, NULL, NULL);
}

/* Whether `capture` may answer for a request made from `origin` (""
 * when the browser could not tell: then only the main frame's may). */
static gboolean made_from(const Capture *capture, const char *origin) {
    if (!*origin)
        return capture->main;
    return *capture->origin && strcmp(capture->origin, origin) == 0;
}

/* The browser asks for a body: (method, url, origin, started) -> (found,
 * kind, captured, truncated, note, frame, body, sent_captured,
 * sent_truncated, sent_note, sent). */
static gboolean on_message(WebKitWebPage *page, WebKitUserMessage *message, gpointer unused) {
    (void)unused;
    if (g_strcmp0(webkit_user_message_get_name(message), BODY_REQUEST) != 0)
        return FALSE;
    Store *store = g_object_get_data(G_OBJECT(page), STORE_KEY);
    GVariant *params = webkit_user_message_get_parameters(message);
    const Capture *best = NULL;
    if (store && params && g_variant_is_of_type(params, G_VARIANT_TYPE("(sssd)"))) {
        const char *method = NULL;
        const char *url = NULL;
        const char *origin = NULL;
        double started = 0;
        g_variant_get(params, "(&s&s&sd)", &method, &url, &origin, &started);
        double best_gap = INFINITY;
        for (GList *l = store->captures.head; l; l = l->next) {
            const Capture *capture = l->data;
            if (strcmp(capture->method, method) != 0 || strcmp(capture->url, url) != 0 ||
                !made_from(capture, origin))
                continue;
            double gap = fabs(capture->started - started);
            if (gap < best_gap) {
                best = capture;
                best_gap = gap;
            }
        }
    }
    GVariant *reply;
    if (best) {
        GVariant *body = best->body
                             ? g_variant_new_from_bytes(G_VARIANT_TYPE_BYTESTRING, best->body, TRUE)
                             : empty_body();
        char *frame = best->main ? g_strdup("the main frame")
                                 : g_strdup_printf("a frame of %s", best->origin);
        GVariant *sent = best->sent
                             ? g_variant_new_from_bytes(G_VARIANT_TYPE_BYTESTRING, best->sent, TRUE)
                             : empty_body();
        reply = g_variant_new("(bsbbss@aybbs@ay)", TRUE, best->kind, best->body != NULL,
                              best->truncated, best->note ? best->note : "", frame, body,
                              best->sent != NULL, best->sent_truncated,
                              best->sent_note ? best->sent_note : "", sent);
        g_free(frame);
    } else {
        reply = g_variant_new("(bsbbss@aybbs@ay)", FALSE, "", FALSE, FALSE, "", "", empty_body(),
                              FALSE, FALSE, "", empty_body());
    }
    webkit_user_message_send_reply(message, webkit_user_message_new(BODY_REQUEST, reply));
    return TRUE;
}

void network_start(const char *recorder) {
    if (recorder)
        recorder_source = g_strdup(recorder);
}

void network_watch(WebKitWebPage *page) {
    Store *store = g_rc_box_new0(Store);
    g_queue_init(&store->captures);
    stores = g_list_prepend(stores, store);
    g_object_set_data_full(G_OBJECT(page), STORE_KEY, store, store_release);
    g_signal_connect(page, "user-message-received", G_CALLBACK(on_message), NULL);
}
