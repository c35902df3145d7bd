//! The web process extension (built from `src-rust/web-extension/`): the
//! browser carries it inside its binary, writes it into the profile's web
//! data folder (owner-only, like the rest of the profile) and tells WebKit
//! to load it into every web process of the context, with the network
//! recorder's and the console details' scripts (`assets/network.js`,
//! `assets/console.js`) it runs in every frame.

use glib::ToVariant as _;
use std::path::{Path, PathBuf};
use webkit2gtk::WebContextExt as _;

const LIBRARY: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libsovereign-web-extension.so"));
const FILE_NAME: &str = "libsovereign-web-extension.so";
const NETWORK_RECORDER: &str = include_str!("../../../assets/network.js");
const CONSOLE_DETAILS: &str = include_str!("../../../assets/console.js");

/// Writes the extension under `web_data`; returns its folder.
pub fn install(web_data: &Path) -> std::io::Result<PathBuf> {
    let dir = web_data.join("web-extension");
    crate::profile::install_private(&dir, FILE_NAME, LIBRARY)?;
    Ok(dir)
}

/// Has WebKit load the extension. Must run before the context loads anything.
pub fn load_in(context: &webkit2gtk::WebContext, dir: &Path) {
    match dir.to_str() {
        Some(dir) => {
            context.set_web_extensions_initialization_user_data(
                &(NETWORK_RECORDER, CONSOLE_DETAILS).to_variant(),
            );
            context.set_web_extensions_directory(dir);
        }
        None => tracing::warn!(
            "the web extension folder is not UTF-8: console capture and fetch bodies are off"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::LIBRARY;
    use crate::loader_tables::built_library::dynamic_symbols;

    #[test]
    fn the_extension_exports_only_its_entry_point_and_is_hardened() {
        let (defined, undefined) = dynamic_symbols(LIBRARY);
        assert_eq!(
            defined,
            ["webkit_web_extension_initialize_with_user_data"],
            "only the entry point WebKit looks up may be exported"
        );
        assert!(
            undefined.iter().any(|s| s.starts_with("__stack_chk_fail")),
            "built with -fstack-protector-strong: {undefined:?}"
        );
    }
}
