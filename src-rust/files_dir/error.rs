//! Why the files folder refuses a path an agent's tool gave: outside the
//! folder (the same words whether or not it exists there), not a file
//! to read or a place to write, a file a page downloaded, or a folder
//! full. The message names the path as given, so the agent can correct it.

use crate::base::error::ToolError;
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FilesError {
    /// Not an absolute path; `root` says where the folder is.
    #[error("{given}: give an absolute path in the files folder ({})", .root.display())]
    Relative { given: String, root: PathBuf },
    /// Outside the folder, by its text or through a symbolic link.
    #[error("{given}: outside the files folder; agents' tools read and write files only in {}", .root.display())]
    Outside { given: String, root: PathBuf },
    /// Nothing is there to read.
    #[error("{given}: No such file in the files folder")]
    NotFound { given: String },
    /// It could not be looked at (`why`: the system's words).
    #[error("{given}: {why}")]
    Unreadable { given: String, why: String },
    /// It is there but is not a regular file.
    #[error("{given}: not a regular file")]
    NotAFile { given: String },
    /// A page downloaded it (it is in `folder`, where pages' downloads
    /// land): not taken as an agent's own content.
    #[error("{given}: a page downloaded this file ({folder}/ of the files folder); what a page sent is not taken as an agent's state, route or HAR. The person can move it out of {folder}/ to allow it")]
    PageDownloaded { given: String, folder: &'static str },
    /// It names the folder itself, not a file in it.
    #[error("{given}: give a file name")]
    NoFileName { given: String },
    /// The folder it would be written in does not exist.
    #[error("{given}: its folder does not exist in the files folder")]
    NoFolder { given: String },
    /// It names a folder, not a file to write.
    #[error("{given} is a folder; give a file name")]
    Folder { given: String },
    /// The folder holds its most (`--files-max-mb`): no new file.
    #[error("the files folder holds {held_mib} MiB, its most (--files-max-mb {most_mib}): remove files from {} to write more", .root.display())]
    Full {
        held_mib: u64,
        most_mib: u64,
        root: PathBuf,
    },
}

impl FilesError {
    /// The error of a call whose argument `field` named the path.
    pub fn at(self, field: &str) -> ToolError {
        ToolError::invalid_field(field, self)
    }

    /// The error of a tool that chose the path itself (a default name in
    /// the folder): no fault of the caller's arguments.
    pub fn internal(self) -> ToolError {
        ToolError::internal(self.to_string())
    }
}

/// A path the caller gave was refused: INVALID_PARAMS, in its words.
impl From<FilesError> for ToolError {
    fn from(error: FilesError) -> ToolError {
        ToolError::invalid_params(error.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::error::ErrorCode;

    #[test]
    fn a_refusal_names_the_path_and_the_folder() {
        let outside = FilesError::Outside {
            given: "/home/me/.ssh/id_ed25519".into(),
            root: "/srv/files".into(),
        };
        assert_eq!(
            outside.to_string(),
            "/home/me/.ssh/id_ed25519: outside the files folder; agents' tools read and write files only in /srv/files"
        );
        assert_eq!(
            FilesError::Full {
                held_mib: 9000,
                most_mib: 8192,
                root: "/srv/files".into()
            }
            .to_string(),
            "the files folder holds 9000 MiB, its most (--files-max-mb 8192): remove files from /srv/files to write more"
        );
        assert!(FilesError::PageDownloaded {
            given: "/srv/files/page-downloads/s.json".into(),
            folder: "page-downloads",
        }
        .to_string()
        .contains("(page-downloads/ of the files folder)"));
    }

    #[test]
    fn the_caller_s_path_is_an_invalid_argument_and_the_tool_s_own_is_internal() {
        let refused = || FilesError::NotFound {
            given: "/srv/files/a.txt".into(),
        };
        let at = refused().at("path");
        assert_eq!(
            (at.code, at.field.as_deref()),
            (ErrorCode::InvalidParams, Some("path"))
        );
        assert_eq!(
            at.message,
            "path: /srv/files/a.txt: No such file in the files folder"
        );
        let given = ToolError::from(refused());
        assert_eq!(given.code, ErrorCode::InvalidParams);
        assert_eq!(given.message, refused().to_string());
        assert_eq!(refused().internal().code, ErrorCode::Internal);
    }
}
