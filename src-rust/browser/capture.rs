//! Screenshots of a tab's visible area as PNG (works for hidden tabs too).

use crate::bridge::{Output, Reply};
use crate::tools::error::ToolError;
use webkit2gtk::WebViewExt as _;
use webkit2gtk::{SnapshotOptions, SnapshotRegion, WebView};

pub fn screenshot(view: &WebView, reply: Reply) {
    view.snapshot(
        SnapshotRegion::Visible,
        SnapshotOptions::NONE,
        None::<&gio::Cancellable>,
        move |result| {
            let png = result
                .map_err(|e| ToolError::internal(format!("screenshot failed: {}", e.message())))
                .and_then(encode_png);
            let _ = reply.send(png.map(Output::Png));
        },
    );
}

fn encode_png(surface: cairo::Surface) -> Result<Vec<u8>, ToolError> {
    let image = cairo::ImageSurface::try_from(surface)
        .map_err(|_| ToolError::internal("the snapshot is not an image surface"))?;
    let mut png = Vec::with_capacity(64 * 1024);
    image
        .write_to_png(&mut png)
        .map_err(|e| ToolError::internal(format!("PNG encoding failed: {e}")))?;
    Ok(png)
}
