//! Screenshots of a tab's visible area as PNG (works for hidden tabs too),
//! optionally with labelled boxes drawn on them, and the page as PDF.

use crate::base::error::{ErrorCode, ToolError};
use crate::bridge::{Mark, Output, Picture, Reply, Shot, ShotArea};
use crate::browser::webkit::expiry::Expiry;
use gtk::prelude::WidgetExt as _;
use serde_json::json;
use std::cell::RefCell;
use std::path::PathBuf;
use std::rc::Rc;
use std::time::Duration;
use webkit2gtk::{PrintOperationExt as _, WebViewExt as _};
use webkit2gtk::{SnapshotOptions, SnapshotRegion, WebView};

pub fn screenshot(view: &WebView, marks: Vec<Mark>, reply: Reply, limit: Duration) {
    visible_area(view, reply, limit, move |surface| {
        encode_png(surface, &marks).map(Output::Png)
    });
}

/// The viewport, the whole page or an element's box, as `shot` says. An
/// element the viewport holds whole is cut from the viewport; a larger one
/// from the whole page.
pub fn picture(view: &WebView, shot: Shot, reply: Reply, limit: Duration) {
    // CSS px to the snapshot's pixels.
    let scale = f64::from(view.scale_factor()) * view.zoom_level();
    let viewport = (
        f64::from(view.allocated_width()) / view.zoom_level(),
        f64::from(view.allocated_height()) / view.zoom_level(),
    );
    let (region, crop) = match shot.area {
        ShotArea::Viewport => (SnapshotRegion::Visible, None),
        ShotArea::Page => (SnapshotRegion::FullDocument, None),
        ShotArea::Element {
            x,
            y,
            width,
            height,
            ..
        } if x >= 0.0 && y >= 0.0 && x + width <= viewport.0 && y + height <= viewport.1 => {
            (SnapshotRegion::Visible, Some((x, y, width, height)))
        }
        ShotArea::Element {
            width,
            height,
            page_x,
            page_y,
            ..
        } => (
            SnapshotRegion::FullDocument,
            Some((page_x, page_y, width, height)),
        ),
    };
    let quality = shot.jpeg_quality;
    snapshot(view, region, reply, limit, move |surface| {
        let crop = crop.map(|(x, y, w, h)| (x * scale, y * scale, w * scale, h * scale));
        encode_picture(surface, crop, quality).map(Output::Picture)
    });
}

/// Cuts `crop` (snapshot pixels) out of the snapshot, and encodes it.
fn encode_picture(
    surface: cairo::Surface,
    crop: Option<(f64, f64, f64, f64)>,
    jpeg_quality: Option<u8>,
) -> Result<Picture, ToolError> {
    let image = cairo::ImageSurface::try_from(surface)
        .map_err(|_| ToolError::internal("the snapshot is not an image surface"))?;
    let (full_w, full_h) = (image.width(), image.height());
    let (x0, y0, x1, y1) = match crop {
        None => (0, 0, full_w, full_h),
        Some((x, y, w, h)) => (
            (x.floor() as i32).clamp(0, full_w),
            (y.floor() as i32).clamp(0, full_h),
            ((x + w).ceil() as i32).clamp(0, full_w),
            ((y + h).ceil() as i32).clamp(0, full_h),
        ),
    };
    let (width, height) = (x1 - x0, y1 - y0);
    if width <= 0 || height <= 0 {
        return Err(ToolError::new(
            ErrorCode::NotInteractable,
            "the element has no area on the page to take",
        ));
    }
    let pixbuf = gdk::pixbuf_get_from_surface(&image, x0, y0, width, height)
        .ok_or_else(|| ToolError::internal("the snapshot could not be read"))?;
    let (data, mime) = match jpeg_quality {
        Some(quality) => {
            let quality = quality.to_string();
            let jpeg = pixbuf.save_to_bufferv("jpeg", &[("quality", quality.as_str())]);
            (jpeg, "image/jpeg")
        }
        None => (pixbuf.save_to_bufferv("png", &[]), "image/png"),
    };
    let data = data.map_err(|e| ToolError::internal(format!("encoding the image failed: {e}")))?;
    Ok(Picture {
        data,
        mime,
        width,
        height,
    })
}

