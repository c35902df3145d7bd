/* The extension's entry point: WebKit calls it once per web process, with
 * the data the browser set (the network recorder's script). */
#include "extension.h"

static void on_page_created(WebKitWebExtension *extension, WebKitWebPage *page,
                            gpointer unused) {
    (void)extension;
    (void)unused;
    console_watch(page);
    network_watch(page);
}

G_MODULE_EXPORT void webkit_web_extension_initialize_with_user_data(WebKitWebExtension *extension,
                                                                    const GVariant *data) {
    const char *recorder = NULL;
    if (data && g_variant_is_of_type((GVariant *)data, G_VARIANT_TYPE_STRING))
        recorder = g_variant_get_string((GVariant *)data, NULL);
    network_start(extension, recorder);
    g_signal_connect(extension, "page-created", G_CALLBACK(on_page_created), NULL);
}
