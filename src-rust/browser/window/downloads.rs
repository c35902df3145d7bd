//! Downloads: saved in the files folder, recorded with the context whose
//! page started them, their progress and, when one fails, why; published
//! so that tools can report and wait for them, and cancelled on request.
//! wry names each file (`start`, `finish`); WebKit's own download object,
//! heard at the context's `download-started`, gives sizes, failures and
//! cancelling.

use super::event::UserEvent;
use crate::base::context::ContextId;
use crate::base::error::{ErrorCode, ToolError};
use crate::base::tab::{DownloadInfo, DownloadState};
use crate::browser::tab::state::Publisher;
use serde_json::{json, Value};
use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::{Duration, Instant};
use tao::event_loop::EventLoopProxy;
use webkit2gtk::{DownloadExt as _, URIRequestExt as _, URIResponseExt as _, WebContextExt as _};

/// Downloads remembered, at most; the oldest ended ones go first.
const KEPT: usize = 200;
/// The shortest gap between two progress reports of one download.
const PROGRESS_GAP: Duration = Duration::from_millis(250);
/// Characters kept of a failure's reason.
const REASON_MAX: usize = 300;
/// Downloads a context may start in a run (a page starts them unasked).
const PER_CONTEXT_MAX: usize = 1000;

struct Download {
    id: u64,
    context: ContextId,
    url: String,
    path: PathBuf,
    /// None while in progress, then whether it succeeded.
    outcome: Option<bool>,
    bytes: u64,
    total: Option<u64>,
    failure: Option<String>,
    /// WebKit's download, while it runs (to read its size or cancel it).
    webkit: Option<webkit2gtk::Download>,
    /// Cancelled for passing the context's quota: its part is removed.
    over_quota: bool,
}

/// Every download of this run, in the order they started.
#[derive(Clone)]
pub struct Downloads {
    dir: PathBuf,
    /// The most a context's downloads of this run may write.
    max_bytes: u64,
    /// What each context's downloads wrote this run, and how many it started
    /// (forgotten downloads included: the list keeps only the newest). Kept
    /// after a context closes, so that closing and opening contexts cannot
    /// renew the quota: two numbers per context a run opens.
    spent: Rc<RefCell<std::collections::HashMap<ContextId, (u64, usize)>>>,
    list: Rc<RefCell<Vec<Download>>>,
    /// WebKit's downloads whose file wry has not named yet, by URL.
    unnamed: Rc<RefCell<Vec<(String, webkit2gtk::Download)>>>,
    next_id: Rc<Cell<u64>>,
    /// Tells the window when one ends.
    events: Option<EventLoopProxy<UserEvent>>,
    publisher: Publisher,
    published_at: Rc<Cell<Option<Instant>>>,
}

impl Downloads {
    pub fn new(
        dir: PathBuf,
        max_bytes: u64,
        events: EventLoopProxy<UserEvent>,
        publisher: Publisher,
    ) -> Self {
        Downloads {
            events: Some(events),
            ..Downloads::quiet(dir, max_bytes, publisher)
        }
    }

    fn quiet(dir: PathBuf, max_bytes: u64, publisher: Publisher) -> Self {
        Downloads {
            dir,
            max_bytes,
            spent: Rc::default(),
            list: Rc::default(),
            unnamed: Rc::default(),
            next_id: Rc::new(Cell::new(1)),
            events: None,
            publisher,
            published_at: Rc::default(),
        }
    }

    /// Hears the downloads of a context's web context, for their sizes,
    /// failures and cancelling (after wry's own handler, which names them).
    pub fn watch(&self, session: &webkit2gtk::WebContext) {
        let me = self.clone();
        session.connect_download_started(move |_, download| {
            let url = download
                .request()
                .and_then(|r| r.uri())
                .map(|u| u.to_string())
                .unwrap_or_default();
            me.unnamed.borrow_mut().push((url, download.clone()));
            let progress = me.clone();
            download.connect_received_data(move |download, _| progress.progressed(download));
            let failed = me.clone();
            download.connect_failed(move |download, error| {
                failed.failed(download, error.message());
            });
        });
    }

