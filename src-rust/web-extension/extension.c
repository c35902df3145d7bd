/* The extension's entry point: WebKit calls it once per web process, with
 * the data the browser set (the page-world scripts: the network recorder
 * and the console details). */
#include "extension.h"

static void on_page_created(WebKitWebExtension *extension, WebKitWebPage *page,
                            gpointer unused) {
    (void)extension;
    (void)unused;
    process_announce(page);
    console_watch(page);
    network_watch(page);
    relief_watch(page);
}

/* A new document in a frame: the scripts go in before its own. */
static void on_window_object_cleared(WebKitScriptWorld *world, WebKitWebPage *page,
                                     WebKitFrame *frame, gpointer unused) {
    (void)unused;
    JSCContext *context = webkit_frame_get_js_context_for_script_world(frame, world);
    network_install(page, frame, context);
    console_install(page, frame, context);
    /* Whatever went wrong stays here: the page never sees it. */
    jsc_context_clear_exception(context);
    g_object_unref(context);
}

G_MODULE_EXPORT void webkit_web_extension_initialize_with_user_data(WebKitWebExtension *extension,
                                                                    const GVariant *data) {
    const char *recorder = NULL;
    const char *details = NULL;
    if (data && g_variant_is_of_type((GVariant *)data, G_VARIANT_TYPE("(ss)")))
        g_variant_get((GVariant *)data, "(&s&s)", &recorder, &details);
    network_start(recorder);
    console_start(details);
    trim_start();
    g_signal_connect(extension, "page-created", G_CALLBACK(on_page_created), NULL);
    g_signal_connect(webkit_script_world_get_default(), "window-object-cleared",
                     G_CALLBACK(on_window_object_cleared), NULL);
}
