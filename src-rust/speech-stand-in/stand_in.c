/* Stands in for flite, the speech synthesiser, in WebKit's web and network
 * processes until a page speaks.
 *
 * WebKitGTK links flite's library, its English front end and its voices
 * (thirteen libraries) into libwebkit2gtk, so every process that loads
 * WebKit loads them, and the loader fixes up the voices' data in each:
 * about 3.6 MiB of written pages per process and 4 ms of its start, for
 * what only a page that calls speechSynthesis uses.
 * src-rust/speech_stand_in.rs puts this library under each of flite's
 * names in a folder named first in LD_LIBRARY_PATH for the processes the
 * browser starts; the loader finds it there under every name, sees one
 * file and loads it once.
 *
 * It defines every function flite's libraries export (the lists are made
 * at build time from the libraries WebKit links: speech_libraries.h,
 * speech_functions.h). Each is a jump through its slot. A slot first holds
 * the way to stand_in_go, which keeps the caller's argument registers,
 * loads the real libraries (once, RTLD_GLOBAL, by their paths), looks the
 * function up in the library that defines it, stores its address in the
 * slot and jumps there with the arguments as they were: from then on a call
 * costs one indirect jump. The real libraries' own calls between
 * each other come through the same slots (the loader finds this library's
 * definitions first), their data they find in each other.
 *
 * Its constructor takes its folder out of LD_LIBRARY_PATH, so that a
 * program these processes start (GStreamer's plugin scanner) loads the
 * real flite. The loader read the variable before this runs. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#if !defined(__x86_64__)
#error "the speech stand-in's jumps are written for x86-64"
#endif

/* The real libraries, each after those it needs. */
static const char *const libraries[] = {
#define SPEECH_LIBRARY(path) path,
#include "speech_libraries.h"
#undef SPEECH_LIBRARY
};
#define LIBRARY_COUNT (sizeof libraries / sizeof libraries[0])

/* Each function's name and the library that defines it. */
static const struct {
    const char *name;
    unsigned library;
} functions[] = {
#define STAND_IN(index, name, library) {#name, library},
#include "speech_functions.h"
#undef STAND_IN
};
#define FUNCTION_COUNT (sizeof functions / sizeof functions[0])

/* The first way into each function: its index into %r11, then the lookup. */
#define STAND_IN(index, name, library) extern char stand_in_first_##index[] __attribute__((visibility("hidden")));
#include "speech_functions.h"
#undef STAND_IN

/* Where each function's jump goes: its first way in until looked up, then
 * the real function. Read and written whole (8 bytes, aligned). */
__attribute__((visibility("hidden"))) void *stand_in_slots[] = {
#define STAND_IN(index, name, library) stand_in_first_##index,
#include "speech_functions.h"
#undef STAND_IN
};

/* The exported functions: a jump through the slot each. */
#define STAND_IN(index, name, library)                                                                   \
    __asm__(".text\n"                                                                                    \
            ".globl " #name "\n"                                                                         \
            ".type " #name ",@function\n" #name ":\n"                                                    \
            "\tjmp *stand_in_slots+8*" #index "(%rip)\n"                                                 \
            ".size " #name ",.-" #name "\n"                                                              \
            ".globl stand_in_first_" #index "\n"                                                         \
            ".hidden stand_in_first_" #index "\n"                                                        \
            "stand_in_first_" #index ":\n"                                                               \
            "\tmovl $" #index ",%r11d\n"                                                                 \
            "\tjmp stand_in_go\n");
#include "speech_functions.h"
#undef STAND_IN

/* Answers 0 (NULL): what a function answers that cannot be found. */
static long answer_zero(void) {
    return 0;
}

static void *handles[LIBRARY_COUNT];
static pthread_once_t loaded = PTHREAD_ONCE_INIT;

static void load_real_libraries(void) {
    for (unsigned i = 0; i < LIBRARY_COUNT; i++)
        handles[i] = dlopen(libraries[i], RTLD_NOW | RTLD_GLOBAL);
}

/* Whether `address` lies in this library (a lookup that found the stand-in
 * again would jump to itself for ever). */
static int is_mine(void *address) {
    Dl_info mine, found;
    return dladdr((void *)answer_zero, &mine) && dladdr(address, &found) &&
           mine.dli_fbase == found.dli_fbase;
}

/* Called by stand_in_go with the function's index: the real function's
 * address, stored in its slot. Any thread; the loading happens once. */
