//! `sovereign`: every tool from a shell, against a running browser, over
//! `/agent`. It never loads GTK or WebKit, so it starts in milliseconds.
//!
//! Exit codes: 0 success, 1 a tool failed (its code is printed), 2 a usage
//! error, 3 no browser could be reached, 4 the browser refused the token.

mod audit;
mod catalog;
mod connection;
mod error;
mod flows;
mod output;
mod reach;

use connection::Connection;
use error::CliError;
use reach::{connect, Options, Outcome};
use serde_json::Value;
use std::io::{BufRead, IsTerminal};
use std::path::PathBuf;
use std::process::ExitCode;

const DEFAULT_ADDR: &str = "127.0.0.1:17777";

/// The client's own flags, taken anywhere on the line up to a `--`.
const GLOBAL_FLAGS: &[&str] = &["addr", "port", "token", "profile", "json", "out", "help"];

const USAGE: &str = "usage: sovereign [FLAGS] COMMAND [ARGS] [FLAGS] [-- TOOL ARGS]

commands:
  TOOL [ARGS]     run one tool: sovereign open https://example.com, sovereign click e3,
                  sovereign fill e5 'hello', sovereign snapshot --interactive false,
                  sovereign login local --nsec nsec1...,
                  or one JSON object: sovereign fill '{\"ref\":\"e5\",\"value\":\"hi\"}'
  tools           list the tools
  help TOOL       a tool's parameters (or: sovereign TOOL --help)
  -               run tools read from standard input, one per line, over one connection;
                  every line is checked before the first one runs
  record export SESSION|last [--format flow|playwright]
                  a recorded session (the profile's recordings) as a flow to replay,
                  or as a Playwright test; to --out FILE or printed
  replay FLOW.json [--set NAME=VALUE]... [--origin URL]
                  do a flow again with no model: elements found by role and name,
                  test id, label or text; stops at the first step that differs,
                  saying what was expected and found, with a screenshot (exit 1)
  audit verify    check the identity audit's hash chain in the profile (--profile DIR):
                  names the first entry changed, removed or inserted (exit 1)

flags (anywhere on the line; after a `--` every word is the tool's):
  --addr HOST:PORT, --port N   where the browser listens
  --token TOKEN                its token
  --profile DIR                the profile the token is read from
  --json                       print the raw JSON result
  --out FILE                   where an image (a screenshot...) is written
  -h, --help                   this help

Refs are written as a snapshot prints them at the start of a line: e5 is
the element e5 (@e5 and [ref=e5] are taken too). A word that is not a ref is a CSS selector.

The browser is found at --addr, --port, $SOVEREIGN_ADDR or 127.0.0.1:17777; its
token is --token, $SOVEREIGN_TOKEN, or read from the profile ($SOVEREIGN_PROFILE or
the default one).
Exit codes: 0 done, 1 the tool failed, 2 usage error, 3 no browser reachable,
4 the browser refused the token.";

pub fn main() -> ExitCode {
    let words: Vec<String> = std::env::args().skip(1).collect();
    run(words).exit()
}

fn run(words: Vec<String>) -> Outcome {
    let (options, rest) = match options(words) {
        Ok(parsed) => parsed,
        Err(error) => return error.into(),
    };
    let Some((command, args)) = rest.split_first() else {
        if options.help {
            println!("{USAGE}");
            return Outcome::Done;
        }
        return CliError::Usage(USAGE.into()).into();
    };
    if options.help {
        return match catalog::find(command) {
            Some(tool) => {
                print!("{}", output::tool_help(tool));
                Outcome::Done
            }
            None => {
                println!("{USAGE}");
                Outcome::Done
            }
        };
    }
    match command.as_str() {
        "help" if args.is_empty() => {
            println!("{USAGE}");
            Outcome::Done
        }
        "help" => match catalog::find(&args[0]) {
            Some(tool) => {
                print!("{}", output::tool_help(tool));
                Outcome::Done
            }
            None => CliError::Usage(format!(
                "no tool is called {:?}; `sovereign tools` lists them",
                args[0]
            ))
            .into(),
        },
        "tools" => {
            print!("{}", output::tool_list(catalog::tools()));
            Outcome::Done
        }
        "-" => from_stdin(&options),
        "record" => match args.split_first() {
            Some((sub, rest)) if sub == "export" => flows::export(&options, rest),
            _ => CliError::Usage(
                "usage: sovereign record export SESSION|last [--format flow|playwright] [--out FILE]"
                    .into(),
            )
            .into(),
        },
        "replay" => flows::replay(&options, args),
        "audit" => audit::run(&options, args),
        name => {
            let Some(tool) = catalog::find(name) else {
                return CliError::Usage(format!(
                    "no tool or command is called {name:?}; `sovereign tools` lists the tools"
                ))
                .into();
            };
            let params = match catalog::arguments(tool, args) {
                Ok(params) => params,
                Err(error) => return error.into(),
            };
            let mut connection = match connect(&options) {
                Ok(c) => c,
                Err(error) => return error.into(),
            };
            let outcome = call(&mut connection, &options, name, params);
            connection.close();
            outcome
        }
    }
}

fn unknown_flag(flag: &str) -> CliError {
    let known: Vec<String> = GLOBAL_FLAGS.iter().map(|f| format!("--{f}")).collect();
    CliError::Usage(format!(
        "unknown flag {flag}; the flags are {} (`sovereign --help`), a tool's own are in `sovereign help TOOL`",
        known.join(", ")
    ))
}

/// The client's flags, wherever they are before a `--`; the command and its
/// words in order. A word right after one of the tool's own `--name` flags
/// is that flag's value, never a client flag.
fn options(words: Vec<String>) -> Result<(Options, Vec<String>), CliError> {
    let mut options = Options {
        addr: std::env::var("SOVEREIGN_ADDR").unwrap_or_else(|_| DEFAULT_ADDR.into()),
        token: std::env::var("SOVEREIGN_TOKEN")
            .ok()
            .filter(|t| !t.is_empty()),
        profile: std::env::var_os("SOVEREIGN_PROFILE").map(PathBuf::from),
        json: false,
        out: None,
        help: false,
    };
    let mut rest = Vec::new();
    let mut words = words.into_iter().peekable();
    let mut command: Option<Option<&catalog::Tool>> = None;
    while let Some(word) = words.next() {
        if word == "--" {
            rest.extend(words.by_ref());
            break;
        }
        let (flag, inline) = match word.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag, Some(value.to_string())),
            _ => (word.as_str(), None),
        };
        let mut value = |name: &str| match inline.clone() {
            Some(v) => Ok(v),
            None => words
                .next()
                .ok_or_else(|| CliError::Usage(format!("{name} needs a value"))),
        };
        match flag {
            "--json" if inline.is_none() => options.json = true,
            "-h" | "--help" if inline.is_none() => options.help = true,
            "--out" => options.out = Some(PathBuf::from(value("--out")?)),
            "--addr" => options.addr = value("--addr")?,
            "--port" => {
                let port: u16 = value("--port")?
                    .parse()
                    .map_err(|_| CliError::Usage("--port must be a port number".into()))?;
                options.addr = format!("127.0.0.1:{port}");
            }
            "--token" => options.token = Some(value("--token")?),
            "--profile" => options.profile = Some(PathBuf::from(value("--profile")?)),
            _ => match command {
                None if word.starts_with('-') && word != "-" => return Err(unknown_flag(&word)),
                None => {
                    command = Some(catalog::find(&word));
                    rest.push(word);
                }
                Some(tool) => {
                    // One of the tool's own flags: its value goes with it.
                    let schema = word
                        .strip_prefix("--")
                        .filter(|_| inline.is_none())
                        .and_then(|name| tool?.schema["properties"].get(name));
                    let takes_value = schema.is_some_and(|schema| {
                        schema["type"] != "boolean"
                            || words.peek().is_some_and(|n| !n.starts_with("--"))
                    });
                    rest.push(word);
                    if takes_value {
                        rest.extend(words.next());
                    }
                }
            },
        }
    }
    Ok((options, rest))
}