    /// Picks the destination (the suggested name, in our folder, never
    /// overwriting) and records the download for `context`. Returns false
    /// to refuse it.
    pub fn start(&self, context: ContextId, url: String, suggested: &mut PathBuf) -> bool {
        let webkit = {
            let mut unnamed = self.unnamed.borrow_mut();
            let at = unnamed.iter().position(|(u, _)| *u == url);
            at.map(|at| unnamed.remove(at).1)
        };
        if let Some(why) = self.over_quota(context, 0) {
            tracing::warn!(context, url = %crate::base::bounded::one_line(&url, 200), "download refused: {why}");
            self.refused(context, url, why);
            return false;
        }
        if std::fs::create_dir_all(&self.dir).is_err() {
            tracing::warn!(dir = %self.dir.display(), "cannot create the downloads folder");
            return false;
        }
        let name = suggested
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| "download".into());
        *suggested = unique_path(&self.dir, &name);
        tracing::info!(path = %suggested.display(), "download started");
        self.add(|id| Download {
            id,
            context,
            url,
            path: suggested.clone(),
            outcome: None,
            bytes: 0,
            total: None,
            failure: None,
            webkit,
            over_quota: false,
        });
        self.spent.borrow_mut().entry(context).or_default().1 += 1;
        self.publish();
        true
    }

    /// Why `context` may write no more downloads (with `more` bytes on the
    /// way), if it may not.
    fn over_quota(&self, context: ContextId, more: u64) -> Option<String> {
        let (written, started) = self
            .spent
            .borrow()
            .get(&context)
            .copied()
            .unwrap_or_default();
        let running: u64 = self
            .list
            .borrow()
            .iter()
            .filter(|d| d.context == context && d.outcome.is_none())
            .map(|d| d.bytes)
            .sum();
        if written + running + more > self.max_bytes {
            return Some(format!(
                "this context's downloads passed {} MiB this run (--downloads-max-mb)",
                self.max_bytes >> 20
            ));
        }
        (started >= PER_CONTEXT_MAX).then(|| {
            format!("this context started {PER_CONTEXT_MAX} downloads this run, the most it may")
        })
    }

    /// Keeps a new download (given its id), forgetting the oldest that
    /// ended when the list is full.
    fn add(&self, download: impl FnOnce(u64) -> Download) {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        let mut list = self.list.borrow_mut();
        if list.len() >= KEPT {
            if let Some(at) = list.iter().position(|d| d.outcome.is_some()) {
                list.remove(at);
            }
        }
        list.push(download(id));
    }

    /// Records a download refused before it began, for `downloads` to tell.
    fn refused(&self, context: ContextId, url: String, why: String) {
        self.add(|id| Download {
            id,
            context,
            url: crate::base::bounded::url(&url).into_owned(),
            path: PathBuf::new(),
            outcome: Some(false),
            bytes: 0,
            total: None,
            failure: Some(why),
            webkit: None,
            over_quota: true,
        });
        self.publish();
    }

    pub fn finish(&self, url: &str, path: Option<PathBuf>, ok: bool) {
        self.record_end(url, path, ok);
        self.publish();
    }

    /// Cancels a download of `context` still under way.
    pub fn cancel(&self, context: ContextId, id: u64) -> Result<Value, ToolError> {
        let list = self.list.borrow();
        let download = list
            .iter()
            .find(|d| d.id == id && d.context == context)
            .ok_or_else(|| {
                ToolError::invalid_params(format!(
                    "id: this context has no download {id}; downloads lists them"
                ))
            })?;
        let webkit = match (&download.outcome, &download.webkit) {
            (None, Some(webkit)) => webkit.clone(),
            (None, None) => {
                return Err(ToolError::new(
                    ErrorCode::Unsupported,
                    "this download cannot be cancelled from here",
                ))
            }
            (Some(_), _) => {
                return Err(ToolError::invalid_params(format!(
                    "download {id} has already ended"
                )))
            }
        };
        drop(list);
        // WebKit fails it as cancelled: `failed` and wry's end record it.
        webkit.cancel();
        Ok(json!({"cancelled": id}))
    }

    fn progressed(&self, webkit: &webkit2gtk::Download) {
        let mut context = None;
        let found = self.with_webkit(webkit, |d| {
            d.bytes = webkit.received_data_length();
            d.total = webkit
                .response()
                .map(|r| r.content_length())
                .filter(|n| *n > 0);
            context = (!d.over_quota).then_some(d.context);
        });
        // Past the context's quota: cancelled, saying why (its part goes at its end).
        if let Some(why) = context.and_then(|c| self.over_quota(c, 0)) {
            self.with_webkit(webkit, |d| {
                d.over_quota = true;
                d.failure = Some(why);
            });
            webkit.cancel();
        }
        let due = self
            .published_at
            .get()
            .is_none_or(|at| at.elapsed() >= PROGRESS_GAP);
        if found && due {
            self.publish();
        }
    }

    fn failed(&self, webkit: &webkit2gtk::Download, reason: &str) {
        let reason: String = reason.chars().take(REASON_MAX).collect();
        // A download cancelled for the quota keeps that reason.
        self.with_webkit(webkit, |d| {
            if !d.over_quota {
                d.failure = Some(reason);
            }
        });
    }

    /// Changes the download WebKit's `webkit` is; whether there is one.
    fn with_webkit(
        &self,
        webkit: &webkit2gtk::Download,
        change: impl FnOnce(&mut Download),
    ) -> bool {
        let mut list = self.list.borrow_mut();
        let found = list.iter_mut().find(|d| d.webkit.as_ref() == Some(webkit));
        found.map(change).is_some()
    }

    fn record_end(&self, url: &str, path: Option<PathBuf>, ok: bool) {
        let mut list = self.list.borrow_mut();
        let entry = list
            .iter_mut()
            .rev()
            .find(|d| d.outcome.is_none() && (Some(&d.path) == path.as_ref() || d.url == url));
        if let Some(entry) = entry {
            entry.outcome = Some(ok);
            if let Some(webkit) = entry.webkit.take() {
                entry.bytes = webkit.received_data_length();
            }
            if ok {
                entry.bytes = std::fs::metadata(&entry.path).map_or(entry.bytes, |m| m.len());
                entry.failure = None;
            } else if entry.failure.is_none() {
                entry.failure = Some("the download failed".into());
            }
            // What it wrote counts, kept or not: a page retrying a big file
            // cannot write past the quota again and again.
            self.spent.borrow_mut().entry(entry.context).or_default().0 += entry.bytes;
            if entry.over_quota {
                // What it wrote past the quota is not kept.
                let _ = std::fs::remove_file(&entry.path);
                entry.bytes = 0;
            }
            if let Some(events) = &self.events {
                let _ = events.send_event(UserEvent::DownloadDone(
                    entry.path.display().to_string(),
                    ok,
                ));
            }
        }
    }

    /// Publishes every download of this run, for the tools waiting on one.
    fn publish(&self) {
        self.published_at.set(Some(Instant::now()));
        let downloads: Vec<DownloadInfo> = self.list.borrow().iter().map(info).collect();
        self.publisher
            .send_modify(|state| state.downloads = downloads);
    }
}

