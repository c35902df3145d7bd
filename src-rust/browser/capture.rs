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

/// The whole window, chrome included, as PNG (what a person sees).
pub fn window_png(window: &gtk::ApplicationWindow) -> Result<Vec<u8>, ToolError> {
    use gdk::prelude::WindowExtManual;
    use gtk::prelude::WidgetExt;
    let gdk_window = window
        .window()
        .ok_or_else(|| ToolError::internal("the window is not shown"))?;
    let (width, height) = (gdk_window.width(), gdk_window.height());
    let pixbuf = gdk_window
        .pixbuf(0, 0, width, height)
        .ok_or_else(|| ToolError::internal("cannot read the window's pixels"))?;
    pixbuf
        .save_to_bufferv("png", &[])
        .map_err(|e| ToolError::internal(format!("PNG encoding failed: {e}")))
}