fn call(connection: &mut Connection, options: &Options, tool: &str, params: Value) -> Outcome {
    let reply = match connection.call(tool, params) {
        Ok(reply) => reply,
        Err(error) => return error.into(),
    };
    match output::print_reply(tool, &reply, options.json, options.out.as_deref()) {
        Ok(true) => Outcome::Done,
        Ok(false) => Outcome::ToolFailed,
        Err(error) => error.into(),
    }
}

/// Tools read from standard input, one command line per line, over one
/// connection. Every line is checked first: a bad one runs nothing. Stops
/// at the first failure.
fn from_stdin(options: &Options) -> Outcome {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        eprintln!(
            "sovereign: reading tools from standard input, one per line; they run after Ctrl+D"
        );
    }
    let mut calls = Vec::new();
    for (number, line) in stdin.lock().lines().enumerate() {
        let line = match line {
            Ok(line) => line,
            Err(e) => return CliError::StandardInput { why: e.to_string() }.into(),
        };
        match batch_line(&line) {
            Ok(Some(call)) => calls.push(call),
            Ok(None) => {}
            Err(error) => {
                return CliError::BatchLine {
                    number: number + 1,
                    error: Box::new(error),
                }
                .into()
            }
        }
    }
    if calls.is_empty() {
        return Outcome::Done;
    }
    let mut connection = match connect(options) {
        Ok(c) => c,
        Err(error) => return error.into(),
    };
    for (name, params) in calls {
        match call(&mut connection, options, &name, params) {
            Outcome::Done => {}
            other => return other,
        }
    }
    connection.close();
    Outcome::Done
}

