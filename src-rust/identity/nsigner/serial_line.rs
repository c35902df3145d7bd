//! Which paths the serial transport may open: a serial line, and nothing
//! else. Opening a terminal puts it in raw mode and reads it, so a path
//! that is someone's terminal (a virtual console, `/dev/tty`, a shell's
//! pseudo-terminal) would hand its keystrokes to the login; other devices
//! and files have effects of their own when opened. A serial line here is
//! a character device under `/dev` of the kernel's tty class (or a
//! pseudo-terminal slave, which tests use as a serial link), that is no
//! virtual console or console and no process's controlling terminal.
//!
//! Every refusal reads the same, so the answer tells nothing about a path
//! beyond that it is not a serial line this browser may open.

use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// Where the kernel lists character devices by number.
const SYS_CHAR: &str = "/sys/dev/char";
/// Unix98 pseudo-terminal slaves (`/dev/pts/N`): majors 136 to 143.
const PTY_SLAVES: std::ops::RangeInclusive<u32> = 136..=143;
/// Virtual consoles are major 4, minors 0 to 63 (64 and up are ttyS*).
const VT_MAJOR: u32 = 4;
const VT_MINORS: u32 = 64;
/// `/dev/tty`, `/dev/console`, `/dev/ptmx` and the like; and the old BSD
/// pseudo-terminals.
const REFUSED_MAJORS: [u32; 3] = [5, 2, 3];

/// The path to open for `path`, when it is a serial line that may be
/// opened; otherwise why not (the same words for every reason).
pub fn check(path: &Path) -> Result<PathBuf, String> {
    check_in(path, Path::new("/proc")).ok_or_else(|| refusal(path))
}

fn refusal(path: &Path) -> String {
    format!(
        "{} is not a serial line this browser may open (a USB or UART serial device such as /dev/ttyACM0 or /dev/ttyUSB0, which is no one's terminal)",
        path.display()
    )
}

fn check_in(path: &Path, proc: &Path) -> Option<PathBuf> {
    // Resolved once, and the resolved path is what gets opened: no link
    // can point elsewhere between the check and the open.
    let line = std::fs::canonicalize(path).ok()?;
    if !line.starts_with("/dev/") {
        return None;
    }
    let meta = std::fs::metadata(&line).ok()?;
    if !meta.file_type().is_char_device() {
        return None;
    }
    let (major, minor) = split(meta.rdev());
    if REFUSED_MAJORS.contains(&major) || (major == VT_MAJOR && minor < VT_MINORS) {
        return None;
    }
    if !PTY_SLAVES.contains(&major) && !is_tty_class(major, minor) {
        return None;
    }
    if controls_a_process(proc, major, minor) {
        return None;
    }
    Some(line)
}

/// glibc's and the kernel's user-space encoding of a device number.
fn split(dev: u64) -> (u32, u32) {
    let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
    let minor = (dev & 0xff) | ((dev >> 12) & !0xff);
    (major as u32, minor as u32)
}

/// Whether the kernel files the device under the tty class.
fn is_tty_class(major: u32, minor: u32) -> bool {
    let subsystem = Path::new(SYS_CHAR).join(format!("{major}:{minor}/subsystem"));
    std::fs::read_link(subsystem)
        .ok()
        .is_some_and(|class| class.file_name().is_some_and(|n| n == "tty"))
}

/// Whether any process (that this user can see) has the device as its
/// controlling terminal: `tty_nr`, the 7th field of `/proc/<pid>/stat`.
fn controls_a_process(proc: &Path, major: u32, minor: u32) -> bool {
    let Ok(entries) = std::fs::read_dir(proc) else {
        // Nothing to tell by: refuse rather than guess.
        return true;
    };
    entries.flatten().any(|entry| {
        let is_pid = entry
            .file_name()
            .to_str()
            .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()));
        is_pid
            && std::fs::read_to_string(entry.path().join("stat"))
                .ok()
                .and_then(|stat| tty_of(&stat))
                .is_some_and(|tty| tty == (major, minor))
    })
}

/// The controlling terminal in a `/proc/<pid>/stat` line, as (major,
/// minor); None for none. The command name may hold spaces and
/// parentheses: the fields start after the last `)`.
fn tty_of(stat: &str) -> Option<(u32, u32)> {
    let rest = &stat[stat.rfind(')')? + 1..];
    // After the name: state, ppid, pgrp, session, tty_nr.
    let tty_nr: u64 = rest.split_whitespace().nth(4)?.parse::<i64>().ok()? as u64;
    if tty_nr == 0 {
        return None;
    }
    let major = (tty_nr >> 8) & 0xfff;
    let minor = (tty_nr & 0xff) | ((tty_nr >> 12) & 0xfff00);
    Some((major as u32, minor as u32))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stat_line_names_its_controlling_terminal() {
        // /dev/pts/3 (136:3) and a name with spaces and parentheses.
        let stat = "4242 (a (b) c) S 1 4242 4242 34819 4242 4194560 0";
        assert_eq!(tty_of(stat), Some((136, 3)));
        assert_eq!(tty_of("1 (init) S 0 1 1 0 -1 4194560"), None);
        // Minor 300 of major 136: the high minor bits sit above the major.
        let high = (136u64 << 8) | (300 & 0xff) | ((300 & 0xfff00) << 12);
        assert_eq!(tty_of(&format!("9 (x) S 1 9 9 {high} 9")), Some((136, 300)));
        assert_eq!(split(libc_dev(136, 300)), (136, 300));
        assert_eq!(split(libc_dev(4, 64)), (4, 64));
    }

    /// glibc's makedev.
    fn libc_dev(major: u64, minor: u64) -> u64 {
        ((major & 0xfff) << 8) | ((major & !0xfff) << 32) | (minor & 0xff) | ((minor & !0xff) << 12)
    }

    #[test]
    fn files_fifos_consoles_and_missing_paths_are_refused_alike() {
        let dir =
            std::env::temp_dir().join(format!("sb-serial-line-{}", crate::profile::random_hex(4)));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("regular");
        std::fs::write(&file, "x").unwrap();
        let fifo = dir.join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        for path in [
            file.as_path(),
            fifo.as_path(),
            &dir.join("missing"),
            Path::new("/dev/null"),
            Path::new("/dev/tty"),
            Path::new("/dev/console"),
            Path::new("/dev/ptmx"),
            Path::new("/dev/tty1"),
        ] {
            let why = check(path).unwrap_err();
            assert_eq!(why, refusal(path), "{}", path.display());
        }
        std::fs::remove_dir_all(dir).unwrap();
    }
}
