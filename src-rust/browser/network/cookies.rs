//! Cookies of the profile, through WebKit's cookie manager: every
//! attribute visible (HttpOnly included), set with all of them, cleared all
//! at once or by domain. Listing every cookie uses
//! `webkit_cookie_manager_get_all_cookies` (WebKitGTK 2.42), which the Rust
//! binding predates: a small hand-written binding below.

use crate::base::error::{ErrorCode, ToolError};
use crate::bridge::{CookieOp, CookieSpec, Reply};
use crate::browser::webkit::expiry::Expiry;
use glib::translate::{FromGlibPtrContainer, ToGlibPtr};
use serde_json::{json, Value};
use std::time::Duration;
use webkit2gtk::{
    CookieManager, CookieManagerExt as _, WebViewExt as _, WebsiteDataManagerExt as _,
    WebsiteDataManagerExtManual as _, WebsiteDataTypes,
};

type CookiesDone = Box<dyn FnOnce(Result<Vec<soup::Cookie>, glib::Error>)>;

extern "C" {
    fn webkit_cookie_manager_get_all_cookies(
        manager: *mut webkit2gtk::ffi::WebKitCookieManager,
        cancellable: *mut gio::ffi::GCancellable,
        callback: gio::ffi::GAsyncReadyCallback,
        user_data: glib::ffi::gpointer,
    );
    fn webkit_cookie_manager_get_all_cookies_finish(
        manager: *mut webkit2gtk::ffi::WebKitCookieManager,
        result: *mut gio::ffi::GAsyncResult,
        error: *mut *mut glib::ffi::GError,
    ) -> *mut glib::ffi::GList;
}

fn manager(view: &webkit2gtk::WebView) -> Result<CookieManager, ToolError> {
    view.website_data_manager()
        .and_then(|m| m.cookie_manager())
        .ok_or_else(|| ToolError::internal("the profile has no cookie manager"))
}

/// `all_cookies`' callback: hands the cookies (or the error) to `done`.
unsafe extern "C" fn all_cookies_finished(
    source: *mut glib::gobject_ffi::GObject,
    result: *mut gio::ffi::GAsyncResult,
    data: glib::ffi::gpointer,
) {
    // SAFETY: `data` is the box `all_cookies` leaked, taken back exactly once;
    // the list and its cookies are ours (transfer full).
    let done = Box::from_raw(data as *mut CookiesDone);
    let mut error = std::ptr::null_mut();
    let list = webkit_cookie_manager_get_all_cookies_finish(
        source as *mut webkit2gtk::ffi::WebKitCookieManager,
        result,
        &mut error,
    );
    if error.is_null() {
        done(Ok(FromGlibPtrContainer::from_glib_full(list)));
    } else {
        done(Err(glib::translate::from_glib_full(error)));
    }
}

/// Every cookie of the profile.
fn all_cookies(manager: &CookieManager, expiry: Expiry, done: CookiesDone) {
    let cancellable: *mut gio::ffi::GCancellable = expiry.cancellable().to_glib_none().0;
    // The expiry ends with the callback.
    let done: CookiesDone = Box::new(move |result| {
        drop(expiry);
        done(result)
    });
    let data = Box::into_raw(Box::new(done)) as glib::ffi::gpointer;
    // SAFETY: a live cookie manager and cancellable (the callback holds
    // the expiry that owns it); the callback runs once on this thread.
    unsafe {
        webkit_cookie_manager_get_all_cookies(
            manager.to_glib_none().0,
            cancellable,
            Some(all_cookies_finished),
            data,
        );
    }
}

/// Carries out one cookie operation on the profile's cookies.
pub fn run(view: &webkit2gtk::WebView, op: CookieOp, reply: Reply, limit: Duration) {
    let expiry = Expiry::after(limit);
    match op {
        CookieOp::Get { url } => get(view, url, reply, expiry),
        CookieOp::Set(spec) => set(view, spec, reply, expiry),
        CookieOp::Clear { domain } => clear(view, domain, reply, expiry),
    }
}

/// Cookies a request to `url` would carry, or every cookie of the profile.
fn get(view: &webkit2gtk::WebView, url: Option<String>, reply: Reply, expiry: Expiry) {
    let manager = match manager(view) {
        Ok(m) => m,
        Err(e) => return send(reply, Err(e)),
    };
    let done: CookiesDone = Box::new(move |result| {
        send(
            reply,
            result
                .map(|cookies| {
                    let list: Vec<Value> = cookies.into_iter().map(cookie_json).collect();
                    json!({"count": list.len(), "cookies": list})
                })
                .map_err(cookie_error),
        )
    });
    match url {
        Some(url) => {
            let cancellable = expiry.cancellable().clone();
            manager.cookies(&url, Some(&cancellable), move |result| {
                drop(expiry);
                done(result)
            })
        }
        None => all_cookies(&manager, expiry, done),
    }
}

