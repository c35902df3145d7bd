//! What agents change about how the browser talks to sites: extra request
//! headers on the navigations it starts, answers to HTTP authentication,
//! and being offline (for every tab of one context: its network session;
//! each context has its own).

use crate::base::error::{ErrorCode, ToolError};
use crate::bridge::{CredentialsChange, DeviceLook, Position, SiteCredentials};
use crate::browser::tab::state::TabState;
use crate::page_protocol::ops::Network;
use crate::routes::ProxyAccess;
use glib::prelude::*;
use glib::translate::ToGlibPtr;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::rc::Rc;
use webkit2gtk::{
    AuthenticationRequestExt as _, GeolocationManager, GeolocationManagerExt as _,
    GeolocationPermissionRequest, GeolocationPosition, PermissionRequestExt as _, SettingsExt as _,
    URIRequest, URIRequestExt as _, UserContentInjectedFrames, UserContentManagerExt as _,
    UserScript, UserScriptInjectionTime, WebContextExt as _, WebView, WebViewExt as _,
    WebsiteDataManager, WebsiteDataManagerExt as _,
};
use zeroize::Zeroizing;

/// The origins whose HTTP authentication agents answer at once, at most.
const MAX_CREDENTIALS: usize = 64;
/// A proxy nobody listens on: every request fails at once, as offline.
const OFFLINE_PROXY: &str = "http://127.0.0.1:9";
/// navigator.onLine as set_offline says, in the page's world of every frame.
const OFFLINE_SOURCE: &str = include_str!("../../../assets/offline.js");
/// Date and Intl in the zone set_timezone gives, in the page's world.
const TIMEZONE_SOURCE: &str = include_str!("../../../assets/timezone.js");
/// The screen, pixel ratio and touch set_device gives, in the page's world.
const DEVICE_SOURCE: &str = include_str!("../../../assets/device.js");

#[derive(Default)]
pub struct AgentSettings {
    headers: RefCell<Vec<(String, String)>>,
    /// Whether agents ever set headers: pages in the history may carry them.
    headers_ever: std::cell::Cell<bool>,
    /// By origin, at most MAX_CREDENTIALS.
    credentials: RefCell<Vec<SiteCredentials>>,
    /// The proxy the browser was started with, restored when back online.
    pub start_proxy: Option<String>,
    offline: std::cell::Cell<bool>,
    /// The routing proxy, once agents added a route to this context.
    route_proxy: RefCell<Option<ProxyAccess>>,
    /// The User-Agent agents set (none: WebKit's own).
    user_agent: RefCell<Option<String>>,
    /// The position pages get, and are allowed to ask for, while set.
    geolocation: std::cell::Cell<Option<Position>>,
    /// The context's geolocation provider (its web context's).
    geolocation_manager: RefCell<Option<GeolocationManager>>,
    /// `assets/offline.js` with the current state: what new documents read.
    offline_script: RefCell<Option<UserScript>>,
    /// The IANA time zone pages see (none: the machine's).
    timezone: RefCell<Option<String>>,
    /// The device scripts see (none: this machine).
    device_look: std::cell::Cell<Option<DeviceLook>>,
    /// `assets/timezone.js` and `assets/device.js` as set: what new
    /// documents run (none while nothing is emulated).
    emulation_script: RefCell<Option<UserScript>>,
}

impl AgentSettings {
    pub fn new(start_proxy: Option<String>) -> Rc<Self> {
        Rc::new(AgentSettings {
            start_proxy,
            ..Default::default()
        })
    }

    pub fn set_headers(&self, headers: Vec<(String, String)>) -> Value {
        let names: Vec<&str> = headers.iter().map(|(n, _)| n.as_str()).collect();
        let shown = json!({"headers": names});
        if !headers.is_empty() {
            self.headers_ever.set(true);
        }
        *self.headers.borrow_mut() = headers;
        shown
    }

