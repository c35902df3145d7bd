//! Start-up: flags, profile and token, the private display when headless,
//! the tokio runtime with the server, then the tao event loop on the main
//! thread until the window closes or a signal arrives.

use anyhow::Context;
use clap::Parser;
use sovereign_browser::bridge::{BrowserHandle, Command};
use sovereign_browser::browser::{self, Browser, BrowserOptions, UserEvent};
use sovereign_browser::config::Args;
use sovereign_browser::files_dir::FilesDir;
use sovereign_browser::headless::{self, Screen, Xvfb};
use sovereign_browser::identity::audit::Audit;
use sovereign_browser::identity::remembered::RememberedStore;
use sovereign_browser::nip07::context_decisions::ContextDecisions;
use sovereign_browser::nip07::permissions::Permissions;
use sovereign_browser::nip07::{Nip07, Watchers};
use sovereign_browser::profile::Profile;
use sovereign_browser::recording::Recorder;
use sovereign_browser::server;
use sovereign_browser::tools::app::{App, Security, Setup, Shared};
use sovereign_browser::tools::Registry;
use std::io::{IsTerminal, Write};
use std::sync::Arc;
use tao::event::{Event, WindowEvent};
use tao::event_loop::{ControlFlow, EventLoopBuilder};

fn main() {
    // Whatever this program and its children create is owner-only: bodies,
    // PDFs and downloads in a files folder that may lie outside the
    // owner-only profile, WebKit's site data, the display's files.
    // SAFETY: umask only sets the process's file creation mask.
    unsafe {
        libc::umask(0o077);
    }
    let args = Args::parse();
    if let Err(message) = args.validate() {
        eprintln!("sovereign-browser: {message}");
        std::process::exit(2);
    }
    // Checked before anything starts: a mistyped tool name is a start-up error.
    let mut tools = Registry::new();
    if let Err(message) = tools.select(&args.tools) {
        eprintln!("sovereign-browser: --tools: {message}");
        std::process::exit(2);
    }
    init_logging(&args.log_level);
    if let Err(error) = run(args, tools) {
        eprintln!("sovereign-browser: {error:#}");
        std::process::exit(1);
    }
}

/// JavaScriptCore without its top tier (FTL) unless the environment says
/// otherwise (`JSC_useFTLJIT=true`). The tier compiles only code that has
/// run hot for a while, with a large compiler and memory of its own: off,
/// a web process holds about 10 MiB less after an agent's first snapshots
/// of a big page. Scripts of a second or less ran as fast or faster (no
/// time spent compiling); loops hot for seconds ran 15 to 30% slower on
/// the tier below (DFG), which stays.
fn set_javascript_defaults() {
    const TOP_TIER: &str = "JSC_useFTLJIT";
    if std::env::var_os(TOP_TIER).is_none() {
        std::env::set_var(TOP_TIER, "false");
    }
}

/// On a private display nobody sees the windows, so no assistive
/// technology serves them; and without a session bus GLib tries to start
/// one (`dbus-launch`) from each process that asks for it, the browser's,
/// the web and the network processes: every try a fork of a large process,
/// 20 to 30 ms of the start in all. So the accessibility bridge stays off
/// and, unless a session bus is there to be found, the address given names
/// none.
fn no_session_bus_tries() {
    const BRIDGE_OFF: &str = "NO_AT_BRIDGE";
    const SESSION_BUS: &str = "DBUS_SESSION_BUS_ADDRESS";
    const NO_BUS: &str = "unix:path=/nonexistent/sovereign-browser-no-session-bus";
    if std::env::var_os(BRIDGE_OFF).is_none() {
        std::env::set_var(BRIDGE_OFF, "1");
    }
    // GLib's own place for a bus when the address is not given.
    let runtime_bus = std::env::var_os("XDG_RUNTIME_DIR")
        .map(|dir| std::path::Path::new(&dir).join("bus"))
        .is_some_and(|path| path.exists());
    if std::env::var_os(SESSION_BUS).is_none() && !runtime_bus {
        std::env::set_var(SESSION_BUS, NO_BUS);
    }
}

fn init_logging(level: &str) {
    let filter = tracing_subscriber::EnvFilter::try_new(level)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
}

