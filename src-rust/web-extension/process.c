/* Which process a page lives in: the browser bounds each web process's
 * memory (src-rust/browser/page/page_memory.rs) and WebKit does not tell it a
 * view's process. Each new page in this process says so to its view. */
#include "extension.h"
#include <unistd.h>

void process_announce(WebKitWebPage *page) {
    /* The message is floating: sending takes it. No reply is awaited. */
    webkit_web_page_send_message_to_view(
        page, webkit_user_message_new(PROCESS_MESSAGE, g_variant_new_uint32((guint32)getpid())),
        NULL, NULL, NULL);
}