    /// Answers one more origin (or another user for it), or forgets
    /// origins. Says which origins are answered now.
    pub fn set_credentials(&self, change: CredentialsChange) -> Result<Value, ToolError> {
        let mut kept = self.credentials.borrow_mut();
        let origin = match change {
            CredentialsChange::Answer(credentials) => {
                let origin = credentials.origin.clone();
                kept.retain(|c| c.origin != origin);
                if kept.len() >= MAX_CREDENTIALS {
                    return Err(ToolError::invalid_params(format!(
                        "credentials are kept for at most {MAX_CREDENTIALS} origins; forget one first (set_credentials with its origin and no user)"
                    )));
                }
                kept.push(credentials);
                Some(origin)
            }
            CredentialsChange::Forget(Some(origin)) => {
                kept.retain(|c| c.origin != origin);
                None
            }
            CredentialsChange::Forget(None) => {
                kept.clear();
                None
            }
        };
        let origins: Vec<&str> = kept.iter().map(|c| c.origin.as_str()).collect();
        Ok(json!({"credentials": origin.is_some(), "origin": origin, "origins": origins}))
    }

    /// Sends every request through a proxy that refuses (offline) or the
    /// start-up one (online again), and has pages see it: navigator.onLine
    /// in documents loaded from now on, offline or online events in every
    /// frame of `views` (every tab) when it changes.
    pub fn set_offline(&self, views: &[WebView], offline: bool) -> Result<Value, ToolError> {
        let manager = data_manager(views)?;
        let changed = self.offline.replace(offline) != offline;
        self.apply_proxy(&manager);
        if changed {
            let old = self.offline_script();
            let new = offline_script(offline);
            for view in views {
                if let Some(scripts) = view.user_content_manager() {
                    scripts.remove_script(&old);
                    scripts.add_script(&new);
                }
                crate::browser::page::script::tell(view, &Network { offline });
            }
            *self.offline_script.borrow_mut() = Some(new);
        }
        Ok(json!({"offline": offline}))
    }

    /// Sends the context's requests (`views`: its tabs) through the
    /// routing proxy from now on (unless offline: then once back online).
    pub fn route_through(
        &self,
        views: &[WebView],
        access: ProxyAccess,
    ) -> Result<Value, ToolError> {
        if self.start_proxy.is_some() {
            return Err(ToolError::new(
                ErrorCode::Unsupported,
                "routes do not work beside the proxy the browser was started with (--proxy)",
            ));
        }
        let manager = data_manager(views)?;
        let proxy = access.url();
        *self.route_proxy.borrow_mut() = Some(access);
        self.apply_proxy(&manager);
        Ok(json!({"proxy": proxy}))
    }

    /// Sends the context's requests straight to the sites again (or to the
    /// start-up proxy): its last route went.
    pub fn stop_routing(&self, views: &[WebView]) -> Result<Value, ToolError> {
        // A context without a tab has no engine to tell yet: its next tab
        // takes the settings as they are now.
        if self.route_proxy.borrow_mut().take().is_some() {
            if let Ok(manager) = data_manager(views) {
                self.apply_proxy(&manager);
            }
        }
        Ok(json!({"proxy": null}))
    }

    /// Where the context's requests go now: nowhere (offline), the
    /// routing proxy, the start-up proxy, or straight to sites.
    pub fn apply_proxy(&self, manager: &WebsiteDataManager) {
        let routed = self.route_proxy.borrow().as_ref().map(ProxyAccess::url);
        let proxy = match self.offline.get() {
            true => Some(OFFLINE_PROXY.to_string()),
            false => routed.or_else(|| self.start_proxy.clone()),
        };
        match proxy {
            Some(proxy) => {
                let mut settings = webkit2gtk::NetworkProxySettings::new(Some(&proxy), &[]);
                manager.set_network_proxy_settings(
                    webkit2gtk::NetworkProxyMode::Custom,
                    Some(&mut settings),
                );
            }
            None => manager.set_network_proxy_settings(webkit2gtk::NetworkProxyMode::Default, None),
        }
    }

    /// Has every tab of the context (`views`) send and show this
    /// User-Agent (none: WebKit's own); answers what pages now read.
    pub fn set_user_agent(&self, views: &[WebView], agent: Option<String>) -> Value {
        for view in views {
            if let Some(settings) = webkit2gtk::WebViewExt::settings(view) {
                settings.set_user_agent(agent.as_deref());
            }
        }
        *self.user_agent.borrow_mut() = agent;
        let shown = views
            .first()
            .and_then(webkit2gtk::WebViewExt::settings)
            .and_then(|s| s.user_agent())
            .map(|ua| ua.to_string());
        json!({"user_agent": shown})
    }

