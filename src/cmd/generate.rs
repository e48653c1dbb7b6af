//! `pisess generate` (hidden): shell completions and the man page, from the clap definition.
//!
//! The committed `completions/` and `docs/pisess.1` are this command's output, written by
//! `scripts/generate-assets.sh`; a test fails when they differ from what it writes now, so the
//! help, the completions and the man page cannot drift apart.

use std::io::{self, Write};

use clap::CommandFactory;
use clap_complete::Shell;
use clap_mangen::roff::{bold, roman, Roff};
use clap_mangen::Man;

use crate::app::cli::{Cli, GenerateArgs, GenerateKind};
use crate::app::exit::Outcome;

pub fn run(args: &GenerateArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let shell = match args.kind {
        GenerateKind::Bash => Shell::Bash,
        GenerateKind::Zsh => Shell::Zsh,
        GenerateKind::Fish => Shell::Fish,
        GenerateKind::Powershell => Shell::PowerShell,
        GenerateKind::Elvish => Shell::Elvish,
        GenerateKind::Man => {
            man(Cli::command(), out)?;
            return Ok(Outcome::Done);
        }
    };
    clap_complete::generate(shell, &mut visible_only(&Cli::command()), "pisess", out);
    Ok(Outcome::Done)
}

/// The command line without its hidden subcommands. clap_complete offers hidden subcommands
/// like any other, and `generate` is for packagers, not for tab completion. clap cannot remove
/// a subcommand, so this is a copy with everything else.
fn visible_only(full: &clap::Command) -> clap::Command {
    clap::Command::new("pisess")
        .version(env!("CARGO_PKG_VERSION"))
        .about(full.get_about().cloned().unwrap_or_default())
        .long_about(full.get_long_about().cloned().unwrap_or_default())
        .args(full.get_arguments().cloned())
        .subcommands(full.get_subcommands().filter(|s| !s.is_hide_set()).cloned())
}

/// One page for the whole tool. clap_mangen would point at a page per subcommand
/// (`pisess-ls(1)`) that nobody installs, so the commands are described here instead, each with
/// its synopsis, description, own options and examples; the top-level long help's sections
/// (SESSION, examples, exit codes, environment) follow as sections of their own.
fn man(mut cmd: clap::Command, out: &mut dyn Write) -> io::Result<()> {
    cmd.build();
    let page = Man::new(cmd.clone());
    page.render_title(out)?;
    page.render_name_section(out)?;
    page.render_synopsis_section(out)?;
    page.render_description_section(out)?;
    page.render_options_section(out)?;

    let mut roff = Roff::new();
    roff.control("SH", ["COMMANDS"]);
    roff.to_writer(out)?;
    for sub in cmd
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
    {
        command_section(sub, out)?;
    }

    if let Some(after) = cmd.get_after_long_help() {
        let mut roff = Roff::new();
        for (heading, body) in sections(&after.to_string()) {
            roff.control("SH", [heading.to_uppercase().as_str()]);
            preformatted(&mut roff, &body);
        }
        roff.to_writer(out)?;
    }
    page.render_version_section(out)
}

/// `.SS pisess ls`, then the synopsis, description and options of `sub` (the global options are
/// described once, above) and its examples.
fn command_section(sub: &clap::Command, out: &mut dyn Write) -> io::Result<()> {
    let name = sub.get_bin_name().unwrap_or_else(|| sub.get_name());
    let mut roff = Roff::new();
    roff.control("SS", [name]);
    roff.to_writer(out)?;

    let globals: Vec<String> = sub
        .get_arguments()
        .filter(|a| a.is_global_set() || a.get_id() == "help")
        .map(|a| a.get_id().to_string())
        .collect();
    let mut own = sub.clone();
    for id in &globals {
        own = own.mut_arg(id, |a| a.hide(true));
    }
    let page = Man::new(own);
    // Each piece comes with its own `.SH` heading; inside a command's subsection they go.
    for render in [
        Man::render_synopsis_section,
        Man::render_description_section,
        Man::render_options_section,
    ] {
        let mut buf = Vec::new();
        render(&page, &mut buf)?;
        for line in String::from_utf8_lossy(&buf).lines() {
            if !line.starts_with(".SH") {
                writeln!(out, "{line}")?;
            }
        }
        // Without the headings, only a paragraph break keeps the pieces apart.
        writeln!(out, ".PP")?;
    }

    if let Some(after) = sub.get_after_long_help() {
        let mut roff = Roff::new();
        for (heading, body) in sections(&after.to_string()) {
            roff.control("PP", []);
            roff.text([bold(format!("{heading}:"))]);
            roff.control("RS", ["4"]);
            preformatted(&mut roff, &body);
            roff.control("RE", []);
        }
        roff.to_writer(out)?;
    }
    Ok(())
}

/// Splits a help text into its sections: a line at the left margin ending in `:` is a heading,
/// the indented lines up to the next heading its body (indent removed, layout kept).
fn sections(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        match line.strip_suffix(':') {
            Some(heading) if !line.starts_with(' ') => {
                out.push((heading.to_owned(), String::new()))
            }
            _ => {
                if let Some((_, body)) = out.last_mut() {
                    body.push_str(line.strip_prefix("  ").unwrap_or(line));
                    body.push('\n');
                }
            }
        }
    }
    for (_, body) in &mut out {
        let trimmed = body.trim_end().to_owned();
        *body = trimmed;
    }
    out
}

/// Lines kept as written (`.nf`), for examples and tables whose columns matter.
fn preformatted(roff: &mut Roff, body: &str) {
    roff.control("nf", []);
    for line in body.lines() {
        roff.text([roman(line)]);
    }
    roff.control("fi", []);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completions_leave_out_hidden_subcommands() {
        let cmd = visible_only(&Cli::command());
        let names: Vec<&str> = cmd.get_subcommands().map(clap::Command::get_name).collect();
        assert_eq!(
            names,
            [
                "ls", "show", "tree", "path", "context", "stats", "facts", "files", "diff",
                "check", "rm", "grep", "export"
            ]
        );
        assert!(cmd.get_arguments().any(|a| a.get_id() == "session_dir"));
    }

    #[test]
    fn help_sections_split_at_headings() {
        let got = sections("SESSION:\n  -   stdin\n  ID  an id\n\nExamples:\n  pisess ls\n");
        assert_eq!(
            got,
            [
                ("SESSION".to_owned(), "-   stdin\nID  an id".to_owned()),
                ("Examples".to_owned(), "pisess ls".to_owned()),
            ]
        );
    }
}
