//! A private Xvfb display for headless runs: real, mapped windows that
//! nobody sees, so trusted input and screenshots behave as on a desktop.
//! Private to this user: the server admits only clients that show the
//! cookie kept owner-only in the profile (other local users could otherwise
//! read the screen, the panel on it included, type into it and read the
//! clipboard).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// The screen a private display offers.
pub struct Screen {
    pub width: u32,
    pub height: u32,
    /// Whether clients may draw with GL through the X server (GLX). Without
    /// it Xvfb starts about 30 ms sooner and holds about 55 MiB less: it
    /// loads no Mesa driver, and nothing needs one when WebKit renders
    /// pages into shared memory and GTK draws without GL.
    pub glx: bool,
}

/// A running Xvfb server; killed when dropped.
pub struct Xvfb {
    child: Child,
    pub display: String,
    /// The X authority file clients of the display need (`XAUTHORITY`).
    pub authority: PathBuf,
}

impl Xvfb {
    /// Starts Xvfb on a free display number (it reports the number it took
    /// through `-displayfd`, here its standard output) and waits until ready.
    /// `authority` is the X authority file to create (owner-only) with a new
    /// cookie that the server demands of every client.
    pub fn start(screen: Screen, authority: &Path) -> std::io::Result<Xvfb> {
        let mut cookie = [0u8; 16];
        getrandom::fill(&mut cookie).map_err(|e| std::io::Error::other(e.to_string()))?;
        crate::profile::write_private(authority, &authority_entry(&cookie))?;
        let mut command = Command::new("Xvfb");
        crate::loader_tables::other_program(&mut command)
            .args(["-displayfd", "1", "-nolisten", "tcp", "-auth"])
            .arg(authority)
            .args(["-screen", "0"])
            .arg(format!("{}x{}x24", screen.width, screen.height))
            .args(if screen.glx {
                &[][..]
            } else {
                &["-extension", "GLX"][..]
            })
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        die_with_parent(&mut command);
        let mut child = command.spawn().map_err(|e| {
            std::io::Error::new(
                e.kind(),
                format!("cannot start Xvfb ({e}); install the xvfb package or set DISPLAY"),
            )
        })?;
        let mut out = child.stdout.take().expect("stdout is piped");
        let mut number = String::new();
        let mut byte = [0u8; 1];
        // Xvfb writes "N\n" once it accepts connections.
        while out.read(&mut byte)? == 1 && byte[0] != b'\n' {
            number.push(byte[0] as char);
        }
        let number = number.trim();
        if number.is_empty() || !number.chars().all(|c| c.is_ascii_digit()) {
            let _ = child.kill();
            return Err(std::io::Error::other(
                "Xvfb exited before reporting its display",
            ));
        }
        Ok(Xvfb {
            child,
            display: format!(":{number}"),
            authority: authority.to_path_buf(),
        })
    }

    /// Leaves the server running for the rest of this process: when the
    /// process ends the kernel sends it SIGTERM (see `die_with_parent`),
    /// and it removes its lock files. Ending it earlier would let threads
    /// still connected to it see the connection drop, and Xlib's handler
    /// then exits the program with status 1.
    pub fn outlive(self) {
        std::mem::forget(self);
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One X authority entry (the Xau file format: big-endian lengths) for any
/// local display: family FamilyWild with no address and no display number,
/// which Xlib matches for every display, and an MIT-MAGIC-COOKIE-1.
fn authority_entry(cookie: &[u8; 16]) -> Vec<u8> {
    const FAMILY_WILD: u16 = 0xffff;
    let mut entry = FAMILY_WILD.to_be_bytes().to_vec();
    for field in [&b""[..], &b""[..], &b"MIT-MAGIC-COOKIE-1"[..], &cookie[..]] {
        entry.extend_from_slice(&(field.len() as u16).to_be_bytes());
        entry.extend_from_slice(field);
    }
    entry
}

/// Asks the kernel to end the child (SIGTERM: it cleans up after itself)
/// when this process dies, even by SIGKILL, so no Xvfb is left behind.
fn die_with_parent(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: prctl is async-signal-safe and touches no memory of the parent.
    unsafe {
        command.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
            Ok(())
        });
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_authority_entry_is_a_wild_magic_cookie() {
        let entry = super::authority_entry(&[7; 16]);
        assert_eq!(&entry[..2], &[0xff, 0xff], "FamilyWild");
        assert_eq!(&entry[2..6], &[0, 0, 0, 0], "no address, no display number");
        assert_eq!(&entry[6..8], &[0, 18]);
        assert_eq!(&entry[8..26], b"MIT-MAGIC-COOKIE-1");
        assert_eq!(&entry[26..28], &[0, 16]);
        assert_eq!(&entry[28..], &[7; 16]);
    }
}