    /// Has pages asked in `locale` (Accept-Language) and reading it
    /// (navigator.language, in documents loaded from now on); none: the
    /// system's languages. WebKit keeps these languages for the whole
    /// process (`webkit_web_context_set_preferred_languages` overrides
    /// them globally), so every context gets them, not only this one.
    pub fn set_locale(
        &self,
        views: &[WebView],
        locale: Option<String>,
    ) -> Result<Value, ToolError> {
        let session = views
            .first()
            .and_then(|view| view.context())
            .ok_or_else(|| ToolError::internal("the context has no tab"))?;
        match &locale {
            Some(locale) => session.set_preferred_languages(&[locale.as_str()]),
            // WebKit keeps an override it was given: give back the system's.
            None => {
                let system = system_languages();
                let system: Vec<&str> = system.iter().map(String::as_str).collect();
                session.set_preferred_languages(&system);
            }
        }
        Ok(json!({"locale": locale, "shared": true}))
    }

    /// Gives pages of the context this position (none: no position, and
    /// they are refused it again); pages watching it hear of it at once.
    pub fn set_geolocation(
        &self,
        views: &[WebView],
        position: Option<Position>,
    ) -> Result<Value, ToolError> {
        if views.is_empty() {
            return Err(ToolError::internal("the context has no tab"));
        }
        self.geolocation.set(position);
        if let Some(manager) = self.geolocation_manager.borrow().as_ref() {
            match position {
                Some(position) => manager.update_position(&mut webkit_position(position)),
                None => manager.failed("the position is no longer given"),
            }
        }
        Ok(match position {
            Some(p) => json!({
                "geolocation": {"latitude": p.latitude, "longitude": p.longitude, "accuracy": p.accuracy},
                "permission": "granted",
            }),
            None => json!({"geolocation": null, "permission": "denied"}),
        })
    }

    /// What agents set for the context, in a new tab of it: its
    /// User-Agent, and the geolocation permission while a position is set.
    pub fn emulate_in(self: &Rc<Self>, view: &WebView) {
        if let (Some(agent), Some(settings)) = (
            self.user_agent.borrow().as_deref(),
            webkit2gtk::WebViewExt::settings(view),
        ) {
            settings.set_user_agent(Some(agent));
        }
        let me = Rc::downgrade(self);
        view.connect_permission_request(move |_, request| {
            let given = me.upgrade().and_then(|me| me.geolocation.get()).is_some();
            if given && request.is::<GeolocationPermissionRequest>() {
                request.allow();
                return true;
            }
            // Anything else: WebKit's own answer (refused).
            false
        });
    }

    /// Provides the context's positions: the one agents set, else none.
    /// A document keeps the permission it was given, so one that asks
    /// after the position was cleared fails here rather than reaching the
    /// machine's own location. Done once, with the context's first tab.
    pub fn hook_geolocation(self: &Rc<Self>, view: &WebView) {
        let Some(manager) = view.context().and_then(|c| c.geolocation_manager()) else {
            return;
        };
        let me = Rc::downgrade(self);
        manager.connect_start(move |manager| {
            match me.upgrade().and_then(|me| me.geolocation.get()) {
                Some(position) => manager.update_position(&mut webkit_position(position)),
                None => manager.failed("no position is given"),
            }
            true
        });
        *self.geolocation_manager.borrow_mut() = Some(manager);
    }

    /// Has documents of the context loaded from now on (`views`: its tabs)
    /// see this time zone; none: the machine's.
    pub fn set_timezone(&self, views: &[WebView], zone: Option<String>) -> Value {
        *self.timezone.borrow_mut() = zone.clone();
        self.renew_emulation(views);
        json!({"timezone": zone})
    }

