/* Network bodies: WebKit gives the browser every request's metadata, but
 * keeps no body of a fetch() or XMLHttpRequest response for it to read.
 * The recorder (assets/network.js, handed over at start) runs in each
 * frame's page world before any page script and reports each response's
 * body to a native function that only its closure holds; the bodies stay
 * here, in this page's web process, bounded, until the browser asks for
 * one by method, URL and start time (the nearest start wins). */
#include "extension.h"
#include <math.h>
#include <string.h>

/* Must match BODY_REQUEST in src-rust/browser/network_body.rs. */
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
    guint64 seq; /* its place among this process's captures */
    char *kind; /* "fetch" or "xhr" */
    char *method;
    char *url;
    double started; /* Unix time in ms when the page made the request */
    GBytes *body;   /* NULL: not captured; `note` says why */
    gboolean truncated;
    char *note;
} Capture;

typedef struct {
    GQueue captures;
    gsize bytes;
} Store;

static char *recorder_source;
/* Every page's store, and what they hold together. */
static GList *stores;
static gsize process_bytes;
static guint process_captures;
static guint64 next_seq;

static gsize body_size(const Capture *capture) {
    return capture->body ? g_bytes_get_size(capture->body) : 0;
}

static void capture_free(Capture *capture) {
    g_free(capture->kind);
    g_free(capture->method);
    g_free(capture->url);
    g_free(capture->note);
    if (capture->body)
        g_bytes_unref(capture->body);
    g_free(capture);
}

static void store_clear(Store *store) {
    process_bytes -= store->bytes;
    process_captures -= store->captures.length;
    stores = g_list_remove(stores, store);
    g_queue_clear_full(&store->captures, (GDestroyNotify)capture_free);
}

static void drop_oldest(Store *store) {
    Capture *old = g_queue_pop_head(&store->captures);
    store->bytes -= body_size(old);
    process_bytes -= body_size(old);
    process_captures--;
    capture_free(old);
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

static void store_release(gpointer store) {
    g_rc_box_release_full(store, (GDestroyNotify)store_clear);
}

/* Keeps `capture`, dropping the oldest past any bound. */
static void store_add(Store *store, Capture *capture) {
    capture->seq = ++next_seq;
    store->bytes += body_size(capture);
    process_bytes += body_size(capture);
    process_captures++;
    g_queue_push_tail(&store->captures, capture);
    while (store->captures.length > BODIES_MAX || store->bytes > BYTES_MAX)
        drop_oldest(store);
    while (process_captures > PROCESS_BODIES_MAX || process_bytes > PROCESS_BYTES_MAX) {
        Store *oldest = oldest_store();
        if (!oldest)
            break;
        drop_oldest(oldest);
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

/* report(kind, method, url, started, body: Uint8Array | null, truncated, note) */
static void on_report(GPtrArray *args, gpointer data) {
    Store *store = data;
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
    capture->kind = kind;
    capture->method = method;
    capture->url = url;
    capture->started = jsc_value_to_double(started);
    JSCValue *body = arg(args, 4);
    if (body && jsc_value_is_typed_array(body) &&
        jsc_value_typed_array_get_type(body) == JSC_TYPED_ARRAY_UINT8) {
        gsize length = 0;
        gpointer bytes = jsc_value_typed_array_get_data(body, &length);
        capture->truncated = length > BODY_MAX;
        capture->body = g_bytes_new(bytes, MIN(length, (gsize)BODY_MAX));
    }
    JSCValue *truncated = arg(args, 5);
    if (truncated && jsc_value_to_boolean(truncated))
        capture->truncated = TRUE;
    capture->note = string_arg(args, 6, 256);
    store_add(store, capture);
}

/* A new document in a frame: the recorder goes in before its scripts. */
void network_install(WebKitWebPage *page, WebKitFrame *frame, JSCContext *context) {
    (void)frame;
    Store *store = g_object_get_data(G_OBJECT(page), STORE_KEY);
    if (!store || !recorder_source)
        return;
    JSCValue *install =
        jsc_context_evaluate_with_source_uri(context, recorder_source, -1, "sovereign:network", 1);
    if (install && jsc_value_is_function(install)) {
        JSCValue *report = jsc_value_new_function_variadic(
            context, NULL, G_CALLBACK(on_report), g_rc_box_acquire(store), store_release,
            G_TYPE_NONE);
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

/* The browser asks for a body: (method, url, started) -> (found, kind,
 * truncated, note, body). */
static gboolean on_message(WebKitWebPage *page, WebKitUserMessage *message, gpointer unused) {
    (void)unused;
    if (g_strcmp0(webkit_user_message_get_name(message), BODY_REQUEST) != 0)
        return FALSE;
    Store *store = g_object_get_data(G_OBJECT(page), STORE_KEY);
    GVariant *params = webkit_user_message_get_parameters(message);
    const Capture *best = NULL;
    if (store && params && g_variant_is_of_type(params, G_VARIANT_TYPE("(ssd)"))) {
        const char *method = NULL;
        const char *url = NULL;
        double started = 0;
        g_variant_get(params, "(&s&sd)", &method, &url, &started);
        double best_gap = INFINITY;
        for (GList *l = store->captures.head; l; l = l->next) {
            const Capture *capture = l->data;
            if (strcmp(capture->method, method) != 0 || strcmp(capture->url, url) != 0)
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
        reply = g_variant_new("(bsbbs@ay)", TRUE, best->kind, best->body != NULL,
                              best->truncated, best->note ? best->note : "", body);
    } else {
        reply = g_variant_new("(bsbbs@ay)", FALSE, "", FALSE, FALSE, "", empty_body());
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
