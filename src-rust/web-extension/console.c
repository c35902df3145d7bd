/* Console capture: hands every console message the engine records
 * (console API calls, uncaught exceptions, unhandled rejections, failed
 * loads, security errors) to the browser, with the
 * engine's own level, source, line and URL. Page scripts cannot post to
 * this channel: it runs in the web process, outside every script world.
 *
 * WebKitGTK 4.1 marks the console signal deprecated (2.40) without a
 * replacement in this API; it is still emitted, and it is the only
 * browser-side source of console messages. */
#include "extension.h"

/* Must match CONSOLE_MESSAGE in src-rust/browser/console.rs. */
#define CONSOLE_MESSAGE "sovereign-console"

G_GNUC_BEGIN_IGNORE_DEPRECATIONS

static const char *or_empty(const char *text) { return text ? text : ""; }

static void on_console_message(WebKitWebPage *page, WebKitConsoleMessage *message,
                               gpointer unused) {
    (void)unused;
    GVariant *fields = g_variant_new(
        "(uuusss)",
        (guint32)webkit_console_message_get_source(message),
        (guint32)webkit_console_message_get_level(message),
        (guint32)webkit_console_message_get_line(message),
        or_empty(webkit_console_message_get_text(message)),
        or_empty(webkit_console_message_get_source_id(message)),
        or_empty(webkit_web_page_get_uri(page)));
    /* No reply is awaited: the browser only listens. */
    webkit_web_page_send_message_to_view(page, webkit_user_message_new(CONSOLE_MESSAGE, fields),
                                         NULL, NULL, NULL);
}

G_GNUC_END_IGNORE_DEPRECATIONS

void console_watch(WebKitWebPage *page) {
    g_signal_connect(page, "console-message-sent", G_CALLBACK(on_console_message), NULL);
}
