//! Why a recorded session could not be read back (`read_session`, for
//! `sovereign record export`): there is none yet, or the one named has no
//! steps on disk.

use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SessionUnread {
    /// `last` was asked, and the folder holds no session.
    #[error("no recorded session in {}", .dir.display())]
    NoSession { dir: PathBuf },
    /// The session's steps could not be read (`why`, at `path`).
    #[error("no recording of session {session} ({}: {why})", .path.display())]
    NoRecording {
        session: String,
        path: PathBuf,
        why: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_names_the_session_and_where_it_was_looked_for() {
        assert_eq!(
            SessionUnread::NoSession {
                dir: "/p/recordings".into()
            }
            .to_string(),
            "no recorded session in /p/recordings"
        );
        assert_eq!(
            SessionUnread::NoRecording {
                session: "s1".into(),
                path: "/p/recordings/s1/steps.jsonl".into(),
                why: "No such file or directory (os error 2)".into(),
            }
            .to_string(),
            "no recording of session s1 (/p/recordings/s1/steps.jsonl: No such file or directory (os error 2))"
        );
    }
}
