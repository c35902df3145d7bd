//! `sovereign`: every tool from a shell, against a running browser, over
//! `/agent`. It never loads GTK or WebKit, so it starts in milliseconds.
//!
//! Exit codes: 0 success, 1 a tool failed (its code is printed), 2 a usage
//! error, 3 no browser could be reached, 4 the browser refused the token.

mod catalog;
mod connection;
mod output;

use connection::{ConnectError, Connection};
use serde_json::Value;
use std::io::{BufRead, IsTerminal};
use std::path::PathBuf;
use std::process::ExitCode;

const DEFAULT_ADDR: &str = "127.0.0.1:17777";

const USAGE: &str = "usage: sovereign [--addr HOST:PORT | --port N] [--token TOKEN] [--profile DIR] [--json] [--out FILE] COMMAND

commands:
  TOOL [ARGS]     run one tool: sovereign open https://example.com, sovereign click @e3,
                  sovereign fill @e5 'hello', sovereign snapshot --interactive false,
                  or one JSON object: sovereign fill '{\"ref\":\"@e5\",\"value\":\"hi\"}'
  tools           list the tools
  help TOOL       a tool's parameters
  -               run tools read from standard input, one per line, over one connection

The browser is found at --addr, --port, $SOVEREIGN_ADDR or 127.0.0.1:17777; its
token is --token, $SOVEREIGN_TOKEN, or read from the profile ($SOVEREIGN_PROFILE or
the default one).
Exit codes: 0 done, 1 the tool failed, 2 usage error, 3 no browser reachable,
4 the browser refused the token.";

/// Where and how to talk to the browser, and how to print.
struct Options {
    addr: String,
    token: Option<String>,
    profile: Option<PathBuf>,
    json: bool,
    out: Option<PathBuf>,
}

enum Outcome {
    Done,
    ToolFailed,
    Usage(String),
    Unreachable(String),
    TokenRefused(String),
}

impl Outcome {
    fn exit(self) -> ExitCode {
        let (code, message) = match self {
            Outcome::Done => return ExitCode::SUCCESS,
            Outcome::ToolFailed => return ExitCode::from(1),
            Outcome::Usage(message) => (2, message),
            Outcome::Unreachable(message) => (3, message),
            Outcome::TokenRefused(message) => (4, message),
        };
        eprintln!("sovereign: {message}");
        ExitCode::from(code)
    }
}

pub fn main() -> ExitCode {
    let words: Vec<String> = std::env::args().skip(1).collect();
    run(words).exit()
}

fn run(words: Vec<String>) -> Outcome {
    let (options, rest) = match options(words) {
        Ok(parsed) => parsed,
        Err(message) => return Outcome::Usage(message),
    };
    let Some((command, args)) = rest.split_first() else {
        return Outcome::Usage(USAGE.into());
    };
    match command.as_str() {
        "-h" | "--help" => {
            println!("{USAGE}");
            Outcome::Done
        }
        "help" if args.is_empty() => {
            println!("{USAGE}");
            Outcome::Done
        }
        "help" => match catalog::find(&args[0]) {
            Some(tool) => {
                print!("{}", output::tool_help(tool));
                Outcome::Done
            }
            None => Outcome::Usage(format!(
                "no tool is called {:?}; `sovereign tools` lists them",
                args[0]
            )),
        },
        "tools" => {
            print!("{}", output::tool_list(catalog::tools()));
            Outcome::Done
        }
        "-" => from_stdin(&options),
        name => {
            let Some(tool) = catalog::find(name) else {
                return Outcome::Usage(format!(
                    "no tool or command is called {name:?}; `sovereign tools` lists the tools"
                ));
            };
            let params = match catalog::arguments(tool, args) {
                Ok(params) => params,
                Err(message) => return Outcome::Usage(message),
            };
            let mut connection = match connect(&options) {
                Ok(c) => c,
                Err(outcome) => return outcome,
            };
            let outcome = call(&mut connection, &options, name, params);
            connection.close();
            outcome
        }
    }
}

