//! `sovereign record export` and `sovereign replay`: a recorded session as
//! a flow (or a Playwright test), and a flow done again with no model.
//! Exit codes as the tools': 1 when a step differs from what was recorded.

use super::connection::Connection;
use super::error::CliError;
use super::reach::{connect, Options, Outcome};
use crate::flow::{self, Flow, FlowStep, Target};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long a step looks for its element (the page may still be drawing it).
const FIND_WAIT: Duration = Duration::from_secs(5);
const FIND_PAUSE: Duration = Duration::from_millis(150);

/// `record export SESSION [--format flow|playwright]`: from the profile's
/// recordings, written to --out or printed.
pub(super) fn export(options: &Options, args: &[String]) -> Outcome {
    let mut session = None;
    let mut format = "flow".to_string();
    let mut words = args.iter();
    while let Some(word) = words.next() {
        match word.as_str() {
            "--format" => match words.next() {
                Some(value) => format = value.clone(),
                None => return CliError::Usage("--format needs flow or playwright".into()).into(),
            },
            other if other.starts_with("--format=") => format = other["--format=".len()..].into(),
            other if other.starts_with('-') => {
                return CliError::Usage(format!(
                    "record export takes --format and --out, not {other}"
                ))
                .into()
            }
            other if session.is_none() => session = Some(other.to_string()),
            other => {
                return CliError::Usage(format!("one session at a time, not also {other}")).into()
            }
        }
    }
    let Some(session) = session else {
        return CliError::Usage(
            "usage: sovereign record export SESSION|last [--format flow|playwright] [--out FILE]"
                .into(),
        )
        .into();
    };
    let profile = options
        .profile
        .clone()
        .unwrap_or_else(crate::profile::default_dir);
    let (session, steps) =
        match crate::recording::read_session(&profile.join("recordings"), &session) {
            Ok(found) => found,
            Err(why) => return CliError::Recording(why).into(),
        };
    let flow = flow::from_steps(&session, &steps);
    let text = match format.as_str() {
        "flow" => serde_json::to_string_pretty(&flow).unwrap_or_default() + "\n",
        "playwright" => flow::playwright::spec(&flow),
        other => return CliError::Usage(format!("--format {other}: flow or playwright")).into(),
    };
    match &options.out {
        Some(path) => match std::fs::write(path, text) {
            Ok(()) => {
                println!(
                    "{} steps of session {session} in {}",
                    flow.steps.len(),
                    path.display()
                );
                Outcome::Done
            }
            Err(e) => CliError::Unwritable {
                path: path.clone(),
                why: e.to_string(),
            }
            .into(),
        },
        None => {
            print!("{text}");
            Outcome::Done
        }
    }
}

/// What `replay` was asked: the flow, the values to set, the origin the
/// recorded one stands for.
struct Replay {
    path: PathBuf,
    flow: Flow,
    values: HashMap<String, String>,
    origin: Option<(String, String)>,
}

/// `replay FLOW.json [--set NAME=VALUE]... [--origin URL]`.
pub(super) fn replay(options: &Options, args: &[String]) -> Outcome {
    let replay = match replay_args(args) {
        Ok(replay) => replay,
        Err(error) => return error.into(),
    };
    if let Some(missing) = replay.flow.steps.iter().find_map(|s| {
        s.value
            .as_ref()
            .filter(|v| v.value.is_none() && !replay.values.contains_key(&v.param))
    }) {
        return CliError::Usage(format!(
            "the flow needs --set {}=... (a secret: its value was never recorded)",
            missing.param
        ))
        .into();
    }
    // Said before anything runs: a flow is a file, and may come from anyone.
    let origins = flow::check::origins(&replay.flow, |url| replay.moved(url));
    match origins.is_empty() {
        true => println!("this flow opens no address: it acts on the tab in front"),
        false => println!("this flow opens {}", origins.join(", ")),
    }
    let mut connection = match connect(options) {
        Ok(c) => c,
        Err(error) => return error.into(),
    };
    let total = replay.flow.steps.len();
    for (i, step) in replay.flow.steps.iter().enumerate() {
        match run_step(&mut connection, &replay, step) {
            Ok(()) => println!("step {}/{total} ok: {}", i + 1, describe(step)),
            Err(Differs::Lost(error)) => {
                connection.close();
                return error.into();
            }
            Err(Differs::Step { expected, found }) => {
                let shot = screenshot(&mut connection, options, &replay.path, i + 1);
                connection.close();
                println!(
                    "replay stopped at step {} of {total} (recorded call {}): {}",
                    i + 1,
                    step.n,
                    describe(step)
                );
                println!("  expected: {expected}");
                println!("  found: {found}");
                match shot {
                    Ok(path) => println!("  screenshot: {}", path.display()),
                    Err(why) => println!("  screenshot: none ({why})"),
                }
                return Outcome::ToolFailed;
            }
        }
    }
    connection.close();
    println!("replayed {total} steps of session {}", replay.flow.session);
    Outcome::Done
}