/// Adds (or replaces) one cookie.
fn set(view: &webkit2gtk::WebView, spec: CookieSpec, reply: Reply, expiry: Expiry) {
    let manager = match manager(view) {
        Ok(m) => m,
        Err(e) => return send(reply, Err(e)),
    };
    let mut cookie = soup::Cookie::new(&spec.name, &spec.value, &spec.domain, &spec.path, -1);
    if let Some(expires) = spec.expires {
        match glib::DateTime::from_unix_utc(expires) {
            Ok(when) => cookie.set_expires(&when),
            Err(_) => {
                return send(
                    reply,
                    Err(ToolError::invalid_params("expires is not a valid time")),
                )
            }
        }
    }
    cookie.set_secure(spec.secure);
    cookie.set_http_only(spec.http_only);
    cookie.set_same_site_policy(match spec.same_site.as_str() {
        "strict" => soup::SameSitePolicy::Strict,
        "none" => soup::SameSitePolicy::None,
        _ => soup::SameSitePolicy::Lax,
    });
    let shown = cookie_json(cookie.clone());
    let cancellable = expiry.cancellable().clone();
    manager.add_cookie(&mut cookie, Some(&cancellable), move |result| {
        drop(expiry);
        send(
            reply,
            result.map(|_| json!({"set": shown})).map_err(cookie_error),
        )
    });
}

/// Removes every cookie, or those of one domain and its subdomains: never
/// a parent domain's (clearing app.example.com keeps the .example.com
/// login), which a removal of WebKit's per-host records would take.
fn clear(view: &webkit2gtk::WebView, domain: Option<String>, reply: Reply, expiry: Expiry) {
    let Some(domain) = domain else {
        return clear_all(view, reply, expiry);
    };
    let manager = match manager(view) {
        Ok(m) => m,
        Err(e) => return send(reply, Err(e)),
    };
    let wanted = domain.trim_start_matches('.').to_ascii_lowercase();
    let deleter = manager.clone();
    let done: CookiesDone = Box::new(move |result| {
        let cookies = match result {
            Ok(cookies) => cookies,
            Err(e) => return send(reply, Err(cookie_error(e))),
        };
        let mut matching: Vec<soup::Cookie> = cookies
            .into_iter()
            .filter_map(|mut c| {
                let domain = c.domain()?.to_string();
                within(&domain, &wanted).then_some(c)
            })
            .collect();
        let count = matching.len();
        let cleared = move || json!({"cleared": domain, "cookies": count});
        if count == 0 {
            return send(reply, Ok(cleared()));
        }
        // Answers once the last deletion is done, or at the first failure.
        let left = std::rc::Rc::new(std::cell::Cell::new(count));
        let reply = std::rc::Rc::new(std::cell::RefCell::new(Some((reply, cleared))));
        for cookie in &mut matching {
            let (left, reply) = (left.clone(), reply.clone());
            deleter.delete_cookie(cookie, None::<&gio::Cancellable>, move |result| {
                left.set(left.get() - 1);
                let finished = result.is_err() || left.get() == 0;
                if let Some((reply, cleared)) = finished.then(|| reply.take()).flatten() {
                    send(reply, result.map(|_| cleared()).map_err(cookie_error));
                }
            });
        }
    });
    all_cookies(&manager, expiry, done);
}

/// A cookie's domain is `wanted` or one of its subdomains.
fn within(cookie_domain: &str, wanted: &str) -> bool {
    let domain = cookie_domain.trim_start_matches('.').to_ascii_lowercase();
    domain == wanted || domain.ends_with(&format!(".{wanted}"))
}

fn clear_all(view: &webkit2gtk::WebView, reply: Reply, expiry: Expiry) {
    let Some(data) = view.website_data_manager() else {
        return send(
            reply,
            Err(ToolError::internal("the profile has no data manager")),
        );
    };
    let cancellable = expiry.cancellable().clone();
    let done = move |result: Result<(), glib::Error>| {
        drop(expiry);
        send(
            reply,
            result
                .map(|_| json!({"cleared": "all"}))
                .map_err(cookie_error),
        )
    };
    data.clear(
        WebsiteDataTypes::COOKIES,
        glib::TimeSpan(0),
        Some(&cancellable),
        done,
    );
}