/// Global flags before the command; `--json` and `--out` anywhere.
fn options(words: Vec<String>) -> Result<(Options, Vec<String>), String> {
    let mut options = Options {
        addr: std::env::var("SOVEREIGN_ADDR").unwrap_or_else(|_| DEFAULT_ADDR.into()),
        token: std::env::var("SOVEREIGN_TOKEN")
            .ok()
            .filter(|t| !t.is_empty()),
        profile: std::env::var_os("SOVEREIGN_PROFILE").map(PathBuf::from),
        json: false,
        out: None,
    };
    let mut rest = Vec::new();
    let mut words = words.into_iter();
    let mut command_seen = false;
    while let Some(word) = words.next() {
        let mut value = |flag: &str| words.next().ok_or_else(|| format!("{flag} needs a value"));
        match word.as_str() {
            "--json" => options.json = true,
            "--out" => options.out = Some(PathBuf::from(value("--out")?)),
            "--addr" if !command_seen => options.addr = value("--addr")?,
            "--port" if !command_seen => {
                let port: u16 = value("--port")?
                    .parse()
                    .map_err(|_| "--port must be a port number".to_string())?;
                options.addr = format!("127.0.0.1:{port}");
            }
            "--token" if !command_seen => options.token = Some(value("--token")?),
            "--profile" if !command_seen => {
                options.profile = Some(PathBuf::from(value("--profile")?))
            }
            _ => {
                command_seen = true;
                rest.push(word);
            }
        }
    }
    Ok((options, rest))
}

/// The token: given, or the one the browser keeps in its profile.
fn token(options: &Options) -> Option<String> {
    if options.token.is_some() {
        return options.token.clone();
    }
    let dir = options
        .profile
        .clone()
        .unwrap_or_else(crate::profile::default_dir);
    std::fs::read_to_string(dir.join("token"))
        .ok()
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
}

fn connect(options: &Options) -> Result<Connection, Outcome> {
    let token = token(options);
    Connection::open(&options.addr, token.as_deref()).map_err(|e| match e {
        ConnectError::Unreachable(why) => Outcome::Unreachable(format!(
            "no browser is running at {} ({why}); start one with `scripts/start.sh` or `sovereign-browser`",
            options.addr
        )),
        ConnectError::TokenRefused if token.is_some() => Outcome::TokenRefused(format!(
            "the browser at {} refused the token (401); give the one in its profile with --token, $SOVEREIGN_TOKEN or --profile DIR",
            options.addr
        )),
        ConnectError::TokenRefused => Outcome::TokenRefused(format!(
            "the browser at {} asks for a token (401) and none was found; give it with --token, $SOVEREIGN_TOKEN or --profile DIR",
            options.addr
        )),
        ConnectError::Refused(why) => Outcome::Unreachable(format!("cannot talk to the browser at {}: {why}", options.addr)),
    })
}

fn call(connection: &mut Connection, options: &Options, tool: &str, params: Value) -> Outcome {
    let reply = match connection.call(tool, params) {
        Ok(reply) => reply,
        Err(message) => return Outcome::Unreachable(message),
    };
    match output::print_reply(tool, &reply, options.json, options.out.as_deref()) {
        Ok(true) => Outcome::Done,
        Ok(false) => Outcome::ToolFailed,
        Err(message) => Outcome::Usage(message),
    }
}

/// Tools read from standard input, one command line per line, over one
/// connection. Stops at the first failure.
fn from_stdin(options: &Options) -> Outcome {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        eprintln!("sovereign: reading tools from standard input, one per line (Ctrl+D ends)");
    }
    let mut connection = None;
    for (number, line) in stdin.lock().lines().enumerate() {
        let Ok(line) = line else { break };
        let words = match split_line(&line) {
            Ok(words) => words,
            Err(message) => return Outcome::Usage(format!("line {}: {message}", number + 1)),
        };
        let Some((name, args)) = words.split_first() else {
            continue;
        };
        if name.starts_with('#') {
            continue;
        }
        let Some(tool) = catalog::find(name) else {
            return Outcome::Usage(format!("line {}: no tool is called {name:?}", number + 1));
        };
        let params = match catalog::arguments(tool, args) {
            Ok(params) => params,
            Err(message) => return Outcome::Usage(format!("line {}: {message}", number + 1)),
        };
        if connection.is_none() {
            match connect(options) {
                Ok(c) => connection = Some(c),
                Err(outcome) => return outcome,
            }
        }
        let Some(open) = connection.as_mut() else {
            break;
        };
        match call(open, options, name, params) {
            Outcome::Done => {}
            other => return other,
        }
    }
    if let Some(open) = connection {
        open.close();
    }
    Outcome::Done
}

/// Splits a command line as a shell would: words, 'single' and "double"
/// quotes, backslash escapes.
fn split_line(line: &str) -> Result<Vec<String>, String> {
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
                        None => return Err("a ' quote is not closed".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => word.push(chars.next().ok_or("a line ends in \\")?),
                        Some(c) => word.push(c),
                        None => return Err("a \" quote is not closed".into()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.push(chars.next().ok_or("a line ends in \\")?);
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
            split_line(r#"fill @e3 "hello \"you\"" 'it''s' a\ b"#).unwrap(),
            ["fill", "@e3", "hello \"you\"", "its", "a b"]
        );
        assert!(split_line("open 'https://x").is_err());
        assert!(split_line("   ").unwrap().is_empty());
    }
}