    /// Has documents of the context loaded from now on see this device's
    /// screen, pixel ratio and touch; none: this machine's.
    pub fn set_device_look(&self, views: &[WebView], look: Option<DeviceLook>) -> Value {
        self.device_look.set(look);
        self.renew_emulation(views);
        json!({"device": look})
    }

    /// The script that emulates what agents set, for a new tab.
    pub fn emulation_script(&self) -> Option<UserScript> {
        self.emulation_script.borrow().clone()
    }

    /// Replaces the emulation script of every tab with one for what is
    /// set now (none when nothing is).
    fn renew_emulation(&self, views: &[WebView]) {
        let new = emulation_script(self.timezone.borrow().as_deref(), self.device_look.get());
        let old = self.emulation_script.replace(new.clone());
        for view in views {
            let Some(scripts) = view.user_content_manager() else {
                continue;
            };
            if let Some(old) = &old {
                scripts.remove_script(old);
            }
            if let Some(new) = &new {
                scripts.add_script(new);
            }
        }
    }

    /// The script that gives a tab's documents navigator.onLine.
    pub fn offline_script(&self) -> UserScript {
        self.offline_script
            .borrow_mut()
            .get_or_insert_with(|| offline_script(self.offline.get()))
            .clone()
    }

    /// Hooks one tab's view: answers to its authentication challenges.
    pub fn connect(self: &Rc<Self>, view: &WebView, state: &Rc<TabState>) {
        let me = self.clone();
        let state = state.clone();
        view.connect_authenticate(move |view, request| {
            if let Some(access) = me.routing_challenge(request) {
                // The routing proxy asks the engine for this run's credential.
                let credential = (!request.is_retry()).then(|| {
                    webkit2gtk::Credential::new(
                        &access.0,
                        &access.1,
                        webkit2gtk::CredentialPersistence::ForSession,
                    )
                });
                authenticate(request, credential.as_ref());
                return true;
            }
            // Only the site they were given for, never a proxy or another site.
            let origin = request_origin(request).filter(|_| !request.is_for_proxy());
            let theirs = origin.and_then(|origin| {
                let kept = me.credentials.borrow();
                kept.iter().find(|c| c.origin == origin).cloned()
            });
            let Some(SiteCredentials { user, password, .. }) = theirs else {
                // WebKit asks the person; an agent waiting on the load hears why.
                let host = request.host().map(|h| h.to_string()).unwrap_or_default();
                let realm = request.realm().map(|r| r.to_string()).unwrap_or_default();
                let asked = format!("{host} (realm {realm:?})");
                state.auth_asked(asked.clone());
                state.publish(view);
                // The prompt over the page ends when the person answers or
                // closes it; a later prompt of the tab is its own.
                let ended = {
                    let (state, view) = (Rc::downgrade(&state), view.downgrade());
                    Rc::new(move || {
                        let (Some(state), Some(view)) = (state.upgrade(), view.upgrade()) else {
                            return;
                        };
                        if state.auth_ended(&asked) {
                            state.publish(&view);
                        }
                    })
                };
                let on_cancel = ended.clone();
                request.connect_cancelled(move |_| on_cancel());
                request.connect_authenticated(move |_, _| ended());
                return false;
            };
            // Refused credentials are not sent again: the site's own answer shows.
            let credential = (!request.is_retry()).then(|| {
                webkit2gtk::Credential::new(
                    &user,
                    &password,
                    webkit2gtk::CredentialPersistence::ForSession,
                )
            });
            authenticate(request, credential.as_ref());
            true
        });
    }

    /// The routing proxy's user and password, when it is the proxy asking.
    fn routing_challenge(
        &self,
        request: &webkit2gtk::AuthenticationRequest,
    ) -> Option<(String, Zeroizing<String>)> {
        let kept = self.route_proxy.borrow();
        let access = kept.as_ref().filter(|_| request.is_for_proxy())?;
        let host = request.host()?;
        let ours = host.parse::<std::net::IpAddr>().ok() == Some(access.addr.ip())
            && request.port() == u32::from(access.addr.port());
        ours.then(|| (access.user.clone(), access.password.clone()))
    }

