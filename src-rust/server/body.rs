//! What every route does with what a client sends: the size it may have,
//! and wiping it once read (it may carry a login's secret).

use axum::body::Bytes;

/// Largest request body or WebSocket message accepted.
pub const MAX_BODY: usize = 4 * 1024 * 1024;

/// Zeroes a request body (or /agent message) when we hold the only
/// reference to its bytes. The server's read buffer usually still shares
/// them, and then they stay until it reuses or frees that memory: what is
/// parsed from them is wiped on its own (see `base::secret`).
pub fn wipe(body: Bytes) {
    if let Ok(mut bytes) = body.try_into_mut() {
        zeroize::Zeroize::zeroize(&mut bytes[..]);
    }
}
