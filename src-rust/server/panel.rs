//! The control panel's files, embedded in the binary from `panel-ui/`.

use axum::extract::Path;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use rust_embed::RustEmbed;

#[derive(RustEmbed)]
#[folder = "panel-ui/"]
struct PanelFiles;

/// The panel's WebSocket: tool calls like /agent, plus live pushes.
pub async fn live(
    axum::extract::State(app): axum::extract::State<std::sync::Arc<crate::tools::app::App>>,
    ws: axum::extract::ws::WebSocketUpgrade,
) -> Response {
    ws.max_message_size(super::MAX_BODY)
        .on_upgrade(move |socket| {
            super::agent::connection(app, socket, crate::base::caller::Transport::Panel)
        })
}

/// The panel page. Opened with the person's key (`/?key=...`, the address
/// the browser prints), it keeps the key in an HttpOnly cookie for its
/// connection and sends the browser on to `/`, so the key leaves the
/// address bar and the history and no script of the page ever holds it.
pub async fn index(
    axum::extract::State(app): axum::extract::State<std::sync::Arc<crate::tools::app::App>>,
    axum::extract::RawQuery(query): axum::extract::RawQuery,
) -> Response {
    let given = query.as_deref().and_then(|q| {
        q.split('&')
            .filter_map(|pair| pair.split_once('='))
            .find(|(k, _)| *k == "key")
            .map(|(_, v)| v.to_string())
    });
    let Some(given) = given else {
        return file("index.html");
    };
    if !super::guard::same_secret(&given, &app.security.panel_key) {
        // A wrong key: the page says the browser refuses it.
        return file("index.html");
    }
    let cookie = format!(
        "{}={given}; Path=/; HttpOnly; SameSite=Strict",
        super::guard::panel_cookie_name(&app.security)
    );
    (
        StatusCode::SEE_OTHER,
        [
            (header::SET_COOKIE, cookie),
            (header::LOCATION, "/".to_string()),
            (header::CACHE_CONTROL, "no-store".to_string()),
        ],
    )
        .into_response()
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
                "default-src 'self'; frame-ancestors 'none'",
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
