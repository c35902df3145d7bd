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
    /// Held for its drop, which ends the server.
    _server: Server,
    pub display: String,
    /// The X authority file clients of the display need (`XAUTHORITY`).
    pub authority: PathBuf,
}

/// An Xvfb started, that has not yet said which display it took.
pub struct Starting {
    server: Server,
    /// The read end of the pipe Xvfb writes its display number to.
    announced: std::fs::File,
    authority: PathBuf,
}

/// The server process: this process's child, started here or by the
/// launcher this process was before it became the browser (exec keeps the
/// process, so the server stays its child).
enum Server {
    Started(Child),
    HandedDown(libc::pid_t),
    /// Moved on (into an [`Xvfb`], or down to the next program).
    Gone,
}

/// The environment variable that hands a display being started down to
/// the browser the launcher becomes: `PID:FD:AUTHORITY`.
pub const HANDED_DOWN: &str = "SOVEREIGN_DISPLAY_STARTING";

impl Screen {
    /// The private display's screen for the browser `args` describe: its
    /// window, and the panel's beside it when it opens at start, drawn as
    /// the environment says ([`renders_from_shared_memory`]).
    pub fn for_args(args: &crate::config::Args) -> Screen {
        let panel = (!args.no_panel).then_some(crate::config::PANEL_WINDOW_SIZE);
        Screen::for_window(args.window_size, panel, !renders_from_shared_memory())
    }

    /// The screen for a browser window of `window` (width, height), with
    /// room beside it for a panel window of `panel` when one opens at start
    /// (`None`: the screen holds the browser's window alone; every pixel
    /// is memory, 4.6 MiB for the panel's room). A panel opened later still
    /// opens beside the window, past the edge of a display nobody looks at.
    fn for_window(window: (u32, u32), panel: Option<(u32, u32)>, glx: bool) -> Screen {
        let (w, h) = window;
        let (panel_w, panel_h) = panel.unwrap_or((0, 0));
        Screen {
            width: w.max(1280) + panel_w + 64,
            height: h.max(panel_h).max(1024) + 64,
            glx,
        }
    }
}