/// Snapshots the visible area (within `limit`) and answers what `encode`
/// makes of it.
fn visible_area(
    view: &WebView,
    reply: Reply,
    limit: Duration,
    encode: impl FnOnce(cairo::Surface) -> Result<Output, ToolError> + 'static,
) {
    snapshot(view, SnapshotRegion::Visible, reply, limit, encode);
}

/// Snapshots `region` (within `limit`) and answers what `encode` makes of it.
fn snapshot(
    view: &WebView,
    region: SnapshotRegion,
    reply: Reply,
    limit: Duration,
    encode: impl FnOnce(cairo::Surface) -> Result<Output, ToolError> + 'static,
) {
    let expiry = Expiry::after(limit);
    let cancellable = expiry.cancellable().clone();
    view.snapshot(
        region,
        SnapshotOptions::NONE,
        Some(&cancellable),
        move |result| {
            drop(expiry);
            let encoded = result
                .map_err(|e| ToolError::internal(format!("screenshot failed: {}", e.message())))
                .and_then(encode);
            let _ = reply.send(encoded);
        },
    );
}

/// Width of a recording's picture of the page, and its JPEG quality.
const THUMBNAIL_WIDTH: f64 = 320.0;
const THUMBNAIL_QUALITY: &str = "60";

/// The visible area, scaled to a recording's picture (a small JPEG).
pub fn thumbnail(view: &WebView, reply: Reply, limit: Duration) {
    visible_area(view, reply, limit, |surface| {
        encode_thumbnail(surface).map(Output::Jpeg)
    });
}

/// Scales the snapshot down with cairo before anything reads its pixels:
/// converting and scaling the full-size picture as a pixbuf held the main
/// thread (and so the next call) for about 14 ms after each recorded input.
fn encode_thumbnail(surface: cairo::Surface) -> Result<Vec<u8>, ToolError> {
    let image = cairo::ImageSurface::try_from(surface)
        .map_err(|_| ToolError::internal("the snapshot is not an image surface"))?;
    let small = thumbnail_of(image)
        .map_err(|e| ToolError::internal(format!("the picture could not be scaled: {e}")))?;
    let pixbuf = gdk::pixbuf_get_from_surface(&small, 0, 0, small.width(), small.height())
        .ok_or_else(|| ToolError::internal("the snapshot could not be read"))?;
    pixbuf
        .save_to_bufferv("jpeg", &[("quality", THUMBNAIL_QUALITY)])
        .map_err(|e| ToolError::internal(format!("JPEG encoding failed: {e}")))
}

/// `image` at most [`THUMBNAIL_WIDTH`] wide. It is halved (each pixel the
/// mean of four) until one bilinear step is left, which keeps text from
/// breaking into noise the way one large bilinear step would, in about a
/// millisecond where cairo's best filter takes ten.
fn thumbnail_of(mut image: cairo::ImageSurface) -> Result<cairo::ImageSurface, cairo::Error> {
    loop {
        let width = f64::from(image.width().max(1));
        let scale = (THUMBNAIL_WIDTH / width).min(1.0);
        if scale == 1.0 {
            return Ok(image);
        }
        image = scaled(&image, scale.max(0.5))?;
    }
}

/// `image` scaled by `scale` (bilinear) into a new opaque surface.
fn scaled(image: &cairo::ImageSurface, scale: f64) -> Result<cairo::ImageSurface, cairo::Error> {
    let size = |n: i32| (f64::from(n) * scale).round().max(1.0) as i32;
    let small = cairo::ImageSurface::create(
        cairo::Format::Rgb24,
        size(image.width()),
        size(image.height()),
    )?;
    {
        let cr = cairo::Context::new(&small)?;
        cr.scale(scale, scale);
        cr.set_source_surface(image, 0.0, 0.0)?;
        cr.source().set_filter(cairo::Filter::Bilinear);
        cr.paint()?;
    }
    small.flush();
    Ok(small)
}

