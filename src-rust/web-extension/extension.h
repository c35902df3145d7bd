/* Sovereign Browser's web process extension: what WebKit loads into every
 * web process of the browser's context. Each part watches a page, and puts
 * its page-world script into each new document of its frames. Nothing but
 * the entry point (extension.c) is exported. */
#pragma once
#include <webkit2/webkit-web-extension.h>

/* console.c: the engine's console messages, handed to the browser, with
 * the details (assets/console.js) of the frame that logged them. */
void console_start(const char *details);
void console_watch(WebKitWebPage *page);
void console_install(WebKitWebPage *page, WebKitFrame *frame, JSCContext *context);

/* network.c: the bodies of the pages' fetch and XMLHttpRequest responses,
 * kept in this process until the browser asks for one. `recorder` is the
 * page-world script (assets/network.js) that hands them over. */
void network_start(const char *recorder);
void network_watch(WebKitWebPage *page);
void network_install(WebKitWebPage *page, WebKitFrame *frame, JSCContext *context);

/* process.c: tells each new page's view which process it lives in. */
#define PROCESS_MESSAGE "sovereign-process"
void process_announce(WebKitWebPage *page);

/* trim.c: unmaps what loading the GL driver's compiler (LLVM) left
 * resident, once, a moment after the process starts. */
void trim_start(void);

/* relief.c: after an agent's operation, collects the garbage it left and
 * gives the allocator's free pages back, once the process has grown. */
#define RELIEF_MESSAGE "sovereign-relief"
void relief_watch(WebKitWebPage *page);