impl Xvfb {
    /// Starts Xvfb on a free display number (it reports the number it takes
    /// through `-displayfd`, here a pipe) without waiting for it.
    /// `authority` is the X authority file to create (owner-only) with a new
    /// cookie that the server demands of every client.
    pub fn spawn(screen: Screen, authority: &Path) -> std::io::Result<Starting> {
        let mut cookie = [0u8; 16];
        getrandom::fill(&mut cookie).map_err(|e| std::io::Error::other(e.to_string()))?;
        crate::profile::write_private(authority, &authority_entry(&cookie))?;
        let mut command = Command::new("Xvfb");
        crate::speech_stand_in::other_program(&mut command)
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
        let out = child.stdout.take().expect("stdout is piped");
        Ok(Starting {
            server: Server::Started(child),
            announced: std::fs::File::from(std::os::fd::OwnedFd::from(out)),
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

impl Starting {
    /// Waits until the server accepts connections.
    pub fn ready(mut self) -> std::io::Result<Xvfb> {
        let mut number = String::new();
        let mut byte = [0u8; 1];
        // Xvfb writes "N\n" once it accepts connections.
        while self.announced.read(&mut byte)? == 1 && byte[0] != b'\n' {
            number.push(byte[0] as char);
        }
        let number = number.trim();
        if number.is_empty() || !number.chars().all(|c| c.is_ascii_digit()) {
            return Err(std::io::Error::other(
                "Xvfb exited before reporting its display",
            ));
        }
        Ok(Xvfb {
            _server: std::mem::replace(&mut self.server, Server::Gone),
            display: format!(":{number}"),
            authority: std::mem::take(&mut self.authority),
        })
    }

    /// What [`HANDED_DOWN`] carries to the program this process becomes
    /// (exec): the server's pid, the pipe it announces on (kept open across
    /// the exec) and the authority file. The server is then the new
    /// program's to end.
    pub fn hand_down(mut self) -> std::io::Result<String> {
        use std::os::fd::AsRawFd as _;
        let fd = self.announced.as_raw_fd();
        // SAFETY: fcntl on a descriptor this process owns (the pipe's read
        // end, open while `self` lives); F_SETFD only changes its flags.
        if unsafe { libc::fcntl(fd, libc::F_SETFD, 0) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        let pid = match &self.server {
            Server::Started(child) => child.id(),
            Server::HandedDown(pid) => pid.unsigned_abs(),
            Server::Gone => return Err(std::io::Error::other("the display was handed on already")),
        };
        // Not ended here: the program this process becomes ends it.
        std::mem::forget(std::mem::replace(&mut self.server, Server::Gone));
        let value = format!("{pid}:{fd}:{}", self.authority.display());
        // The descriptor must stay open for the program that takes it over.
        std::mem::forget(self.announced);
        Ok(value)
    }

    /// The server a launcher handed down ([`Starting::hand_down`]'s value).
    pub fn taken_over(value: &str) -> std::io::Result<Starting> {
        let bad = || std::io::Error::other(format!("{HANDED_DOWN} is not PID:FD:AUTHORITY"));
        let mut parts = value.splitn(3, ':');
        let pid: libc::pid_t = parts.next().and_then(|p| p.parse().ok()).ok_or_else(bad)?;
        let fd: std::os::fd::RawFd = parts.next().and_then(|f| f.parse().ok()).ok_or_else(bad)?;
        let authority = PathBuf::from(parts.next().filter(|a| !a.is_empty()).ok_or_else(bad)?);
        if pid <= 1 || fd < 3 {
            return Err(bad());
        }
        // SAFETY: F_GETFD only reads a descriptor's flags, and fails (EBADF)
        // on a number that is not open.
        if unsafe { libc::fcntl(fd, libc::F_GETFD) } < 0 {
            return Err(std::io::Error::other(format!(
                "{HANDED_DOWN} names descriptor {fd}, which is not open"
            )));
        }
        // SAFETY: the descriptor is open (above) and nothing else in this
        // process owns it: the launcher handed it down for this alone, and
        // the variable is read once, at start. The File closes it.
        let announced = unsafe { <std::fs::File as std::os::fd::FromRawFd>::from_raw_fd(fd) };
        // SAFETY: this process's own descriptor; F_SETFD only sets its flags.
        unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
        Ok(Starting {
            server: Server::HandedDown(pid),
            announced,
            authority,
        })
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        match self {
            Server::Started(child) => {
                let _ = child.kill();
                let _ = child.wait();
            }
            Server::HandedDown(pid) => {
                // SAFETY: kill and waitpid take a pid and a NULL status; a
                // server already gone makes them fail (ESRCH, ECHILD),
                // which changes nothing.
                unsafe {
                    libc::kill(*pid, libc::SIGKILL);
                    libc::waitpid(*pid, std::ptr::null_mut(), 0);
                }
            }
            Server::Gone => {}
        }
    }
}

/// Has WebKit draw pages from shared memory unless the environment says
/// otherwise: under Xvfb about 40% less memory, nothing lost.
pub fn prefer_shared_memory() {
    if std::env::var_os(DMABUF_OFF).is_none() {
        std::env::set_var(DMABUF_OFF, "1");
    }
}

/// Whether WebKit draws pages from shared memory (its DMA-BUF renderer off).
pub fn renders_from_shared_memory() -> bool {
    std::env::var_os(DMABUF_OFF).is_some_and(|v| !v.is_empty() && v != "0")
}

const DMABUF_OFF: &str = "WEBKIT_DISABLE_DMABUF_RENDERER";

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
    use super::*;

    #[test]
    fn a_handed_down_display_that_is_not_one_is_refused() {
        for value in [
            "", "12", "12:5", "x:5:/a", "12:x:/a", "1:5:/a", "12:2:/a", "12:5:",
        ] {
            assert!(Starting::taken_over(value).is_err(), "{value:?}");
        }
        // A descriptor number that is not open.
        let error = Starting::taken_over("4242:987654:/tmp/a")
            .err()
            .expect("refused");
        assert!(error.to_string().contains("not open"), "{error}");
    }

    #[test]
    fn a_display_handed_down_and_taken_over_reads_its_announcement() {
        // A stand-in for Xvfb: a child that prints a display number and
        // stays until ended, so the handing down meets a live process.
        let mut command = Command::new("sh");
        command
            .args(["-c", "echo 42; exec sleep 30"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = command.spawn().expect("sh runs");
        let out = child.stdout.take().expect("piped");
        let pid = child.id();
        let starting = Starting {
            server: Server::Started(child),
            announced: std::fs::File::from(std::os::fd::OwnedFd::from(out)),
            authority: PathBuf::from("/tmp/authority"),
        };
        let value = starting.hand_down().expect("handed down");
        assert!(value.starts_with(&format!("{pid}:")), "{value}");
        assert!(value.ends_with(":/tmp/authority"), "{value}");
        let taken = Starting::taken_over(&value).expect("taken over");
        let xvfb = taken.ready().expect("the number read");
        assert_eq!(xvfb.display, ":42");
        // Dropped: the server is ended and reaped (a second end finds none).
        drop(xvfb);
        // SAFETY: kill with signal 0 only asks whether the pid exists.
        assert_ne!(
            unsafe { libc::kill(pid as libc::pid_t, 0) },
            0,
            "ended and reaped"
        );
    }

    #[test]
    fn the_authority_entry_is_a_wild_magic_cookie() {
        let entry = authority_entry(&[7; 16]);
        assert_eq!(&entry[..2], &[0xff, 0xff], "FamilyWild");
        assert_eq!(&entry[2..6], &[0, 0, 0, 0], "no address, no display number");
        assert_eq!(&entry[6..8], &[0, 18]);
        assert_eq!(&entry[8..26], b"MIT-MAGIC-COOKIE-1");
        assert_eq!(&entry[26..28], &[0, 16]);
        assert_eq!(&entry[28..], &[7; 16]);
    }
}