fn info(download: &Download) -> DownloadInfo {
    DownloadInfo {
        id: download.id,
        context: download.context,
        url: download.url.clone(),
        path: download.path.display().to_string(),
        state: match download.outcome {
            None => DownloadState::InProgress,
            Some(true) => DownloadState::Done,
            Some(false) => DownloadState::Failed,
        },
        bytes: download.bytes,
        total: download.total,
        failure: download.failure.clone(),
    }
}

fn unique_path(dir: &Path, name: &str) -> PathBuf {
    let (stem, ext) = match name.rsplit_once('.') {
        Some((s, e)) if !s.is_empty() => (s.to_string(), format!(".{e}")),
        _ => (name.to_string(), String::new()),
    };
    let mut path = dir.join(name);
    let mut n = 1;
    while path.exists() {
        path = dir.join(format!("{stem} ({n}){ext}"));
        n += 1;
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_never_overwrite() {
        let dir = std::env::temp_dir().join(format!("sb-dl-{}", crate::profile::random_hex(4)));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.txt"), "x").unwrap();
        assert_eq!(unique_path(&dir, "a.txt"), dir.join("a (1).txt"));
        assert_eq!(unique_path(&dir, "b"), dir.join("b"));
        let (publisher, state) = tokio::sync::watch::channel(Default::default());
        let downloads = Downloads::quiet(dir.clone(), 1 << 20, std::sync::Arc::new(publisher));
        let mut p = PathBuf::from("/elsewhere/a.txt");
        assert!(downloads.start(3, "http://x/a.txt".into(), &mut p));
        assert_eq!(p, dir.join("a (1).txt"));
        std::fs::write(&p, "four").unwrap();
        downloads.finish("http://x/a.txt", Some(p), true);
        let published = state.borrow().downloads[0].clone();
        assert_eq!(published.state, DownloadState::Done, "published");
        assert_eq!(
            (published.id, published.context, published.bytes),
            (1, 3, 4)
        );
        assert!(downloads.cancel(3, 1).is_err(), "it has ended");
        assert!(downloads.cancel(4, 1).is_err(), "another context's");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_context_past_its_quota_starts_no_download_and_another_still_does() {
        let dir = std::env::temp_dir().join(format!("sb-dl-{}", crate::profile::random_hex(4)));
        let (publisher, state) = tokio::sync::watch::channel(Default::default());
        let downloads = Downloads::quiet(dir.clone(), 1000, std::sync::Arc::new(publisher));
        let mut first = PathBuf::from("big.bin");
        assert!(downloads.start(3, "http://x/big.bin".into(), &mut first));
        std::fs::write(&first, vec![0u8; 1001]).unwrap();
        downloads.finish("http://x/big.bin", Some(first), true);
        let mut next = PathBuf::from("more.bin");
        assert!(
            !downloads.start(3, "http://x/more.bin".into(), &mut next),
            "refused"
        );
        let refused = state.borrow().downloads.last().cloned().unwrap();
        assert_eq!(refused.state, DownloadState::Failed);
        assert!(refused.failure.unwrap().contains("--downloads-max-mb"));
        let mut other = PathBuf::from("more.bin");
        assert!(
            downloads.start(4, "http://x/more.bin".into(), &mut other),
            "another context's own"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
}
