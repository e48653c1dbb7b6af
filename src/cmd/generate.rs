//! `pisess generate` (hidden): shell completions and the man page, from the clap definition.

use std::io::Write;

use clap::CommandFactory;
use clap_complete::Shell;

use crate::cli::{Cli, GenerateArgs, GenerateKind};
use crate::Outcome;

pub fn run(args: &GenerateArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let mut cmd = Cli::command();
    let shell = match args.kind {
        GenerateKind::Bash => Shell::Bash,
        GenerateKind::Zsh => Shell::Zsh,
        GenerateKind::Fish => Shell::Fish,
        GenerateKind::Powershell => Shell::PowerShell,
        GenerateKind::Elvish => Shell::Elvish,
        GenerateKind::Man => {
            clap_mangen::Man::new(cmd).render(out)?;
            return Ok(Outcome::Done);
        }
    };
    clap_complete::generate(shell, &mut cmd, "pisess", out);
    Ok(Outcome::Done)
}
