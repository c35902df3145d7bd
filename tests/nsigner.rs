//! The nsigner host against the real emulator over real transports: a Unix
//! socket, TCP, a pseudo-terminal (serial) and a stand-in qrexec-client-vm.
//! Signing, encryption, refusal, a wrong key index, and a device that lies.

use nostr::{EventBuilder, Keys};
use sovereign_browser::identity::nsigner::transport::{serial_endpoint, Endpoint};
use sovereign_browser::identity::nsigner::{ConnectError, NsignerSigner};
use sovereign_browser::identity::{Signer, SignerError};
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

const EMULATOR: &str = env!("CARGO_BIN_EXE_nsigner-emulator");
const NSEC: &str = "nsec1vl029mgpspedva04g90vltkh6fvh240zqtv9k0t9af8935ke9laqsnlfe5";
const PUBKEY: &str = "7e7e9c42a91bfef19fa929e5fda1b72e0ebc1a4c1141673e2794234d86addf4e";

/// A running emulator; killed when dropped.
struct Emulator {
    child: Child,
    listening: String,
}

impl Drop for Emulator {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn emulator(args: &[&str]) -> Emulator {
    let mut child = Command::new(EMULATOR)
        .args(["--key", NSEC, "--generate", "1"])
        .args(args)
        .stdout(Stdio::piped())
        .spawn()
        .expect("start nsigner-emulator");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().expect("a start-up line").unwrap();
    let listening = first
        .strip_prefix("nsigner-emulator: listening on ")
        .expect("listening line")
        .to_string();
    // Keep reading the key lines in the background so the pipe never fills.
    std::thread::spawn(move || for _ in lines {});
    Emulator { child, listening }
}

fn temp_path(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("nsigner-test-{}-{name}", std::process::id()))
}

async fn sign_and_check(signer: &NsignerSigner) {
    assert_eq!(signer.public_key().to_hex(), PUBKEY);
    let unsigned = EventBuilder::text_note("signed on the device").build(signer.public_key());
    let event = signer.sign_event(unsigned).await.expect("the device signs");
    assert!(
        event.verify().is_ok(),
        "the signature verifies independently"
    );
    assert_eq!(event.content, "signed on the device");
    // Encryption round trip with a peer that holds its own key.
    let peer = Keys::generate();
    let sealed = signer
        .nip44_encrypt(peer.public_key(), "hello".into())
        .await
        .unwrap();
    let opened =
        nostr::nips::nip44::decrypt(peer.secret_key(), &signer.public_key(), &sealed).unwrap();
    assert_eq!(opened, "hello");
    let back =
        nostr::nips::nip04::encrypt(peer.secret_key(), &signer.public_key(), "hi 04").unwrap();
    assert_eq!(
        signer.nip04_decrypt(peer.public_key(), back).await.unwrap(),
        "hi 04"
    );
    assert!(signer.reachable().await);
}

