//! Routes: agents block, mock or change a context's requests. A context
//! with routes sends its requests through the browser's own proxy on
//! loopback (`proxy`), which answers them by the context's routes or
//! passes them on (`upstream`). Only the browser's engine knows the
//! proxy's per-run credential, and each context's user name says whose
//! routes apply, so neither another local user nor a page can use it.
//!
//! WebKitGTK offers no request interception in the browser process; the
//! web process's `send-request` can only cancel or redirect, and a URI
//! scheme handler changes the URL the page sees. A proxy answers as the
//! server would, for every request type, with the page's CORS rules
//! deciding on the route's headers.

mod droppable;
pub mod har;
pub mod proxy;
mod reply;
pub mod rule;
mod tls;
mod upstream;

use crate::base::context::{ContextId, DEFAULT_CONTEXT};
use crate::base::error::ToolError;
use futures_util::future::BoxFuture;
use rule::{Action, Asked, Route, RouteSpec};
use serde_json::Value;
use std::collections::{HashMap, HashSet, VecDeque};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;
use zeroize::Zeroizing;

/// Routes a context holds at most.
pub const MAX_ROUTES: usize = 200;
/// Bytes a context's routes keep (bodies and headers) at most.
pub const MAX_BYTES: usize = 64 << 20;
/// Routed requests remembered per context, for the network log's `routed`.
const RECENT: usize = 1000;
/// Sites whose acceptance is remembered, at most (past it, asked again).
const TRUSTED_MAX: usize = 10_000;
/// The proxy's user names: this prefix and the context's id.
const USER_PREFIX: &str = "context-";

/// Every context's routes, and the proxy that applies them.
pub struct Routing {
    state: Mutex<State>,
    /// Where the proxy listens, once a route made it start.
    listening: tokio::sync::OnceCell<SocketAddr>,
    /// The engine's password for the proxy, made for this run.
    password: Zeroizing<String>,
    /// Sites' certificates for https inside `CONNECT` (none: tunnels).
    certificates: Result<tls::Certificates, tls::TlsError>,
    /// Tells a context's engine to accept a site's certificate.
    trust_site: OnceLock<TrustSite>,
    /// Whether the person holds a context now (agents paused, or a request
    /// for the person waits on one of its tabs): its routes answer nothing.
    held: OnceLock<Held>,
    /// Bumped when a context's routes or the person's yes change (the panel).
    changes: tokio::sync::watch::Sender<u64>,
    /// Held while routes are added or removed with the engine's proxy
    /// settings following them, so that they never disagree.
    turn: tokio::sync::Mutex<()>,
}

/// Whether the person holds a context now.
pub type Held = Box<dyn Fn(ContextId) -> bool + Send + Sync>;

/// Has a context's engine accept the proxy's certificate (PEM) for a
/// site (host), before the engine meets it; the browser's error if not.
pub type TrustSite = Box<
    dyn Fn(ContextId, String, String) -> BoxFuture<'static, Result<(), ToolError>> + Send + Sync,
>;

#[derive(Default)]
struct State {
    next_id: u64,
    tables: HashMap<ContextId, Table>,
    /// Contexts whose engine sends its requests through the proxy.
    engaged: HashSet<ContextId>,
    /// Sites whose certificate a context's engine accepts.
    trusted: HashSet<(ContextId, String)>,
    /// The person let agents route their own context's requests (the panel).
    persons_yes: bool,
}

#[derive(Default)]
struct Table {
    routes: Vec<Route>,
    bytes: usize,
    /// Requests a route answered or changed, oldest first.
    recent: VecDeque<Routed>,
}

struct Routed {
    method: String,
    url: String,
    route: u64,
}

/// What a context's engine needs to send its requests through the proxy.
pub struct ProxyAccess {
    pub addr: SocketAddr,
    pub user: String,
    pub password: Zeroizing<String>,
}

impl ProxyAccess {
    /// The proxy as the engine's settings name it.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }
}

impl std::fmt::Debug for ProxyAccess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ProxyAccess({}, {})", self.addr, self.user)
    }
}

/// What the proxy does with a request a route took.
pub struct Decision {
    pub route: u64,
    pub action: Outcome,
    pub delay: Duration,
}

/// A route's answer to one request.
pub enum Outcome {
    /// Fail it as a network error.
    Abort,
    Fulfill(rule::Reply),
    Continue(rule::Change),
}

impl Outcome {
    pub fn name(&self) -> &'static str {
        match self {
            Outcome::Abort => "abort",
            Outcome::Fulfill(_) => "fulfill",
            Outcome::Continue(_) => "continue",
        }
    }
}

