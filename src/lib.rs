//! pisess: an inspector for the session files of the pi coding agent.
//!
//! The binary parses the command line, builds an [`app::env::Env`] and calls [`run`]; everything
//! else lives in the library so tests can drive it in-process.

pub mod app;
pub mod cmd;
pub mod util;
pub mod views;

use std::io::{Read, Write};

use app::cli::{Cli, Command};
use app::diag::Diag;
use app::env::Env;
use app::exit::Outcome;

/// The binary's other half: a run's result to an exit code and the error line.
pub use app::exit::finish;

/// Runs one parsed command line.
pub fn run(
    cli: Cli,
    env: &Env,
    out: &mut dyn Write,
    err: &mut dyn Write,
    stdin: &mut dyn Read,
) -> anyhow::Result<Outcome> {
    let mut diag = Diag::new(err, env.quiet, env.err_theme());
    diag.verbose = env.verbose;
    for w in &env.location.warnings {
        diag.warn("", None, w);
    }
    let Some(command) = pager_for(&cli.command, env) else {
        return dispatch(cli.command, env, out, &mut diag, stdin);
    };
    let mut pager = app::pager::Pager::new(out, command, env.height, env.width);
    let result = dispatch(cli.command, env, &mut pager, &mut diag, stdin);
    let finished = pager.finish();
    match (result, finished) {
        // A pager that failed closed its input too: its failure, not the closed pipe, is the
        // news.
        (Err(e), Err(failed)) if app::exit::is_broken_pipe(&e) => Err(failed.into()),
        (result, finished) => result.and_then(|o| finished.map(|()| o).map_err(Into::into)),
    }
}

/// The pager command for commands whose output is read, not followed: `show` (not `-f`),
/// `tree`, `context`, `stats`, `files`, `diff`. `None` when [`Env::pager`] says not to page.
fn pager_for(command: &Command, env: &Env) -> Option<String> {
    match command {
        Command::Show(args) if args.follow => None,
        Command::Show(_)
        | Command::Tree(_)
        | Command::Context(_)
        | Command::Stats(_)
        | Command::Files(_)
        | Command::Diff(_) => env.pager.clone(),
        _ => None,
    }
}

fn dispatch(
    command: Command,
    env: &Env,
    out: &mut dyn Write,
    diag: &mut Diag,
    stdin: &mut dyn Read,
) -> anyhow::Result<Outcome> {
    match command {
        Command::Ls(args) => cmd::ls::run(&args, env, out, diag),
        Command::Show(args) => cmd::show::run(&args, env, out, diag, stdin),
        Command::Tree(args) => cmd::tree::run(&args, env, out, diag, stdin),
        Command::Path(args) => cmd::path::run(&args, env, out, diag),
        Command::Context(args) => cmd::context::run(&args, env, out, diag, stdin),
        Command::Stats(args) => cmd::stats::run(&args, env, out, diag, stdin),
        Command::Files(args) => cmd::files::run(&args, env, out, diag, stdin),
        Command::Facts(args) => cmd::facts::run(&args, env, out, diag),
        Command::Diff(args) => cmd::diff::run(&args, env, out, diag, stdin),
        Command::Check(args) => cmd::check::run(&args, env, out, diag, stdin),
        Command::Rm(args) => cmd::rm::run(&args, env, out, diag, stdin),
        Command::Grep(args) => cmd::grep::run(&args, env, out, diag, stdin),
        Command::Export(args) => cmd::export::run(&args, env, out, diag, stdin),
        Command::Generate(args) => cmd::generate::run(&args, out),
    }
}