fn run(args: Args, tools: Registry) -> anyhow::Result<()> {
    // What the launcher (src-rust/bin/launcher.rs) started for this program,
    // taken out of the environment before anything else starts: no process
    // started later sees it.
    let handed_down = std::env::var_os(sovereign_browser::profile::HANDED_DOWN);
    let display_handed_down = std::env::var_os(headless::HANDED_DOWN);
    std::env::remove_var(sovereign_browser::profile::HANDED_DOWN);
    std::env::remove_var(headless::HANDED_DOWN);
    let profile = match args.ephemeral {
        true => Profile::take_over(handed_down.as_deref()),
        false => Profile::open(args.profile.clone(), false),
    }
    .context("cannot open the profile directory")?;
    // Secrets given from outside (a flag, the environment, a mounted file)
    // win over the profile's own, and are never printed.
    let token = match (args.no_token, args.given_token()?) {
        (true, _) => None,
        (false, Some(token)) => Some(token.to_string()),
        (false, None) => Some(
            profile
                .load_or_create_token()
                .context("cannot read or write the token file")?,
        ),
    };
    let given_panel_key = args.given_panel_key()?;
    let panel_key_given = given_panel_key.is_some();
    let panel_key = match given_panel_key {
        Some(key) => key.to_string(),
        None => profile
            .load_or_create_panel_key()
            .context("cannot read or write the panel key file")?,
    };
    // /metrics takes the token or its own read-only credential (none
    // needed when agents need no token either).
    let metrics_token = match (&token, args.given_metrics_token()?) {
        (None, _) => None,
        (Some(_), Some(given)) => Some(given.to_string()),
        (Some(_), None) => Some(
            profile
                .load_or_create_metrics_token()
                .context("cannot read or write the metrics token file")?,
        ),
    };
    let files_root = args
        .files_dir
        .clone()
        .unwrap_or_else(|| profile.downloads_dir());
    let files = FilesDir::new(&files_root, &profile.dir)
        .with_context(|| format!("cannot use {} as the files folder", files_root.display()))?
        .bounded(u64::from(args.files_max_mb) << 20);
    tracing::info!(folder = %files.root().display(), "agents' files stay in this folder");

    // Before any thread starts: these set the environment of the processes
    // started later (WebKit's, the private display).
    set_javascript_defaults();
    if let Err(error) = sovereign_browser::loader_tables::give_back(&profile.web_data_dir()) {
        tracing::warn!(%error, "the loader's tables stay as they are");
    }
    if let Err(error) = sovereign_browser::speech_stand_in::stand_in(&profile.web_data_dir()) {
        tracing::warn!(%error, "WebKit's processes load flite");
    }

    // Headless: our own display, set before GTK starts. The launcher
    // (src-rust/bin/launcher.rs) may have started it already, while this
    // program's libraries loaded.
    let mut xvfb = None;
    if args.wants_private_display() {
        headless::prefer_shared_memory();
        no_session_bus_tries();
        let starting = match handed_down_display(display_handed_down) {
            Some(starting) => starting,
            None => Xvfb::spawn(Screen::for_args(&args), &profile.xauthority_path())?,
        };
        let screen = starting.ready()?;
        std::env::set_var("DISPLAY", &screen.display);
        std::env::set_var("XAUTHORITY", &screen.authority);
        tracing::info!(
            display = %screen.display,
            authority = %screen.authority.display(),
            "started a private Xvfb display"
        );
        xvfb = Some(screen);
    }
    if headless::renders_from_shared_memory() {
        if std::env::var_os("GDK_GL").is_none() {
            // Nothing then draws with GTK's GL, and not probing it at start
            // (Mesa's GLX and LLVM) brings the first page about 70 ms sooner.
            std::env::set_var("GDK_GL", "disable");
        }
        if xvfb.is_some() {
            // Before any thread starts: it sets the environment for a moment.
            sovereign_browser::no_gl_driver::withhold_from_this_process();
        }
    }

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind((args.bind, args.port)))
        .with_context(|| {
            format!(
                "cannot listen on {}:{} (is another browser running?)",
                args.bind, args.port
            )
        })?;
    let addr = listener.local_addr()?;

    let event_loop = EventLoopBuilder::<UserEvent>::with_user_event().build();
    // A person pausing the agents, from the window or the panel.
    let paused = Arc::<sovereign_browser::base::pause::Pause>::default();
    let activity = Arc::new(sovereign_browser::activity::Activity::default());
    let asks = Arc::new(sovereign_browser::asks::Asks::default());
    let agent_scripted = Arc::new(sovereign_browser::agent_scripts::AgentScripted::default());
    let vault_uses = Arc::new(sovereign_browser::vault::Consents::default());
    let proxy = event_loop.create_proxy();
    let routing = sovereign_browser::routes::Routing::new();
    let (nostr_calls, nostr_incoming) = tokio::sync::mpsc::unbounded_channel();
    // The tabs' state, published by the main thread for tokio code.
    let (publisher, published) = tokio::sync::watch::channel(Default::default());
    let publisher = Arc::new(publisher);
    let browser = Browser::create(
        &event_loop,
        proxy.clone(),
        BrowserOptions {
            web_data: profile.web_data_dir(),
            contexts_dir: profile.contexts_dir(),
            start_url: args.start_url.clone(),
            // Pages' downloads land in the files folder's own place for them.
            downloads: files.page_downloads(),
            downloads_max_bytes: u64::from(args.downloads_max_mb) << 20,
            allow_file_urls: args.allow_file_urls,
            window_size: args.window_size,
            page_memory_mib: args.page_memory_mb,
            ignore_certificate_errors: args.ignore_certificate_errors,
            proxy: args.proxy.clone(),
            search_url: args.search_url.clone(),
            paused: paused.clone(),
            activity: activity.clone(),
            asks: asks.clone(),
            vault_uses: vault_uses.clone(),
            nostr_calls,
            agent_scripted: agent_scripted.clone(),
            publisher: publisher.clone(),
            panel_beside: xvfb.is_some(),
            routing: routing.clone(),
        },
    )?;

    let url = panel_url(addr, &panel_key);
    browser.borrow_mut().set_server(addr.port(), url.clone());
    if !args.no_panel {
        if let Err(error) = browser.borrow_mut().open_panel(&event_loop, &url) {
            tracing::warn!("cannot open the control panel window: {error}");
        }
    }

    let command_proxy = proxy.clone();
    let handle = BrowserHandle::new(
        Arc::new(move |command, reply, limit| {
            command_proxy
                .send_event(UserEvent::Command(command, reply, limit))
                .is_ok()
        }),
        published,
    );
    // The routing proxy has a context's engine accept its sites' certificates.
    let trusting = handle.clone();
    routing.set_trust_site(Box::new(move |context, host, pem| {
        let handle = trusting.clone();
        Box::pin(async move {
            let command = Command::TrustSite { context, host, pem };
            handle.call_value(command).await.map(|_| ())
        })
    }));
    // Routes answer nothing while the person holds their context: agents
    // paused, or a request for the person waiting on one of its tabs.
    let (holding, pause_held, asks_held) = (handle.clone(), paused.clone(), asks.clone());
    routing.set_held(Box::new(move |context| {
        pause_held.is_paused()
            || asks_held.list().iter().any(|ask| {
                holding.peek(|state| state.tab(ask.tab).is_some_and(|t| t.context == context))
            })
    }));
    let remembered = RememberedStore::new(profile.remembered_path());
    let app = App::new(
        handle,
        Security {
            token: token.clone(),
            panel_key: panel_key.clone(),
            metrics_token,
            addr,
            panel_address: args
                .panel_address
                .clone()
                .unwrap_or_else(|| format!("http://{addr}/")),
            proofs: Default::default(),
        },
        remembered,
        Shared {
            paused,
            activity: activity.clone(),
            asks,
            routing,
            vault_uses,
        },
        Setup {
            session_idle: args.session_idle(),
            contexts_max: usize::from(args.contexts_max),
            private_display: xvfb.is_some(),
            recorder: Recorder::new(
                Some(profile.recordings_dir()),
                args.record_max_mb * 1024 * 1024,
                !args.no_record,
            ),
            states_dir: profile.dir.join("states"),
            vault: sovereign_browser::vault::Vault::at(profile.vault_path()),
            files,
            tools,
            nip07: Nip07::new(
                Permissions::load(Some(profile.nostr_permissions_path())),
                ContextDecisions::new(Some(profile.contexts_dir())),
                args.nostr_prompt_timeout(),
                Watchers {
                    agent_scripted,
                    activity,
                    audit: Arc::new(Audit::open(Some(profile.audit_path()))),
                },
            ),
        },
    );
    runtime.spawn({
        let app = app.clone();
        async move {
            if let Err(error) = server::serve(listener, app).await {
                tracing::error!("server stopped: {error}");
            }
        }
    });
    runtime.spawn(server::expire_sessions(app.clone()));
    runtime.spawn(stop_on_signal(
        app.clone(),
        proxy.clone(),
        args.stop_grace(),
    ));
    runtime.spawn(show_identity(app.clone(), proxy.clone()));
    runtime.spawn(show_nostr_prompts(app.clone(), proxy.clone()));
    runtime.spawn(show_routes(app.clone(), proxy.clone()));
    runtime.spawn(show_vault_uses(app.clone(), proxy.clone()));
    runtime.spawn(sovereign_browser::nip07::serve(
        app.identities.clone(),
        app.browser.clone(),
        app.nip07.clone(),
        nostr_incoming,
    ));

    // Ready once the start page has loaded: a load still pending from
    // start-up would race the first navigation a client asks for.
    runtime.spawn({
        let app = app.clone();
        async move {
            wait_for_start_page(&app.browser).await;
            app.health.set_ready();
            print_ready(addr, (!panel_key_given).then_some(panel_key.as_str()));
        }
    });

    event_loop.run(move |event, target, control_flow| {
        *control_flow = ControlFlow::Wait;
        match event {
            Event::UserEvent(UserEvent::Shutdown) => *control_flow = ControlFlow::Exit,
            // The panel's or a context's window closes alone; the
            // person's own window ends the program.
            Event::WindowEvent {
                window_id,
                event: WindowEvent::CloseRequested,
                ..
            } if browser.borrow_mut().window_closed(window_id) => {
                *control_flow = ControlFlow::Exit;
            }
            Event::UserEvent(event) => browser::handle_event(&browser, event, target),
            Event::LoopDestroyed => {
                tracing::info!("shutting down");
                if !profile.ephemeral {
                    // WebKit's network process commits local storage in
                    // transactions of 500 ms: the last writes reach the
                    // disk only if it outlives them. Nothing tells when.
                    std::thread::sleep(STORAGE_COMMIT);
                }
                profile.cleanup();
                // The display goes last, after this process: nothing may draw after it.
                if let Some(xvfb) = xvfb.take() {
                    xvfb.outlive();
                }
                let _ = &runtime;
                // Not exit(): GTK's and WebKit's exit handlers may still talk
                // to the display, which goes as this process ends.
                // SAFETY: ends the process at once; nothing is left to run.
                unsafe { libc::_exit(0) };
            }
            _ => {}
        }
    });
}

