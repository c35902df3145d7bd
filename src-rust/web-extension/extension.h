/* Sovereign Browser's web process extension: what WebKit loads into every
 * web process of the browser's context. Each part watches a page. */
#pragma once
#include <webkit2/webkit-web-extension.h>

/* console.c: the engine's console messages, handed to the browser. */
void console_watch(WebKitWebPage *page);

/* network.c: the bodies of the pages' fetch and XMLHttpRequest responses,
 * kept in this process until the browser asks for one. `recorder` is the
 * page-world script (assets/network.js) that hands them over. */
void network_start(WebKitWebExtension *extension, const char *recorder);
void network_watch(WebKitWebPage *page);
