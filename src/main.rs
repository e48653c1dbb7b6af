use std::io::{self, Write};
use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = pisess::cli::Cli::parse();
    let env = match pisess::env::Env::from_process(&cli.global) {
        Ok(env) => env,
        Err(e) => return fail(&format!("cannot read the current directory: {e}"), 1),
    };
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let result = pisess::run(
        cli,
        &env,
        &mut out,
        &mut io::stderr(),
        &mut io::stdin().lock(),
    )
    .and_then(|outcome| out.flush().map(|()| outcome).map_err(Into::into));
    match result {
        Ok(pisess::Outcome::Done) => ExitCode::SUCCESS,
        Ok(pisess::Outcome::Partial) => ExitCode::from(1),
        // The reader went away (`pisess ls | head -1`): not an error.
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) if e.is::<pisess::UsageError>() => fail(&format!("{e:#}"), 2),
        Err(e) => fail(&format!("{e:#}"), 1),
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    })
}

fn fail(message: &str, code: u8) -> ExitCode {
    let message = pisess::style::escape_control(message, false);
    let _ = writeln!(io::stderr(), "pisess: error: {message}");
    ExitCode::from(code)
}
