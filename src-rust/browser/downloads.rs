//! Downloads: saved in the profile's downloads folder, recorded so the
//! tool that caused one can report where the file went.

use super::event::UserEvent;
use super::tab::Publisher;
use crate::base::tab::{DownloadInfo, DownloadState};
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use tao::event_loop::EventLoopProxy;

struct Download {
    url: String,
    path: PathBuf,
    /// None while in progress, then whether it succeeded.
    outcome: Option<bool>,
}

/// Every download of this run, in the order they started.
#[derive(Clone)]
pub struct Downloads {
    dir: PathBuf,
    list: Rc<RefCell<Vec<Download>>>,
    /// Tells the window when one ends.
    events: Option<EventLoopProxy<UserEvent>>,
    publisher: Publisher,
}

impl Downloads {
    pub fn new(dir: PathBuf, events: EventLoopProxy<UserEvent>, publisher: Publisher) -> Self {
        Downloads {
            dir,
            list: Rc::default(),
            events: Some(events),
            publisher,
        }
    }

    /// Picks the destination (the suggested name, in our folder, never
    /// overwriting) and records the download. Returns false to refuse it.
    /// A new file name in the downloads folder: `stem-<time>.ext`.
    pub fn new_file(&self, stem: &str, ext: &str) -> PathBuf {
        let ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        // The folder is made on first use.
        let _ = std::fs::create_dir_all(&self.dir);
        self.dir.join(format!("{stem}-{ms}.{ext}"))
    }

    pub fn start(&self, url: String, suggested: &mut PathBuf) -> bool {
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
        self.list.borrow_mut().push(Download {
            url,
            path: suggested.clone(),
            outcome: None,
        });
        self.publish();
        true
    }

    pub fn finish(&self, url: &str, path: Option<PathBuf>, ok: bool) {
        self.record_end(url, path, ok);
        self.publish();
    }

    fn record_end(&self, url: &str, path: Option<PathBuf>, ok: bool) {
        let mut list = self.list.borrow_mut();
        let entry = list
            .iter_mut()
            .rev()
            .find(|d| d.outcome.is_none() && (Some(&d.path) == path.as_ref() || d.url == url));
        if let Some(entry) = entry {
            entry.outcome = Some(ok);
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
        let downloads: Vec<DownloadInfo> = self.list.borrow().iter().map(info).collect();
        self.publisher
            .send_modify(|state| state.downloads = downloads);
    }
}

fn info(download: &Download) -> DownloadInfo {
    DownloadInfo {
        url: download.url.clone(),
        path: download.path.display().to_string(),
        state: match download.outcome {
            None => DownloadState::InProgress,
            Some(true) => DownloadState::Done,
            Some(false) => DownloadState::Failed,
        },
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
        let downloads = Downloads {
            dir: dir.clone(),
            list: Rc::default(),
            events: None,
            publisher: std::sync::Arc::new(publisher),
        };
        let mut p = PathBuf::from("/elsewhere/a.txt");
        assert!(downloads.start("http://x/a.txt".into(), &mut p));
        assert_eq!(p, dir.join("a (1).txt"));
        downloads.finish("http://x/a.txt", Some(p), true);
        assert_eq!(
            state.borrow().downloads[0].state,
            DownloadState::Done,
            "published"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
}