fn replay_args(args: &[String]) -> Result<Replay, CliError> {
    let mut path = None;
    let mut values = HashMap::new();
    let mut origin = None;
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let (flag, inline) = match word.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag, Some(value.to_string())),
            _ => (word.as_str(), None),
        };
        let mut value = || {
            inline
                .clone()
                .or_else(|| words.next().cloned())
                .ok_or_else(|| CliError::Usage(format!("{flag} needs a value")))
        };
        match flag {
            "--set" => {
                let pair = value()?;
                let (name, set) = pair
                    .split_once('=')
                    .ok_or_else(|| CliError::Usage(format!("--set {pair}: write NAME=VALUE")))?;
                values.insert(name.to_string(), set.to_string());
            }
            "--origin" => origin = Some(value()?),
            other if other.starts_with('-') => {
                return Err(CliError::Usage(format!(
                    "replay takes --set NAME=VALUE and --origin URL, not {other}"
                )))
            }
            _ if path.is_none() => path = Some(PathBuf::from(word)),
            _ => {
                return Err(CliError::Usage(format!(
                    "one flow at a time, not also {word}"
                )))
            }
        }
    }
    let Some(path) = path else {
        return Err(CliError::Usage(
            "usage: sovereign replay FLOW.json [--set NAME=VALUE]... [--origin URL]".into(),
        ));
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) => {
            return Err(CliError::Unreadable {
                path,
                why: e.to_string(),
            })
        }
    };
    let flow: Flow = match serde_json::from_str(&text) {
        Ok(flow) => flow,
        Err(e) => {
            return Err(CliError::NotAFlow {
                path,
                why: e.to_string(),
            })
        }
    };
    if flow.flow != flow::FORMAT {
        return Err(CliError::FlowFormat {
            path,
            format: flow.flow,
        });
    }
    if let Err(why) = flow::check::check(&flow) {
        return Err(CliError::FlowRefused { path, why });
    }
    let recorded = flow
        .steps
        .iter()
        .find_map(|s| s.args.get("url").and_then(Value::as_str))
        .and_then(crate::address::origin_of);
    let origin = match (origin, recorded) {
        (Some(given), Some(recorded)) => {
            let given = crate::address::origin_of(&given)
                .ok_or_else(|| CliError::Usage(format!("--origin {given}: an http(s) origin")))?;
            Some((recorded, given))
        }
        _ => None,
    };
    Ok(Replay {
        path,
        flow,
        values,
        origin,
    })
}

/// Why a step could not be done again.
enum Differs {
    /// The page is not as recorded.
    Step { expected: String, found: String },
    /// The browser went away.
    Lost(CliError),
}

fn run_step(connection: &mut Connection, replay: &Replay, step: &FlowStep) -> Result<(), Differs> {
    let mut params = match &step.args {
        Value::Object(map) => map.clone(),
        _ => Map::new(),
    };
    for key in ["url"] {
        if let Some(url) = params.get(key).and_then(Value::as_str) {
            let moved = replay.moved(url);
            params.insert(key.into(), moved.into());
        }
    }
    if let Some(target) = &step.target {
        let found = find(connection, target)?;
        params.extend(found);
    }
    // The browser fills it from the person's vault again, by the entry's name.
    if let Some(from_vault) = &step.from_vault {
        params.insert("secret".into(), from_vault.secret.clone().into());
        params.insert("field".into(), from_vault.field.clone().into());
    }
    if let Some(value) = &step.value {
        let given = replay.values.get(&value.param).map(|v| json!(v));
        params.insert(
            "value".into(),
            given.or(value.value.clone()).unwrap_or(Value::Null),
        );
    }
    let result =
        call(connection, &step.tool, Value::Object(params))?.map_err(|error| Differs::Step {
            expected: format!("{} to work", step.tool),
            found: error.to_string(),
        })?;
    if let Some(want) = &step.expect.url {
        let want = replay.moved(want);
        let now = match result.get("url").and_then(Value::as_str) {
            Some(url) => url.to_string(),
            None => current_url(connection)?,
        };
        // The page, not what its query carries (values set with --set may differ).
        if page_of(&now) != page_of(&want) {
            return Err(Differs::Step {
                expected: format!("the page at {want}"),
                found: format!("the page at {now}"),
            });
        }
    }
    if let Some(want) = step.expect.new_tabs {
        let opened = result
            .get("new_tabs")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        if opened != want {
            return Err(Differs::Step {
                expected: format!("{want} new tab(s)"),
                found: format!("{opened} new tab(s)"),
            });
        }
    }
    Ok(())
}

