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
    axum::extract::State(app): axum::extract::State<std::sync::Arc<crate::app::App>>,
    ws: axum::extract::ws::WebSocketUpgrade,
) -> Response {
    ws.max_message_size(super::MAX_BODY)
        .on_upgrade(move |socket| {
            super::agent::connection(app, socket, super::sessions::Transport::Panel)
        })
}

pub async fn index() -> Response {
    file("index.html")
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
