//! The control panel's files, embedded in the binary from `panel-ui/`.

use axum::extract::Path;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use rust_embed::RustEmbed;

#[derive(RustEmbed)]
#[folder = "panel-ui/"]
struct PanelFiles;

/// The panel's WebSocket: tool calls like /agent, plus live pushes. The
/// guard has checked the person's key; the page asked for the panel's
/// subprotocol, which a browser needs to hear back.
pub async fn live(
    axum::extract::State(app): axum::extract::State<std::sync::Arc<crate::tools::app::App>>,
    ws: axum::extract::ws::WebSocketUpgrade,
) -> Response {
    ws.max_message_size(super::body::MAX_BODY)
        .protocols([super::guard::PANEL_PROTOCOL])
        .on_upgrade(move |socket| {
            super::agent::connection(app, socket, crate::base::caller::Transport::Panel)
        })
}

/// The panel page. Opened with the person's key (`/?key=...`, the address
/// the browser prints, or `/#key=...`), its script moves the key into the
/// page's session storage, which belongs to this origin alone (port
/// included), and takes it out of the address bar. The key is never a
/// cookie: a cookie for 127.0.0.1 would go to every other port on it.
/// What an earlier release left in a cookie is cleared here.
pub async fn index(
    axum::extract::State(app): axum::extract::State<std::sync::Arc<crate::tools::app::App>>,
) -> Response {
    let mut response = file("index.html");
    let headers = response.headers_mut();
    let clear = format!(
        "{}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict",
        super::guard::legacy_cookie_name(&app.security)
    );
    if let Ok(value) = header::HeaderValue::from_str(&clear) {
        headers.insert(header::SET_COOKIE, value);
    }
    // The address may carry the key: keep it out of caches and referrers.
    headers.insert(
        header::CACHE_CONTROL,
        header::HeaderValue::from_static("no-store"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        header::HeaderValue::from_static("no-referrer"),
    );
    response
}

pub async fn asset(Path(path): Path<String>) -> Response {
    file(&path)
}

fn file(path: &str) -> Response {
    let Some(found) = PanelFiles::get(path) else {
        return (StatusCode::NOT_FOUND, "no such panel file").into_response();
    };
    let mime = match path.rsplit('.').next() {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        _ => "application/octet-stream",
    };
    (
        [
            (header::CONTENT_TYPE, mime),
            // The panel loads nothing from elsewhere and may not be framed.
            (
                header::CONTENT_SECURITY_POLICY,
                // data: images: the recordings' pictures of pages, read over
                // the panel's own connection (an image runs no script).
                "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
            ),
            (header::X_FRAME_OPTIONS, "DENY"),
        ],
        found.data.into_owned(),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_panel_page_is_embedded() {
        let page = super::PanelFiles::get("index.html").expect("panel-ui/index.html is embedded");
        assert!(std::str::from_utf8(&page.data)
            .unwrap()
            .contains("Sovereign Browser"));
    }
}
