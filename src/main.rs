use std::io::{self, Write};
use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = pisess::cli::Cli::parse();
    let env = match pisess::env::Env::from_process(&cli.global) {
        Ok(env) => env,
        Err(e) => {
            let _ = writeln!(
                io::stderr(),
                "pisess: error: cannot read the current directory: {e}"
            );
            return ExitCode::from(1);
        }
    };
    let mut out = io::BufWriter::new(io::stdout().lock());
    let result = pisess::run(
        cli,
        &env,
        &mut out,
        &mut io::stderr(),
        &mut io::stdin().lock(),
    )
    .and_then(|outcome| out.flush().map(|()| outcome).map_err(Into::into));
    ExitCode::from(pisess::finish(&result, &mut io::stderr()))
}