impl Routing {
    pub fn new() -> Arc<Routing> {
        Arc::new(Routing {
            state: Mutex::default(),
            listening: tokio::sync::OnceCell::new(),
            password: Zeroizing::new(crate::profile::random_hex(32)),
            certificates: tls::Certificates::new(),
            trust_site: OnceLock::new(),
            held: OnceLock::new(),
            changes: tokio::sync::watch::channel(0).0,
            turn: tokio::sync::Mutex::new(()),
        })
    }

    /// The turn to change routes and the engine's proxy settings together.
    pub async fn turn(&self) -> tokio::sync::MutexGuard<'_, ()> {
        self.turn.lock().await
    }

    /// The turn, now, if nobody has it (the main thread cannot wait).
    pub fn try_turn(&self) -> Option<tokio::sync::MutexGuard<'_, ()>> {
        self.turn.try_lock().ok()
    }

    /// How the routes learn that the person holds a context.
    pub fn set_held(&self, held: Held) {
        let _ = self.held.set(held);
    }

    fn held(&self, context: ContextId) -> bool {
        self.held.get().is_some_and(|held| held(context))
    }

    /// Whether the person lets agents route the requests of their own
    /// context (the default one).
    pub fn persons_yes(&self) -> bool {
        self.lock().persons_yes
    }

    /// The person's yes or no for routes in their own context; a no takes
    /// away the routes agents made there (how many).
    pub fn set_persons_yes(&self, yes: bool) -> usize {
        self.lock().persons_yes = yes;
        let removed = match yes {
            true => 0,
            false => self.clear(DEFAULT_CONTEXT),
        };
        self.changed();
        removed
    }

    /// Follows changes of routes and of the person's yes.
    pub fn watch(&self) -> tokio::sync::watch::Receiver<u64> {
        self.changes.subscribe()
    }

    fn changed(&self) {
        self.changes.send_modify(|v| *v += 1);
    }

    /// How the browser has a context's engine accept a site's certificate;
    /// without it, https passes through the proxy as it is.
    pub fn set_trust_site(&self, trust: TrustSite) {
        let _ = self.trust_site.set(trust);
    }

    /// Whether https inside `CONNECT` is answered by the proxy.
    fn intercepts(&self) -> bool {
        self.certificates.is_ok() && self.trust_site.get().is_some()
    }

    /// Has `context`'s engine accept `pem` for `host`, once.
    async fn trust(&self, context: ContextId, host: &str, pem: &str) -> Result<(), tls::TlsError> {
        let key = (context, host.to_string());
        if self.lock().trusted.contains(&key) {
            return Ok(());
        }
        let trust = self.trust_site.get().ok_or(tls::TlsError::NoEngine)?;
        trust(context, host.to_string(), pem.to_string())
            .await
            .map_err(tls::TlsError::NotAccepted)?;
        let mut state = self.lock();
        if state.trusted.len() >= TRUSTED_MAX {
            state.trusted.clear();
        }
        state.trusted.insert(key);
        Ok(())
    }

    /// The proxy's address, if it started.
    pub fn address(&self) -> Option<SocketAddr> {
        self.listening.get().copied()
    }

    /// The user name and password the engine answers the proxy with for
    /// `context`'s requests.
    pub fn credential(&self, context: ContextId) -> (String, Zeroizing<String>) {
        (format!("{USER_PREFIX}{context}"), self.password.clone())
    }

    /// Where and how `context`'s engine reaches the proxy, once it started.
    pub fn access(&self, context: ContextId) -> Option<ProxyAccess> {
        let (user, password) = self.credential(context);
        Some(ProxyAccess {
            addr: self.address()?,
            user,
            password,
        })
    }

    /// The context a proxy user and password stand for.
    fn context_of(&self, user: &str, password: &str) -> Option<ContextId> {
        let context = user.strip_prefix(USER_PREFIX)?.parse().ok()?;
        let right: bool =
            subtle::ConstantTimeEq::ct_eq(password.as_bytes(), self.password.as_bytes()).into();
        right.then_some(context)
    }

    /// Adds a route to `context`'s; the newest route that takes a request
    /// answers it.
    pub fn add(&self, context: ContextId, spec: RouteSpec) -> Result<Value, ToolError> {
        let mut state = self.lock();
        state.next_id += 1;
        let id = state.next_id;
        let table = state.tables.entry(context).or_default();
        let bytes = spec.action.bytes();
        // A spent route (its `times` used up) takes no request any more:
        // the oldest make room before the bounds refuse a new one.
        while table.routes.len() >= MAX_ROUTES || table.bytes + bytes > MAX_BYTES {
            let Some(at) = table.routes.iter().position(Route::spent) else {
                break;
            };
            let spent = table.routes.remove(at);
            table.bytes -= spent.spec.action.bytes();
        }
        if table.routes.len() >= MAX_ROUTES {
            return Err(ToolError::invalid_params(format!(
                "a context holds at most {MAX_ROUTES} routes; network_unroute some first"
            )));
        }
        if table.bytes + bytes > MAX_BYTES {
            return Err(ToolError::invalid_params(format!(
                "a context's routes keep at most {} MiB of bodies and headers; network_unroute some first",
                MAX_BYTES >> 20
            )));
        }
        table.bytes += bytes;
        let route = Route {
            id,
            spec,
            matched: 0,
        };
        let summary = route.summary();
        table.routes.push(route);
        drop(state);
        self.changed();
        Ok(summary)
    }

    /// Removes one route; whether it was there.
    pub fn remove(&self, context: ContextId, id: u64) -> bool {
        let mut state = self.lock();
        let Some(table) = state.tables.get_mut(&context) else {
            return false;
        };
        let Some(at) = table.routes.iter().position(|r| r.id == id) else {
            return false;
        };
        let route = table.routes.remove(at);
        table.bytes -= route.spec.action.bytes();
        drop(state);
        self.changed();
        true
    }

    /// Removes every route of `context`; how many there were.
    pub fn clear(&self, context: ContextId) -> usize {
        let mut state = self.lock();
        let Some(table) = state.tables.get_mut(&context) else {
            return 0;
        };
        table.bytes = 0;
        let removed = std::mem::take(&mut table.routes).len();
        drop(state);
        self.changed();
        removed
    }

    /// A closed context's routes go with it.
    pub fn forget(&self, context: ContextId) {
        let mut state = self.lock();
        state.tables.remove(&context);
        state.engaged.remove(&context);
        state.trusted.retain(|(c, _)| *c != context);
    }

    /// Whether `context`'s engine sends its requests through the proxy.
    pub fn engaged(&self, context: ContextId) -> bool {
        self.lock().engaged.contains(&context)
    }

    pub fn set_engaged(&self, context: ContextId, engaged: bool) {
        let mut state = self.lock();
        match engaged {
            true => state.engaged.insert(context),
            false => state.engaged.remove(&context),
        };
        drop(state);
        self.changed();
    }

    /// The contexts whose engine sends its requests through the proxy.
    pub fn engaged_contexts(&self) -> Vec<ContextId> {
        let mut out: Vec<ContextId> = self.lock().engaged.iter().copied().collect();
        out.sort_unstable();
        out
    }

    /// Every context's routes, by context, for the person's panel.
    pub fn all(&self) -> Vec<(ContextId, Vec<Value>)> {
        let state = self.lock();
        let mut out: Vec<(ContextId, Vec<Value>)> = state
            .tables
            .iter()
            .filter(|(_, t)| !t.routes.is_empty())
            .map(|(c, t)| (*c, t.routes.iter().map(Route::summary).collect()))
            .collect();
        out.sort_by_key(|(c, _)| *c);
        out
    }

    /// `context`'s routes, oldest first.
    pub fn list(&self, context: ContextId) -> Vec<Value> {
        let state = self.lock();
        let routes = state.tables.get(&context).map(|t| &t.routes[..]);
        routes
            .unwrap_or_default()
            .iter()
            .map(Route::summary)
            .collect()
    }

    /// Whether `context` has a route now.
    pub fn has_routes(&self, context: ContextId) -> bool {
        let state = self.lock();
        state
            .tables
            .get(&context)
            .is_some_and(|t| !t.routes.is_empty())
    }

    /// The route that takes this request, counted, and remembered for
    /// the log.
    fn pick(&self, context: ContextId, asked: &Asked) -> Option<Decision> {
        // While the person holds the context, its pages are theirs: no
        // agent's route answers for the sites.
        if self.held(context) {
            return None;
        }
        let mut state = self.lock();
        let table = state.tables.get_mut(&context)?;
        let decision = table.routes.iter_mut().rev().find_map(|route| {
            if !route.takes(asked) {
                return None;
            }
            let action = match &route.spec.action {
                Action::Abort(_) => Outcome::Abort,
                Action::Fulfill(reply) => Outcome::Fulfill(reply.clone()),
                Action::Continue(change) => Outcome::Continue(change.clone()),
                Action::Har(replay) => match replay.archive.find(asked.method, asked.url) {
                    Some(reply) => Outcome::Fulfill(reply.clone()),
                    // Not in the file: an older route, or the network.
                    None if replay.pass_unknown => return None,
                    None => Outcome::Abort,
                },
            };
            route.matched += 1;
            Some(Decision {
                route: route.id,
                action,
                delay: route.spec.delay,
            })
        })?;
        if table.recent.len() >= RECENT {
            table.recent.pop_front();
        }
        table.recent.push_back(Routed {
            method: asked.method.to_string(),
            url: asked.url.to_string(),
            route: decision.route,
        });
        Some(decision)
    }

    /// The route that answered or changed this request of `context`, if
    /// one did (each routed request is told once, oldest first).
    pub fn take_routed(&self, context: ContextId, method: &str, url: &str) -> Option<u64> {
        let mut state = self.lock();
        let recent = &mut state.tables.get_mut(&context)?.recent;
        let at = recent
            .iter()
            .position(|r| r.method == method && r.url == url)?;
        recent.remove(at).map(|r| r.route)
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::rule::{AbortReason, RouteSpec};
    use super::*;
    use crate::base::url_pattern::UrlPattern;

    fn spec(url: &str) -> RouteSpec {
        RouteSpec {
            url: UrlPattern::parse("url", url).unwrap(),
            url_text: url.into(),
            method: None,
            kind: None,
            action: Action::Abort(AbortReason::Blocked),
            delay: Duration::ZERO,
            times: None,
        }
    }

    fn asked(url: &str) -> Asked<'_> {
        Asked {
            method: "GET",
            url,
            kind: "fetch",
        }
    }

    #[test]
    fn the_newest_route_answers_and_each_context_has_its_own() {
        let routing = Routing::new();
        let old = routing.add(1, spec("**/a")).unwrap()["id"]
            .as_u64()
            .unwrap();
        let new = routing.add(1, spec("**/a")).unwrap()["id"]
            .as_u64()
            .unwrap();
        assert_eq!(
            routing.pick(1, &asked("http://x.test/a")).unwrap().route,
            new
        );
        assert!(routing.pick(2, &asked("http://x.test/a")).is_none());
        assert_eq!(routing.take_routed(1, "GET", "http://x.test/a"), Some(new));
        assert_eq!(
            routing.take_routed(1, "GET", "http://x.test/a"),
            None,
            "told once"
        );
        assert!(routing.remove(1, new));
        assert_eq!(
            routing.pick(1, &asked("http://x.test/a")).unwrap().route,
            old
        );
        assert_eq!(routing.list(1)[0]["matched"], 1);
        assert_eq!(routing.clear(1), 1);
        assert!(!routing.has_routes(1));
    }

    #[test]
    fn a_context_holds_a_bounded_number_of_routes() {
        let routing = Routing::new();
        for _ in 0..MAX_ROUTES {
            routing.add(1, spec("**")).unwrap();
        }
        let refused = routing.add(1, spec("**")).unwrap_err();
        assert!(refused.message.contains("at most"));
    }

    #[test]
    fn spent_routes_make_room_for_new_ones() {
        let routing = Routing::new();
        let once = RouteSpec {
            times: Some(1),
            ..spec("**/once")
        };
        let first = routing.add(1, once).unwrap()["id"].as_u64().unwrap();
        for _ in 1..MAX_ROUTES {
            routing.add(1, spec("**/kept")).unwrap();
        }
        assert!(routing.add(1, spec("**/more")).is_err(), "full, none spent");
        assert!(routing.pick(1, &asked("http://x.test/once")).is_some());
        let added = routing
            .add(1, spec("**/more"))
            .expect("the spent route made room");
        let ids: Vec<u64> = routing
            .list(1)
            .iter()
            .filter_map(|r| r["id"].as_u64())
            .collect();
        assert!(!ids.contains(&first), "the spent route went");
        assert!(ids.contains(&added["id"].as_u64().unwrap()));
        assert_eq!(ids.len(), MAX_ROUTES);
    }

    #[test]
    fn the_credential_names_its_context_and_nothing_else_passes() {
        let routing = Routing::new();
        let (user, password) = routing.credential(7);
        assert_eq!(routing.context_of(&user, &password), Some(7));
        assert_eq!(routing.context_of(&user, "guess"), None);
        assert_eq!(routing.context_of("context-x", &password), None);
    }
}