/// How long the network process is given to commit the last writes of
/// pages' local storage before the browser ends (WebKit commits every
/// 500 ms, on a work queue that may be late under load).
const STORAGE_COMMIT: std::time::Duration = std::time::Duration::from_millis(1000);

async fn wait_for_start_page(browser: &BrowserHandle) {
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(20);
    let loaded = browser
        .wait_until(deadline, |state| {
            state
                .front()
                .is_some_and(|front| front.nav.finished >= 1 && !front.loading)
                .then_some(())
        })
        .await;
    if loaded.is_none() {
        tracing::warn!("the start page did not finish loading within 20 s");
    }
}

/// The panel's address, carrying the person's key (as Jupyter does).
fn panel_url(addr: std::net::SocketAddr, panel_key: &str) -> String {
    format!("http://{addr}/?key={panel_key}")
}

/// The addresses, the panel's with its key unless the key came from
/// outside (whoever gave it has it; logs are read by others).
fn print_ready(addr: std::net::SocketAddr, panel_key: Option<&str>) {
    let base = format!("http://{addr}");
    let panel = match panel_key {
        Some(key) => panel_url(addr, key),
        None => format!("{base}/ (it asks for the panel key you gave)"),
    };
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "sovereign-browser: listening on {base}");
    let _ = writeln!(out, "sovereign-browser: MCP endpoint {base}/mcp");
    let _ = writeln!(out, "sovereign-browser: control panel {panel}");
    let _ = out.flush();
}