#[tokio::test]
async fn unix_socket() {
    let path = temp_path("unix.sock");
    let emu = emulator(&["--unix", path.to_str().unwrap()]);
    assert!(emu.listening.starts_with("unix:"));
    let signer = NsignerSigner::connect(Endpoint::Unix(path.clone()), 0)
        .await
        .expect("connect");
    sign_and_check(&signer).await;
    drop(emu);
    // Reported unreachable once the socket is gone: asked until it says so.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while signer.reachable().await {
        assert!(
            std::time::Instant::now() < deadline,
            "a vanished device is reported unreachable"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let unsigned = EventBuilder::text_note("x").build(signer.public_key());
    assert!(matches!(
        signer.sign_event(unsigned).await,
        Err(SignerError::Unavailable(_))
    ));
    let _ = std::fs::remove_file(path);
}

#[tokio::test]
async fn tcp() {
    let emu = emulator(&["--tcp", "127.0.0.1:0"]);
    let addr = emu.listening.strip_prefix("tcp:").unwrap().to_string();
    let signer = NsignerSigner::connect(Endpoint::Tcp(addr), 0)
        .await
        .expect("connect");
    sign_and_check(&signer).await;
}

#[tokio::test]
async fn serial_over_a_pseudo_terminal() {
    let emu = emulator(&["--pty"]);
    let device = emu.listening.strip_prefix("pty:").unwrap().to_string();
    let signer = NsignerSigner::connect(serial_endpoint(&device).unwrap(), 0)
        .await
        .expect("connect");
    sign_and_check(&signer).await;
}

/// A stand-in for Qubes' qrexec-client-vm: runs the emulator as the
/// service for qube "vault", and exits 126 (policy refusal) for "denied".
fn qrexec_stand_in() -> PathBuf {
    let dir = temp_path("qrexec-bin");
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("qrexec-client-vm");
    let body = format!(
        "#!/bin/sh\n# stand-in for qrexec-client-vm <qube> <service>\n[ \"$1\" = denied ] && {{ echo 'Request refused' >&2; exit 126; }}\n[ \"$2\" = qubes.NsignerRpc ] || exit 1\nexec {EMULATOR} --key {NSEC} --stdio\n"
    );
    std::fs::write(&script, body).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

#[tokio::test]
async fn qrexec_service_and_policy_refusal() {
    let dir = qrexec_stand_in();
    let path = format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    // Only this test changes PATH, and only to put the stand-in first.
    std::env::set_var("PATH", path);
    let service = "qubes.NsignerRpc".to_string();
    let signer = NsignerSigner::connect(
        Endpoint::Qrexec {
            qube: "vault".into(),
            service: service.clone(),
        },
        0,
    )
    .await
    .expect("connect through qrexec");
    sign_and_check(&signer).await;
    match NsignerSigner::connect(
        Endpoint::Qrexec {
            qube: "denied".into(),
            service,
        },
        0,
    )
    .await
    {
        Err(ConnectError::Unreachable(why)) => assert!(why.contains("policy refused"), "{why}"),
        other => panic!("expected a policy refusal, got {:?}", other.err()),
    }
}

#[tokio::test]
async fn refusal_wrong_index_and_a_lying_device() {
    let path = temp_path("reject.sock");
    let _rejecting = emulator(&["--unix", path.to_str().unwrap(), "--reject"]);
    let signer = NsignerSigner::connect(Endpoint::Unix(path.clone()), 0)
        .await
        .expect("connect");
    let unsigned = EventBuilder::text_note("no").build(signer.public_key());
    assert!(matches!(
        signer.sign_event(unsigned).await,
        Err(SignerError::Rejected(_))
    ));

    assert!(matches!(
        NsignerSigner::connect(Endpoint::Unix(path.clone()), 5).await,
        Err(ConnectError::NoSuchKey(_))
    ));

    let liar_path = temp_path("liar.sock");
    let _liar = emulator(&["--unix", liar_path.to_str().unwrap(), "--bad-signature"]);
    let signer = NsignerSigner::connect(Endpoint::Unix(liar_path.clone()), 0)
        .await
        .expect("connect");
    let unsigned = EventBuilder::text_note("tampered").build(signer.public_key());
    match signer.sign_event(unsigned).await {
        Err(SignerError::Rejected(why)) => assert!(why.contains("invalid signature"), "{why}"),
        other => panic!("a bad signature must be refused, got {other:?}"),
    }

    let locked_path = temp_path("locked.sock");
    let _locked = emulator(&["--unix", locked_path.to_str().unwrap(), "--locked"]);
    match NsignerSigner::connect(Endpoint::Unix(locked_path.clone()), 0).await {
        Err(ConnectError::Unreachable(why)) => assert!(why.contains("LOCKED"), "{why}"),
        other => panic!("a locked device cannot log in, got {:?}", other.err()),
    }
    for p in [path, liar_path, locked_path] {
        let _ = std::fs::remove_file(p);
    }
}

// A device reports a key; it logs in only once it signs the login check
// with that key. One that claims someone else's key, or whose person
// declines the login, is refused, and its link is closed.
#[tokio::test]
async fn a_device_must_prove_the_key_it_reports() {
    let person = Keys::generate().public_key().to_hex();
    let claiming_path = temp_path("claim.sock");
    let _claiming = emulator(&[
        "--unix",
        claiming_path.to_str().unwrap(),
        "--claim",
        &person,
    ]);
    match NsignerSigner::connect(Endpoint::Unix(claiming_path.clone()), 0).await {
        Err(ConnectError::Rejected(why)) => {
            assert!(
                why.contains("does not prove that it holds the key"),
                "{why}"
            )
        }
        other => panic!(
            "a device claiming another key must be refused, got {:?}",
            other.err()
        ),
    }

    let declining_path = temp_path("decline.sock");
    let _declining = emulator(&["--unix", declining_path.to_str().unwrap(), "--reject-login"]);
    match NsignerSigner::connect(Endpoint::Unix(declining_path.clone()), 0).await {
        Err(ConnectError::Rejected(why)) => {
            assert!(why.contains("refused the login check"), "{why}")
        }
        other => panic!(
            "a declined login check must be refused, got {:?}",
            other.err()
        ),
    }
    for p in [claiming_path, declining_path] {
        let _ = std::fs::remove_file(p);
    }
}
