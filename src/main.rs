//! The binary: completion, the command line parsed, the facts of the run read once, then
//! `pisess::run` on a big stack, and its result turned into the exit code.

use std::io::{self, Write};
use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::Parser;
use pisess::app::progress::Suspending;
use pisess::views::style::Theme;

fn main() -> ExitCode {
    // `COMPLETE=bash pisess` prints the shell's hook; the hook calls back with COMPLETE set
    // and the words so far, and this answers with the candidates and exits. Our adapters, not
    // clap's: a candidate (a session name) is hostile text (`pisess::app::complete::shells`).
    clap_complete::CompleteEnv::with_factory(pisess::app::complete::command)
        .shells(pisess::app::complete::shells::SHELLS)
        .complete();
    let cli = match pisess::app::cli::Cli::try_parse() {
        Ok(cli) => cli,
        // Help and version go to stdout (exit 0); bare `pisess` prints the help to stderr
        // (exit 2). Neither is an error line.
        Err(e)
            if !e.use_stderr()
                || e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand =>
        {
            let _ = e.print();
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        }
        Err(e) => {
            let _ = writeln!(io::stderr(), "{}", pisess::app::diag::parse_error_line(&e));
            return ExitCode::from(2);
        }
    };
    let env = match pisess::app::env::Facts::from_process() {
        Ok(facts) => pisess::app::env::Env::new(&cli.global, facts),
        Err(e) => {
            let message = format!("cannot read the current directory: {e}");
            pisess::app::diag::error(&mut io::stderr(), Theme { enabled: false }, &message);
            return ExitCode::from(1);
        }
    };
    pisess::app::progress::install(&env);
    ExitCode::from(pisess_store::util::stack::run(move || run(cli, &env)))
}

/// The command, its output flushed, and the exit code.
fn run(cli: pisess::app::cli::Cli, env: &pisess::app::env::Env) -> u8 {
    // Large enough that `show --json` copies many lines per write, not one write per line.
    // Both through `Suspending`: what reaches the terminal while a progress line is shown
    // takes the line away first.
    let stdout = pisess::app::exit::Stdout(io::stdout().lock());
    let mut out = io::BufWriter::with_capacity(256 * 1024, Suspending::new(stdout));
    let result = pisess::run(
        cli,
        env,
        &mut out,
        &mut Suspending::new(io::stderr()),
        &mut io::stdin().lock(),
    );
    // What was printed goes out before any error line, so the two read in order. A reader that
    // went away (`| head -1`) is not an error, and does not change how the command ended:
    // `check`'s failed assertion stays exit 1.
    let flushed = out.flush();
    let result = result.and_then(|outcome| match flushed {
        // A pager or `head` that quit early is no failure, but the command's outcome stands
        // (a failed check piped into `head` must still exit 1).
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(outcome),
    });
    pisess::finish(&result, &mut io::stderr())
}