/// Keeps each window's identity label on its context's identity, and ends
/// the identity of a context once it closed (however it closed).
async fn show_identity(app: Arc<App>, proxy: tao::event_loop::EventLoopProxy<UserEvent>) {
    let (mut identities, mut contexts) = (app.identities.watch(), app.browser.watch());
    loop {
        identities.mark_unchanged();
        let open: Vec<_> = contexts
            .borrow_and_update()
            .contexts
            .iter()
            .map(|c| c.id)
            .collect();
        // A closed context's identity and window.nostr decisions end with it.
        app.identities.keep_only(&open);
        app.nip07.contexts.keep_only(&open);
        if proxy
            .send_event(UserEvent::Identity(app.identities.summaries()))
            .is_err()
        {
            return;
        }
        let changed = tokio::select! {
            changed = identities.changed() => changed,
            changed = contexts.changed() => changed,
        };
        if changed.is_err() {
            return;
        }
    }
}

/// Shows each window which agents' routes answer its requests; a window
/// opened since is told too.
async fn show_routes(app: Arc<App>, proxy: tao::event_loop::EventLoopProxy<UserEvent>) {
    let (mut routes, mut browser) = (app.routing.watch(), app.browser.watch());
    let open = |state: &sovereign_browser::base::tab::BrowserState| -> Vec<u64> {
        state.contexts.iter().map(|c| c.id).collect()
    };
    let mut windows = open(&browser.borrow_and_update());
    loop {
        routes.mark_unchanged();
        if proxy
            .send_event(UserEvent::Routes(app.routing.all()))
            .is_err()
        {
            return;
        }
        // Again when routes change, or a context's window opens.
        loop {
            tokio::select! {
                changed = routes.changed() => match changed {
                    Ok(()) => break,
                    Err(_) => return,
                },
                changed = browser.changed() => {
                    if changed.is_err() {
                        return;
                    }
                    let now = open(&browser.borrow_and_update());
                    if now != windows {
                        windows = now;
                        break;
                    }
                }
            }
        }
    }
}

