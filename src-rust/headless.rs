//! A private Xvfb display for headless runs: real, mapped windows that
//! nobody sees, so trusted input and screenshots behave as on a desktop.

use std::io::Read;
use std::process::{Child, Command, Stdio};

/// A running Xvfb server; killed when dropped.
pub struct Xvfb {
    child: Child,
    pub display: String,
}

impl Xvfb {
    /// Starts Xvfb on a free display number (it reports the number it took
    /// through `-displayfd`, here its standard output) and waits until ready.
    pub fn start(width: u32, height: u32) -> std::io::Result<Xvfb> {
        let mut command = Command::new("Xvfb");
        command
            .args(["-displayfd", "1", "-nolisten", "tcp", "-screen", "0"])
            .arg(format!("{width}x{height}x24"))
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