    /// Loads `url` in `view`, with the agent's extra headers when there
    /// are any. WebKit offers no hook to change the requests a page makes
    /// (links, forms, frames, sub-resources) from here, so only the
    /// navigations the browser starts carry them. Answers whether it added
    /// any.
    pub fn load(&self, view: &WebView, url: &str) -> bool {
        let headers = self.headers.borrow();
        if headers.is_empty() {
            view.load_uri(url);
            return false;
        }
        view.load_request(&self.request(url, &headers, false));
        true
    }

    /// Loads `url` again as a new GET carrying exactly the headers set now
    /// (none after `{}`), past the cache as a reload goes: for a page whose
    /// last load carried headers that have changed since, which repeating
    /// its request would send again. Answers whether it added any.
    pub fn reload_fresh(&self, view: &WebView, url: &str) -> bool {
        let headers = self.headers.borrow();
        view.load_request(&self.request(url, &headers, true));
        !headers.is_empty()
    }

    fn request(&self, url: &str, headers: &[(String, String)], fresh: bool) -> URIRequest {
        let request = URIRequest::new(url);
        if let Some(sent) = request.http_headers() {
            if fresh {
                // What WebKit's own reload past the cache asks of caches.
                sent.replace("Cache-Control", "no-cache");
                sent.replace("Pragma", "no-cache");
            }
            for (name, value) in headers.iter() {
                sent.replace(name, value);
            }
        }
        request
    }

    /// Whether a page of the history may have been loaded with extra
    /// headers: going back or forward may repeat its request as it was.
    pub fn headers_ever_set(&self) -> bool {
        self.headers_ever.get()
    }

    /// Whether navigations the browser starts carry extra headers.
    pub fn has_headers(&self) -> bool {
        !self.headers.borrow().is_empty()
    }
}

/// The system's languages as WebKit takes them (de-DE, not de_DE.UTF-8).
fn system_languages() -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for name in glib::language_names() {
        let tag = name
            .split(['.', '@'])
            .next()
            .unwrap_or_default()
            .replace('_', "-");
        if !tag.is_empty() && !out.contains(&tag) {
            out.push(tag);
        }
    }
    out
}

fn webkit_position(position: Position) -> GeolocationPosition {
    let mut made =
        GeolocationPosition::new(position.latitude, position.longitude, position.accuracy);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    made.set_timestamp(now);
    made
}

/// Answers an authentication request with a credential (none: cancel,
/// which shows the server's own answer).
fn authenticate(
    request: &webkit2gtk::AuthenticationRequest,
    credential: Option<&webkit2gtk::Credential>,
) {
    let raw = credential.map_or(std::ptr::null_mut(), |c| {
        ToGlibPtr::<*const webkit2gtk::ffi::WebKitCredential>::to_glib_none(c).0 as *mut _
    });
    // SAFETY: a live request and a credential (or none) WebKit copies;
    // the binding lacks this call.
    unsafe {
        webkit2gtk::ffi::webkit_authentication_request_authenticate(request.to_glib_none().0, raw);
    }
}

/// The website data of a context, from one of its tabs.
/// Calls `then` once the context's network process has handled what was
/// sent to it before (its proxy settings): WebKit sends them without an
/// answer, and a request a page makes at once could still go out the old
/// way. A question to the same process on the same connection (the cookie
/// policy) is answered only after; a context without a tab, or a process
/// that cannot answer, calls `then` at once.
pub fn after_network_process(views: &[WebView], then: impl FnOnce() + 'static) {
    use webkit2gtk::{CookieManagerExt as _, WebsiteDataManagerExt as _};
    match data_manager(views).ok().and_then(|m| m.cookie_manager()) {
        Some(cookies) => cookies.accept_policy(None::<&gio::Cancellable>, move |_| then()),
        None => then(),
    }
}

fn data_manager(views: &[WebView]) -> Result<WebsiteDataManager, ToolError> {
    views
        .first()
        .and_then(|view| view.website_data_manager())
        .ok_or_else(|| ToolError::internal("the context has no tab to reach its data manager"))
}

fn offline_script(offline: bool) -> UserScript {
    let state = if offline { "true" } else { "false" };
    page_world_script(&OFFLINE_SOURCE.replace("__SOVEREIGN_OFFLINE__", state))
}