/// Deletes what earlier releases left in the tabs' cookie jar: the panel
/// key, in a cookie named `sovereign-panel-<port>` that agents could read
/// and tabs sent to every loopback port. The key is no cookie any more.
pub fn forget_legacy_panel_cookies(view: &webkit2gtk::WebView) {
    let Ok(manager) = manager(view) else {
        return;
    };
    let deleter = manager.clone();
    let done: CookiesDone = Box::new(move |result| {
        let Ok(cookies) = result else {
            return;
        };
        for mut cookie in cookies {
            let legacy = cookie.name().is_some_and(|name| {
                name.strip_prefix("sovereign-panel-")
                    .is_some_and(|port| port.bytes().all(|b| b.is_ascii_digit()))
            });
            if legacy {
                tracing::info!("removed the panel key's cookie left by an earlier release");
                deleter.delete_cookie(&mut cookie, None::<&gio::Cancellable>, |_| {});
            }
        }
    });
    all_cookies(&manager, Expiry::after(Duration::from_secs(10)), done);
}

fn cookie_json(mut cookie: soup::Cookie) -> Value {
    let same_site = match cookie.same_site_policy() {
        soup::SameSitePolicy::Strict => "Strict",
        soup::SameSitePolicy::None => "None",
        _ => "Lax",
    };
    json!({
        "name": cookie.name().map(|s| s.to_string()),
        "value": cookie.value().map(|s| s.to_string()),
        "domain": cookie.domain().map(|s| s.to_string()),
        "path": cookie.path().map(|s| s.to_string()),
        "expires": cookie.expires().map(|d| d.to_unix()),
        "secure": cookie.is_secure(),
        "httpOnly": cookie.is_http_only(),
        "sameSite": same_site,
    })
}

fn cookie_error(error: glib::Error) -> ToolError {
    // The expiry's cancellable fired: the call's time was up.
    if error.matches(gio::IOErrorEnum::Cancelled) {
        return ToolError::timeout("the cookie store did not answer in time");
    }
    ToolError::new(ErrorCode::Internal, format!("cookie storage: {error}"))
}

fn send(reply: Reply, result: Result<Value, ToolError>) {
    let _ = reply.send(result.map(crate::bridge::Output::Value));
}

#[cfg(test)]
mod tests {
    use super::within;

    #[test]
    fn a_domain_takes_its_subdomains_and_never_its_parent() {
        assert!(within("a.example.com", "a.example.com"));
        assert!(within(".a.example.com", "a.example.com"));
        assert!(within("x.a.example.com", "a.example.com"));
        assert!(!within(".example.com", "a.example.com"));
        assert!(!within("b.example.com", "a.example.com"));
        assert!(!within("ba.example.com", "a.example.com"));
    }
}

#[cfg(test)]
pub(crate) mod ffi_edges {
    use super::*;
    use crate::bridge::Output;
    use crate::browser::webkit::ffi_harness::spin_until;
    use std::time::Duration;
    use tokio::sync::oneshot;

    /// Runs one operation to its reply (turning GLib's loop meanwhile).
    fn ask(view: &webkit2gtk::WebView, op: CookieOp, limit: Duration) -> Result<Value, ToolError> {
        let (reply, mut answer) = oneshot::channel();
        super::run(view, op, reply, limit);
        let mut got = None;
        assert!(
            spin_until(Duration::from_secs(20), || {
                got = got.take().or_else(|| answer.try_recv().ok());
                got.is_some()
            }),
            "every cookie operation answers"
        );
        got.expect("answered").map(|output| match output {
            Output::Value(value) => value,
            other => panic!("a value, not {other:?}"),
        })
    }

    pub fn run() {
        let context = webkit2gtk::WebContext::new_ephemeral();
        let view = webkit2gtk::WebView::with_context(&context);
        let all = || CookieOp::Get { url: None };
        // An empty jar: WebKit answers a NULL list.
        let empty = ask(&view, all(), Duration::from_secs(10)).expect("an empty jar");
        assert_eq!(empty["count"], 0);
        // Out of time before WebKit answers: cancelled, answered once.
        match ask(&view, all(), Duration::ZERO) {
            Ok(value) => assert_eq!(value["count"], 0),
            Err(error) => assert_eq!(error.code, ErrorCode::Timeout, "{error}"),
        }
        let spec = CookieSpec {
            name: "n".into(),
            value: "v".into(),
            domain: "127.0.0.1".into(),
            path: "/".into(),
            expires: None,
            secure: false,
            http_only: true,
            same_site: "lax".into(),
        };
        ask(&view, CookieOp::Set(spec), Duration::from_secs(10)).expect("set");
        for _ in 0..2 {
            let one = ask(&view, all(), Duration::from_secs(10)).expect("listed, twice");
            assert_eq!(one["count"], 1, "{one}");
        }
        // The view gone (its data manager is the context's): still answered.
        drop(view);
        let view = webkit2gtk::WebView::with_context(&context);
        ask(
            &view,
            CookieOp::Clear { domain: None },
            Duration::from_secs(10),
        )
        .expect("cleared");
        assert_eq!(
            ask(&view, all(), Duration::from_secs(10)).expect("listed")["count"],
            0
        );
    }
}
