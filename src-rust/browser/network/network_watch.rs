//! Feeds a tab's network log (`network`) from WebKit's resource signals:
//! a request's start, each hop it is sent on, its response, its end. The
//! same signals count the requests in flight, for waits on a quiet network.

use crate::base::tab::NetworkChange;
use crate::browser::tab::network_log::{Headers, Started};
use crate::browser::tab::state::TabState;
use glib::object::ObjectExt as _;
use std::cell::Cell;
use std::rc::{Rc, Weak};
use webkit2gtk::{
    URIRequest, URIRequestExt as _, URIResponse, URIResponseExt as _, WebResource,
    WebResourceExt as _, WebView, WebViewExt as _,
};

/// Which route answered or changed a request (method, URL), if one did.
pub type RoutedBy = Rc<dyn Fn(&str, &str) -> Option<u64>>;

/// Records every request of `view`'s pages and frames in `state`.
pub fn watch(view: &WebView, state: &Rc<TabState>, routed: RoutedBy) {
    // Weak: the log keeps WebKit's resources, whose handlers these are.
    let tab = Rc::downgrade(state);
    view.connect_resource_load_started(move |view, resource, request| {
        let Some(state) = tab.upgrade() else { return };
        let main_document = view.main_resource().as_ref() == Some(resource);
        let id = state.requests().start(Started {
            main_document,
            resource: Some(resource.clone()),
            ..started(request, &state)
        });
        attach_form(&state, id);
        state.network_changed(NetworkChange::Started(id));
        follow(
            resource,
            Rc::downgrade(&state),
            Rc::new(Cell::new(id)),
            routed.clone(),
        );
    });
}

/// A document's or frame's POST: what the form its page submitted sent
/// becomes its body.
fn attach_form(state: &TabState, id: u64) {
    let Some((method, url, kind)) = state.requests().awaiting_form(id) else {
        return;
    };
    if method == "POST" && matches!(kind, "document" | "frame") {
        if let Some(form) = state.forms().take_for(&url) {
            state.requests().form_sent(id, form);
        }
    }
}

/// What a request says of itself as it starts, and what its tab's pages
/// hold then that it may carry.
fn started(request: &URIRequest, state: &TabState) -> Started {
    Started {
        method: request
            .http_method()
            .map_or_else(|| "GET".to_string(), |m| m.to_string()),
        url: request.uri().map(|u| u.to_string()).unwrap_or_default(),
        headers: headers(request.http_headers()),
        main_document: false,
        resource: None,
        withheld: state.related().secret_held(),
    }
}

fn headers(headers: Option<soup::MessageHeaders>) -> Headers {
    let mut out = Vec::new();
    if let Some(headers) = headers {
        headers.foreach(|name, value| out.push((name.to_string(), value.to_string())));
    }
    out
}

/// Follows one resource to its end; `id` moves to each redirect's new hop.
fn follow(resource: &WebResource, tab: Weak<TabState>, id: Rc<Cell<u64>>, routed: RoutedBy) {
    // By name: the binding takes the redirect response for never null,
    // and it is null on the first hop.
    let (t, i) = (tab.clone(), id.clone());
    resource.connect_local("sent-request", false, move |values| {
        let state = t.upgrade()?;
        let request = values.get(1)?.get::<URIRequest>().ok()?;
        let redirect = values
            .get(2)
            .and_then(|v| v.get::<Option<URIResponse>>().ok())
            .flatten();
        match redirect {
            Some(response) => {
                let from = i.get();
                let next = state.requests().redirect(
                    from,
                    response.status_code(),
                    headers(response.http_headers()),
                    started(&request, &state),
                );
                i.set(next);
                state.network_changed(NetworkChange::Redirected { from, to: next });
            }
            None => {
                state
                    .requests()
                    .sent(i.get(), headers(request.http_headers()));
                // A frame's document is known as one once its headers are.
                attach_form(&state, i.get());
            }
        }
        None
    });

    let (t, i, r) = (tab.clone(), id.clone(), routed.clone());
    resource.connect_response_notify(move |resource| {
        let (Some(state), Some(response)) = (t.upgrade(), resource.response()) else {
            return;
        };
        state.requests().mark_routed(i.get(), &*r);
        state.requests().response(
            i.get(),
            response.status_code(),
            response.mime_type().map(|m| m.to_string()),
            response.content_length(),
            headers(response.http_headers()),
        );
    });

    // A failed request also reports finished: each ends once.
    let ended = Rc::new(Cell::new(false));
    let (t, i, e) = (tab.clone(), id.clone(), ended.clone());
    resource.connect_failed(move |_, error| {
        let Some(state) = t.upgrade() else { return };
        state.requests().mark_routed(i.get(), &*routed);
        state.requests().fail(i.get(), error.message().to_string());
        if !e.replace(true) {
            state.network_changed(NetworkChange::Ended(i.get()));
        }
    });
    resource.connect_finished(move |_| {
        let Some(state) = tab.upgrade() else { return };
        state.requests().finish(id.get());
        if !ended.replace(true) {
            state.network_changed(NetworkChange::Ended(id.get()));
        }
    });
}