fn annotated_copy(
    snapshot: &cairo::ImageSurface,
    marks: &[Mark],
) -> Result<cairo::ImageSurface, cairo::Error> {
    let copy =
        cairo::ImageSurface::create(cairo::Format::ARgb32, snapshot.width(), snapshot.height())?;
    {
        let cr = cairo::Context::new(&copy)?;
        cr.set_source_surface(snapshot, 0.0, 0.0)?;
        cr.paint()?;
    }
    draw_marks(&copy, marks)?;
    copy.flush();
    Ok(copy)
}

/// Red boxes around the marked elements, each with its label on a tag at
/// its top-left corner (inside the image).
fn draw_marks(image: &cairo::ImageSurface, marks: &[Mark]) -> Result<(), cairo::Error> {
    let cr = cairo::Context::new(image)?;
    cr.select_font_face(
        "sans-serif",
        cairo::FontSlant::Normal,
        cairo::FontWeight::Bold,
    );
    cr.set_font_size(11.0);
    cr.set_line_width(2.0);
    for mark in marks {
        cr.set_source_rgb(0.9, 0.1, 0.1);
        cr.rectangle(mark.x, mark.y, mark.width, mark.height);
        cr.stroke()?;
        let extents = cr.text_extents(&mark.label)?;
        let (w, h) = (extents.x_advance() + 6.0, 14.0);
        let tx = mark.x.clamp(0.0, (f64::from(image.width()) - w).max(0.0));
        let ty = (mark.y - h).max(0.0);
        cr.rectangle(tx, ty, w, h);
        cr.fill()?;
        cr.set_source_rgb(1.0, 1.0, 1.0);
        cr.move_to(tx + 3.0, ty + 11.0);
        cr.show_text(&mark.label)?;
    }
    Ok(())
}

fn encode_png(surface: cairo::Surface, marks: &[Mark]) -> Result<Vec<u8>, ToolError> {
    let mut image = cairo::ImageSurface::try_from(surface)
        .map_err(|_| ToolError::internal("the snapshot is not an image surface"))?;
    if !marks.is_empty() {
        // WebKit's surface is not ours to draw on: copy it, then draw.
        image = annotated_copy(&image, marks)
            .map_err(|e| ToolError::internal(format!("drawing the labels failed: {e}")))?;
    }
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

/// Prints the page to a PDF file at `path` (no dialog), answering once the
/// file is written.
pub fn pdf(view: &WebView, path: PathBuf, reply: Reply) {
    let uri = match glib::filename_to_uri(&path, None) {
        Ok(uri) => uri,
        Err(e) => {
            let _ = reply.send(Err(ToolError::invalid_params(format!("bad path: {e}"))));
            return;
        }
    };
    let settings = gtk::PrintSettings::new();
    settings.set_printer("Print to File");
    settings.set(gtk::PRINT_SETTINGS_OUTPUT_FILE_FORMAT, Some("pdf"));
    settings.set(gtk::PRINT_SETTINGS_OUTPUT_URI, Some(uri.as_str()));
    let operation = webkit2gtk::PrintOperation::new(view);
    operation.set_print_settings(&settings);
    // One answer, whichever signal comes first; the operation lives until then.
    let pending = Rc::new(RefCell::new(Some((reply, operation.clone()))));
    let failed = pending.clone();
    operation.connect_failed(move |_, error| {
        if let Some((reply, _)) = failed.borrow_mut().take() {
            let message = format!("printing to PDF failed: {error}");
            let _ = reply.send(Err(ToolError::new(ErrorCode::Unsupported, message)));
        }
    });
    operation.connect_finished(move |_| {
        if let Some((reply, _)) = pending.borrow_mut().take() {
            let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
            let result = if size > 0 {
                Ok(Output::Value(json!({"path": path, "bytes": size})))
            } else {
                Err(ToolError::internal("printing finished but wrote no PDF"))
            };
            let _ = reply.send(result);
        }
    });
    operation.print();
}