/// A script every frame's document runs at its start, in the page's world.
fn page_world_script(source: &str) -> UserScript {
    UserScript::new(
        source,
        UserContentInjectedFrames::AllFrames,
        UserScriptInjectionTime::Start,
        &[],
        &[],
    )
}

/// The page-world script for a time zone and a device, if either is set;
/// each value goes in as JSON, which is a JavaScript literal.
fn emulation_script(zone: Option<&str>, look: Option<DeviceLook>) -> Option<UserScript> {
    let mut source = String::new();
    if let Some(zone) = zone {
        let literal = Value::from(zone).to_string();
        source.push_str(&TIMEZONE_SOURCE.replace("__SOVEREIGN_TIMEZONE__", &literal));
    }
    if let Some(look) = look {
        let literal = serde_json::to_string(&look).unwrap_or_else(|_| "null".into());
        source.push_str(&DEVICE_SOURCE.replace("__SOVEREIGN_DEVICE__", &literal));
    }
    (!source.is_empty()).then(|| page_world_script(&source))
}

/// The origin that asks, written as `address::origin_of` writes origins.
fn request_origin(request: &webkit2gtk::AuthenticationRequest) -> Option<String> {
    let origin = request.security_origin()?;
    let host = origin.host()?;
    let host = if host.contains(':') {
        format!("[{host}]")
    } else {
        host.to_string()
    };
    let port = match origin.port() {
        0 => String::new(),
        port => format!(":{port}"),
    };
    crate::address::origin_of(&format!("{}://{host}{port}", origin.protocol()?))
}

#[cfg(test)]
pub(crate) mod ffi_edges {
    use super::*;
    use crate::browser::webkit::ffi_harness::spin_until;
    use std::io::{Read as _, Write as _};
    use std::time::Duration;

    /// A site on loopback that asks every request for a password, and
    /// welcomes the one `agent:s3cret` answers with.
    fn guarded_site() -> u16 {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
        let port = listener.local_addr().expect("bound").port();
        std::thread::spawn(move || {
            for stream in listener.incoming().take(16) {
                let Ok(mut stream) = stream else { continue };
                let mut head = [0u8; 4096];
                let n = stream.read(&mut head).unwrap_or(0);
                let head = String::from_utf8_lossy(&head[..n]);
                let answer = if head.contains("Authorization: Basic YWdlbnQ6czNjcmV0") {
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 31\r\nConnection: close\r\n\r\n<title>welcome</title>welcome!"
                } else {
                    "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"edges\"\r\nContent-Type: text/html\r\nContent-Length: 29\r\nConnection: close\r\n\r\n<title>refused</title>refused"
                };
                let _ = stream.write_all(answer.as_bytes());
            }
        });
        port
    }

    /// The title the page shows once `answer` answered its challenge.
    fn answered_with(port: u16, answer: Option<(&'static str, &'static str)>) -> String {
        let context = webkit2gtk::WebContext::new_ephemeral();
        let view = WebView::with_context(&context);
        let asked = std::rc::Rc::new(std::cell::Cell::new(0));
        let count = asked.clone();
        view.connect_authenticate(move |_, request| {
            count.set(count.get() + 1);
            let credential = answer
                .filter(|_| !request.is_retry())
                .map(|(user, password)| {
                    webkit2gtk::Credential::new(
                        user,
                        password,
                        webkit2gtk::CredentialPersistence::None,
                    )
                });
            authenticate(request, credential.as_ref());
            // A second answer to the same request changes nothing.
            authenticate(request, None);
            true
        });
        view.load_uri(&format!("http://127.0.0.1:{port}/"));
        let mut title = String::new();
        spin_until(Duration::from_secs(20), || {
            title = view.title().map(|t| t.to_string()).unwrap_or_default();
            !view.is_loading() && !title.is_empty()
        });
        assert!(asked.get() >= 1, "the site asked");
        title
    }

    pub fn run() {
        let port = guarded_site();
        // No credential (NULL): the site's own refusal shows.
        assert_eq!(answered_with(port, None), "refused");
        assert_eq!(answered_with(port, Some(("agent", "s3cret"))), "welcome");
    }
}
