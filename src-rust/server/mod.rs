//! The HTTP server: `/mcp`, `/agent`, the control panel, and what an
//! orchestrator asks (`/healthz`, `/readyz`, `/metrics`), behind the
//! guards that keep web pages and other hosts out.

pub mod agent;
pub mod body;
pub mod guard;
pub mod health;
pub mod hello;
pub mod jsonrpc;
pub mod mcp;
pub mod panel;
pub mod panel_live;

use crate::tools::app::App;
use axum::extract::DefaultBodyLimit;
use axum::routing::get;
use axum::serve::ListenerExt;
use axum::{middleware, Router};
use body::MAX_BODY;
use std::sync::Arc;
use tokio::net::TcpListener;

pub fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/mcp", get(mcp::get).post(mcp::post).delete(mcp::delete))
        .route("/agent", get(agent::upgrade))
        .route(guard::PANEL_API, get(panel::live))
        .route(guard::HELLO, get(hello::hello))
        .route("/", get(panel::index))
        .route("/panel/{*path}", get(panel::asset))
        .route(guard::HEALTHZ, get(health::healthz))
        .route(guard::READYZ, get(health::readyz))
        .route(guard::METRICS, get(health::metrics))
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .layer(middleware::from_fn_with_state(app.clone(), guard::guard))
        .with_state(app)
}

/// Serves until the process ends. TCP_NODELAY: without it every small
/// SSE reply waits for the peer's delayed ACK (about 40 ms).
pub async fn serve(listener: TcpListener, app: Arc<App>) -> std::io::Result<()> {
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, router(app)).await
}

/// Ends idle MCP sessions from time to time.
pub async fn expire_sessions(app: Arc<App>) {
    let every = (app.sessions.idle_limit() / 4).clamp(
        std::time::Duration::from_millis(250),
        std::time::Duration::from_secs(60),
    );
    loop {
        tokio::time::sleep(every).await;
        app.sessions.expire();
    }
}