/// Shows the uses of the person's vault waiting for their yes, in the
/// windows of their tabs, whenever they change.
async fn show_vault_uses(app: Arc<App>, proxy: tao::event_loop::EventLoopProxy<UserEvent>) {
    let mut changes = app.vault_uses.watch();
    loop {
        changes.mark_unchanged();
        let waiting = app.vault_uses.list();
        if proxy.send_event(UserEvent::VaultUses(waiting)).is_err()
            || changes.changed().await.is_err()
        {
            return;
        }
    }
}

/// Notes waiting window.nostr requests in the window.
async fn show_nostr_prompts(app: Arc<App>, proxy: tao::event_loop::EventLoopProxy<UserEvent>) {
    let mut changes = app.nip07.prompts.watch();
    loop {
        let line = changes.borrow_and_update().clone();
        if proxy.send_event(UserEvent::NostrPrompts(line)).is_err()
            || changes.changed().await.is_err()
        {
            return;
        }
    }
}

/// A stop asked by a signal (SIGTERM from an orchestrator, SIGINT):
/// `/readyz` says so and new calls are refused at once; calls running may
/// finish within `grace`; then the browser ends. A second signal ends it
/// at once.
async fn stop_on_signal(
    app: Arc<App>,
    proxy: tao::event_loop::EventLoopProxy<UserEvent>,
    grace: std::time::Duration,
) {
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut term), Ok(mut int)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        return;
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
    }
    app.health.set_stopping();
    let running = app.health.running();
    tracing::info!(
        running,
        grace_s = grace.as_secs(),
        "stopping: new calls are refused"
    );
    tokio::select! {
        drained = app.health.drained(grace) => {
            if !drained {
                tracing::warn!(running = app.health.running(), "calls still running after the grace; stopping anyway");
            }
        }
        _ = term.recv() => {}
        _ = int.recv() => {}
    }
    let _ = proxy.send_event(UserEvent::Shutdown);
}

/// The display the launcher started and handed down, if it did.
fn handed_down_display(value: Option<std::ffi::OsString>) -> Option<headless::Starting> {
    match value?.to_str().map(headless::Starting::taken_over) {
        Some(Ok(starting)) => Some(starting),
        Some(Err(error)) => {
            tracing::warn!(%error, "starting a display of its own");
            None
        }
        None => None,
    }
}
