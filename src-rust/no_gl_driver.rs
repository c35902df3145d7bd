//! Keeps the GL driver out of the browser's own process when pages render
//! into shared memory (a private Xvfb display).
//!
//! WebKitGTK's process opens an EGL display while it starts the first web
//! process, although with the DMA-BUF renderer off it draws pages from
//! shared memory with cairo and never uses it. Under Xvfb that display is
//! Mesa's software driver: loading and relocating it and LLVM took about
//! 55 ms of the first load on the main thread and 50 MiB of the process's
//! resident memory. The web processes do need it (one without an EGL
//! display ends), so only this process goes without.
//!
//! libglvnd's libEGL reads the vendor list once, at the first EGL call: made
//! here with no vendor to load, every later call in this process finds none,
//! while the environment is restored at once for the processes started later.

use std::ffi::{c_char, c_void, CStr};

/// The glvnd variable naming the vendor files to load, instead of searching.
const VENDOR_FILES: &str = "__EGL_VENDOR_LIBRARY_FILENAMES";
/// A vendor file that cannot exist: glvnd then loads no vendor at all.
const NO_VENDOR: &str = "/nonexistent/sovereign-browser-no-egl-vendor.json";
const EGL_EXTENSIONS: i32 = 0x3055;

type QueryString = unsafe extern "C" fn(*mut c_void, i32) -> *const c_char;

/// Makes this process's EGL find no driver; web processes started later
/// still find theirs. Answers whether EGL was reached (false: no libEGL, or
/// not one with `eglQueryString`; nothing was changed then).
///
/// Call it before any thread starts (it sets and restores an environment
/// variable) and before GTK or WebKit make their first EGL call.
pub fn withhold_from_this_process() -> bool {
    withhold_with(c"libEGL.so.1")
}

fn withhold_with(library: &CStr) -> bool {
    let Some(query) = egl_query_string(library) else {
        return false;
    };
    let before = std::env::var_os(VENDOR_FILES);
    std::env::set_var(VENDOR_FILES, NO_VENDOR);
    // SAFETY: `query` is libEGL's eglQueryString (dlsym found it under that
    // name in a library that stays loaded); EGL_NO_DISPLAY (NULL) with
    // EGL_EXTENSIONS is a defined query that answers the client extensions
    // or NULL, and the answer is not read.
    let _client_extensions = unsafe { query(std::ptr::null_mut(), EGL_EXTENSIONS) };
    match before {
        Some(value) => std::env::set_var(VENDOR_FILES, value),
        None => std::env::remove_var(VENDOR_FILES),
    }
    true
}

/// `eglQueryString` of `library`, loaded for the rest of the process (never
/// closed: GTK and WebKit use the same library), or None.
fn egl_query_string(library: &CStr) -> Option<QueryString> {
    // SAFETY: dlopen takes a NUL-terminated name and answers NULL when the
    // library cannot be loaded; the handle is never closed.
    let handle = unsafe { libc::dlopen(library.as_ptr(), libc::RTLD_NOW | libc::RTLD_GLOBAL) };
    if handle.is_null() {
        return None;
    }
    // SAFETY: a live handle and a NUL-terminated name; NULL when absent.
    let symbol = unsafe { libc::dlsym(handle, c"eglQueryString".as_ptr()) };
    if symbol.is_null() {
        return None;
    }
    // SAFETY: a non-NULL eglQueryString has this C signature (EGL 1.4:
    // `const char *eglQueryString(EGLDisplay dpy, EGLint name)`).
    Some(unsafe { std::mem::transmute::<*mut c_void, QueryString>(symbol) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_library_changes_nothing() {
        assert!(!withhold_with(c"libsovereign-no-such-library.so.0"));
    }

    #[test]
    fn a_library_without_egl_changes_nothing() {
        // libc is loaded in every process and has no eglQueryString.
        assert!(egl_query_string(c"libc.so.6").is_none());
    }
}