__attribute__((visibility("hidden"), used)) void *stand_in_look_up(unsigned long index) {
    if (index >= FUNCTION_COUNT)
        return (void *)answer_zero;
    pthread_once(&loaded, load_real_libraries);
    void *handle = handles[functions[index].library];
    void *real = handle ? dlsym(handle, functions[index].name) : NULL;
    if (!real || is_mine(real))
        real = (void *)answer_zero;
    __atomic_store_n(&stand_in_slots[index], real, __ATOMIC_RELEASE);
    return real;
}

/* Keeps the registers a call may pass arguments in (%rdi %rsi %rdx %rcx
 * %r8 %r9, %rax for a variadic call's vector count, %xmm0-7), looks the
 * function numbered in %r11 up, restores them and jumps to it: the real
 * function sees the call as its caller made it, and returns to it. On
 * entry %rsp is 8 past a multiple of 16 (the caller's return address);
 * after %rbp, eight registers and 128 bytes it is a multiple of 16 again,
 * as a call needs. */
__asm__(".text\n"
        ".type stand_in_go,@function\n"
        "stand_in_go:\n"
        "\tpushq %rbp\n"
        "\tmovq %rsp,%rbp\n"
        "\tpushq %rdi\n\tpushq %rsi\n\tpushq %rdx\n\tpushq %rcx\n"
        "\tpushq %r8\n\tpushq %r9\n\tpushq %rax\n\tpushq %r11\n"
        "\tsubq $128,%rsp\n"
        "\tmovdqu %xmm0,0(%rsp)\n\tmovdqu %xmm1,16(%rsp)\n"
        "\tmovdqu %xmm2,32(%rsp)\n\tmovdqu %xmm3,48(%rsp)\n"
        "\tmovdqu %xmm4,64(%rsp)\n\tmovdqu %xmm5,80(%rsp)\n"
        "\tmovdqu %xmm6,96(%rsp)\n\tmovdqu %xmm7,112(%rsp)\n"
        "\tmovq %r11,%rdi\n"
        "\tcall stand_in_look_up\n"
        "\tmovq %rax,%r10\n"
        "\tmovdqu 0(%rsp),%xmm0\n\tmovdqu 16(%rsp),%xmm1\n"
        "\tmovdqu 32(%rsp),%xmm2\n\tmovdqu 48(%rsp),%xmm3\n"
        "\tmovdqu 64(%rsp),%xmm4\n\tmovdqu 80(%rsp),%xmm5\n"
        "\tmovdqu 96(%rsp),%xmm6\n\tmovdqu 112(%rsp),%xmm7\n"
        "\taddq $136,%rsp\n"
        "\tpopq %rax\n\tpopq %r9\n\tpopq %r8\n\tpopq %rcx\n"
        "\tpopq %rdx\n\tpopq %rsi\n\tpopq %rdi\n"
        "\tpopq %rbp\n"
        "\tjmp *%r10\n"
        ".size stand_in_go,.-stand_in_go\n");

/* The variable naming the folders the loader searches first. */
#define SEARCH "LD_LIBRARY_PATH"

/* Whether the loader splits the variable at `c`. */
static int separates(char c) {
    return c == ':' || c == ';';
}

/* Removes every entry of SEARCH equal to `folder` (`length` bytes), and
 * the variable itself when nothing else is left. */
static void forget_folder(const char *folder, size_t length) {
    const char *value = getenv(SEARCH);
    if (!value)
        return;
    char *kept = malloc(strlen(value) + 1);
    if (!kept)
        return;
    size_t at = 0;
    int removed = 0, kept_any = 0;
    const char *entry = value;
    for (;;) {
        size_t n = 0;
        while (entry[n] && !separates(entry[n]))
            n++;
        if (n == length && memcmp(entry, folder, length) == 0) {
            removed = 1;
        } else {
            /* An empty entry is kept: the loader reads it as the working folder. */
            if (kept_any)
                kept[at++] = ':';
            memcpy(kept + at, entry, n);
            at += n;
            kept_any = 1;
        }
        if (!entry[n])
            break;
        entry += n + 1;
    }
    kept[at] = '\0';
    if (removed) {
        if (kept_any)
            setenv(SEARCH, kept, 1);
        else
            unsetenv(SEARCH);
    }
    free(kept);
}

__attribute__((constructor)) static void leave_no_trace(void) {
    /* The path the loader opened this library by: FOLDER/libflite.so.1. */
    Dl_info self;
    if (!dladdr((void *)leave_no_trace, &self) || !self.dli_fname)
        return;
    const char *slash = strrchr(self.dli_fname, '/');
    if (!slash || slash == self.dli_fname)
        return;
    forget_folder(self.dli_fname, (size_t)(slash - self.dli_fname));
}