/// One batch line as a tool call; None for a blank line or a comment.
fn batch_line(line: &str) -> Result<Option<(String, Value)>, CliError> {
    let words = split_line(line)?;
    let Some((name, args)) = words.split_first() else {
        return Ok(None);
    };
    if name.starts_with('#') {
        return Ok(None);
    }
    let tool = catalog::find(name)
        .ok_or_else(|| CliError::Usage(format!("no tool is called {name:?}")))?;
    Ok(Some((name.clone(), catalog::arguments(tool, args)?)))
}

/// Splits a command line as a shell would: words, 'single' and "double"
/// quotes, backslash escapes.
fn split_line(line: &str) -> Result<Vec<String>, CliError> {
    let unclosed = |quote: char| CliError::Usage(format!("a {quote} quote is not closed"));
    let ends_in_backslash = || CliError::Usage("a line ends in \\".into());
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(unclosed('\'')),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => word.push(chars.next().ok_or_else(ends_in_backslash)?),
                        Some(c) => word.push(c),
                        None => return Err(unclosed('"')),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.push(chars.next().ok_or_else(ends_in_backslash)?);
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_split_like_a_shell() {
        assert_eq!(
            split_line(r#"fill e3 "hello \"you\"" 'it''s' a\ b"#).unwrap(),
            ["fill", "e3", "hello \"you\"", "its", "a b"]
        );
        assert!(split_line("open 'https://x").is_err());
        assert!(split_line("   ").unwrap().is_empty());
    }

    #[test]
    fn batch_lines_are_checked_before_any_runs() {
        assert!(batch_line("  # a comment").unwrap().is_none());
        assert!(batch_line("").unwrap().is_none());
        let (name, params) = batch_line("open https://example.org").unwrap().unwrap();
        assert_eq!(
            (name.as_str(), &params["url"]),
            ("open", &"https://example.org".into())
        );
        assert!(batch_line("scroll sideways")
            .unwrap_err()
            .to_string()
            .contains("one of"));
        assert!(batch_line("no_such_tool")
            .unwrap_err()
            .to_string()
            .contains("no tool"));
    }

    fn parse(line: &[&str]) -> Result<(Options, Vec<String>), CliError> {
        options(line.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn global_flags_go_anywhere_on_the_line() {
        let (options, rest) = parse(&["get_url", "--port", "4321", "--token", "t0k"]).unwrap();
        assert_eq!(options.addr, "127.0.0.1:4321");
        assert_eq!(options.token.as_deref(), Some("t0k"));
        assert_eq!(rest, ["get_url"]);
        let (options, rest) = parse(&["--json", "fill", "e3", "--addr=h:1", "hi"]).unwrap();
        assert!(options.json);
        assert_eq!(options.addr, "h:1");
        assert_eq!(rest, ["fill", "e3", "hi"]);
        let (options, rest) = parse(&["click", "e5", "--help"]).unwrap();
        assert!(options.help);
        assert_eq!(rest, ["click", "e5"]);
    }

    #[test]
    fn after_a_double_dash_every_word_is_the_tool_s() {
        let (options, rest) = parse(&["fill", "e3", "--port", "1", "--", "--port"]).unwrap();
        assert_eq!(options.addr, "127.0.0.1:1");
        assert_eq!(rest, ["fill", "e3", "--port"]);
        // The value of one of the tool's own flags stays with it.
        let (options, rest) = parse(&["fill", "e3", "--value", "--json"]).unwrap();
        assert!(!options.json);
        assert_eq!(rest, ["fill", "e3", "--value", "--json"]);
        let (options, rest) = parse(&["snapshot", "--diff", "--json"]).unwrap();
        assert!(options.json);
        assert_eq!(rest, ["snapshot", "--diff"]);
    }

    #[test]
    fn an_unknown_flag_is_named_as_a_flag() {
        let error = parse(&["--bogus", "get_url"]).err().unwrap().to_string();
        assert!(
            error.starts_with("unknown flag --bogus; the flags are --addr"),
            "{error}"
        );
        assert!(parse(&["--port"])
            .err()
            .unwrap()
            .to_string()
            .contains("--port needs a value"));
        assert!(parse(&["--port", "http"]).is_err());
    }

    #[test]
    fn no_tool_has_a_parameter_named_like_a_global_flag() {
        // network_route's json is the peers' name for a JSON body; the
        // client takes it after `--` (sovereign network_route URL -- --json '{}').
        let named_by_peers = [("network_route", "json")];
        for tool in catalog::tools() {
            for flag in GLOBAL_FLAGS {
                if named_by_peers.contains(&(tool.name.as_str(), *flag)) {
                    continue;
                }
                assert!(
                    tool.schema["properties"].get(*flag).is_none(),
                    "{} has a parameter --{flag}, which the client takes as its own flag before `--`",
                    tool.name
                );
            }
        }
    }
}