impl Replay {
    /// A recorded address, on the origin given with --origin.
    fn moved(&self, url: &str) -> String {
        match &self.origin {
            Some((recorded, given)) => match url.strip_prefix(recorded.as_str()) {
                Some(rest) => format!("{given}{rest}"),
                None => url.to_string(),
            },
            None => url.to_string(),
        }
    }
}

/// The element, found again by what it was: its test id, its role and
/// name, the selector the agent used, its text or label. Never its old ref.
fn find(connection: &mut Connection, target: &Target) -> Result<Map<String, Value>, Differs> {
    let mut ways: Vec<(&str, Value)> = Vec::new();
    if let Some(testid) = &target.testid {
        ways.push(("find_testid", json!({"testid": testid})));
    }
    if !target.name.is_empty() && target.role != "generic" {
        ways.push((
            "find_role",
            json!({"role": target.role, "name": target.name, "exact": true}),
        ));
    }
    if !target.name.is_empty() {
        ways.push(("find_label", json!({"label": target.name})));
        ways.push(("find_text", json!({"text": target.name, "exact": true})));
    }
    let deadline = Instant::now() + FIND_WAIT;
    let mut last = String::from("no way to find it");
    loop {
        for (tool, params) in &ways {
            match call(connection, tool, params.clone())? {
                Ok(found) => {
                    if let Some(reference) = found.get("ref").and_then(Value::as_str) {
                        return Ok(Map::from_iter([("ref".into(), reference.into())]));
                    }
                }
                Err(error) => last = error.to_string(),
            }
        }
        if let Some(selector) = &target.selector {
            let counted = call(connection, "get_count", json!({"selector": selector}))?;
            if counted.ok().and_then(|c| c["count"].as_u64()) == Some(1) {
                return Ok(Map::from_iter([(
                    "selector".into(),
                    selector.clone().into(),
                )]));
            }
        }
        if Instant::now() >= deadline {
            return Err(Differs::Step {
                expected: format!("an element: {}", element(target)),
                found: last,
            });
        }
        std::thread::sleep(FIND_PAUSE);
    }
}

/// A tool's result, or the error it answered ([`CliError::Tool`]).
fn call(
    connection: &mut Connection,
    tool: &str,
    params: Value,
) -> Result<Result<Value, CliError>, Differs> {
    let reply = connection.call(tool, params).map_err(Differs::Lost)?;
    if reply["ok"] == true {
        return Ok(Ok(reply["result"].clone()));
    }
    let error = &reply["error"];
    Ok(Err(CliError::Tool {
        code: error["code"].as_str().unwrap_or("ERROR").to_string(),
        message: error["message"].as_str().unwrap_or_default().to_string(),
    }))
}

fn current_url(connection: &mut Connection) -> Result<String, Differs> {
    let got = call(connection, "get_url", json!({}))?;
    Ok(got
        .ok()
        .and_then(|r| r["url"].as_str().map(str::to_string))
        .unwrap_or_default())
}

/// A screenshot of where the replay stopped, beside the flow (or at --out).
fn screenshot(
    connection: &mut Connection,
    options: &Options,
    flow: &Path,
    step: usize,
) -> Result<PathBuf, CliError> {
    let path = options.out.clone().unwrap_or_else(|| {
        let stem = flow
            .file_stem()
            .map_or("flow".into(), |s| s.to_string_lossy().into_owned());
        flow.with_file_name(format!("{stem}-step{step}.png"))
    });
    let reply = connection.call("screenshot", json!({}))?;
    use base64::Engine as _;
    let data = reply["result"]["data"].as_str().ok_or(CliError::NoImage)?;
    let png = base64::engine::general_purpose::STANDARD
        .decode(data)
        .map_err(|e| CliError::ShotUndecodable { why: e.to_string() })?;
    match std::fs::write(&path, png) {
        Ok(()) => Ok(path),
        Err(e) => Err(CliError::Unwritable {
            path,
            why: e.to_string(),
        }),
    }
}

fn describe(step: &FlowStep) -> String {
    match (&step.target, step.args.get("url").and_then(Value::as_str)) {
        (Some(target), _) => format!("{} {}", step.tool, element(target)),
        (None, Some(url)) => format!("{} {url}", step.tool),
        (None, None) => step.tool.clone(),
    }
}

fn element(target: &Target) -> String {
    format!("{} {:?}", target.role, target.name)
}

/// An address without its query and fragment.
fn page_of(url: &str) -> &str {
    url.split(['?', '#']).next().unwrap_or(url)
}
