//! `sovereign`: the command-line client of a running Sovereign Browser.
fn main() -> std::process::ExitCode {
    sovereign_browser::cli::main()
}
