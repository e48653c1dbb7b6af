//! Dynamic completion of SESSION arguments (clap_complete's `CompleteEnv`): the ids and names
//! of this project's sessions first, then every project's, each with its title as the help.
//! The shell asks the binary itself (`source <(COMPLETE=bash pisess)`), so what is offered is
//! what the lookup would find, through the same listing as `ls`. A name is the agent's to write:
//! [`shells`] makes sure each candidate reaches the shell as one literal word, or not at all.

pub mod shells;

use std::ffi::OsStr;

use clap_complete::engine::{ArgValueCompleter, CompletionCandidate};

use crate::app::cli::Cli;
use crate::app::env::{Env, Facts};
use crate::app::global::GlobalArgs;
use crate::views::style;
use pisess_store::listing::{self, Scope};
use pisess_store::summary::Detail;

/// The SESSION arguments that complete to sessions: (subcommand, argument id).
const SESSION_ARGS: [(&str, &str); 9] = [
    ("show", "session"),
    ("tree", "session"),
    ("path", "session"),
    ("context", "session"),
    ("rm", "sessions"),
    ("export", "sessions"),
    ("files", "session"),
    // `SESSION@ENTRY` too: a session's id completes, the `@ENTRY` is typed after it.
    ("diff", "a"),
    ("diff", "b"),
];

/// The clap declarations with [`sessions`] as the completer of each SESSION argument: the
/// factory `CompleteEnv` is given (main.rs), so the declarations (`app::cli`, below this
/// module) need not name the completer, which lists sessions.
pub fn command() -> clap::Command {
    let mut cmd = <Cli as clap::CommandFactory>::command();
    for (sub, arg) in SESSION_ARGS {
        // In place (`mut_arg` would move the argument last, and a positional's place is its
        // index: `show ID SESSION` would complete its first word as a session).
        cmd = cmd.mut_subcommand(sub, |c| {
            c.mut_args(|a| {
                if a.get_id() == arg {
                    a.add(ArgValueCompleter::new(sessions))
                } else {
                    a
                }
            })
        });
    }
    cmd
}

/// The sessions whose id starts with `current`, or whose name does: this project's, then the
/// others (a project's sessions are what a bare prefix finds first). Nothing on any error: a
/// completion never prints one.
pub fn sessions(current: &OsStr) -> Vec<CompletionCandidate> {
    let Ok(facts) = Facts::from_process() else {
        return Vec::new();
    };
    // `--cwd` and `--session-dir` on the line being completed are not known here; the
    // environment (PI_CODING_AGENT_DIR, PI_CODING_AGENT_SESSION_DIR) is.
    let env = Env::new(&GlobalArgs::default(), facts);
    let current = current.to_string_lossy();
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (order, scope) in [(0, Scope::Project), (1, Scope::All)] {
        let Ok(listing) = listing::list(&env.location, scope, Detail::Listing) else {
            continue;
        };
        for s in listing.sessions {
            if !seen.insert(s.path.clone()) {
                continue;
            }
            let title = style::one_line(s.name.as_deref().unwrap_or(&*s.first_message));
            let help = style::truncate(&title, 60).into_owned();
            let mut values = vec![s.id.clone()];
            values.extend(s.name.clone().filter(|n| n != &s.id));
            for value in values.into_iter().filter(|v| v.starts_with(&*current)) {
                out.push(
                    CompletionCandidate::new(value)
                        .help(Some(help.clone().into()))
                        .display_order(Some(order)),
                );
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use clap_complete::engine::ArgValueCompleter;

    #[test]
    fn each_session_argument_is_given_the_completer() {
        // A renamed argument fails here; each keeps its place among the positionals.
        let mut cmd = super::command();
        let mut bare = <crate::app::cli::Cli as clap::CommandFactory>::command();
        cmd.build();
        bare.build();
        for (sub, id) in super::SESSION_ARGS {
            let arg = |c: &clap::Command| {
                let sub = c.find_subcommand(sub).expect("a subcommand");
                sub.get_arguments()
                    .find(|a| a.get_id() == id)
                    .unwrap()
                    .clone()
            };
            let (completed, declared) = (arg(&cmd), arg(&bare));
            assert!(completed.get::<ArgValueCompleter>().is_some(), "{sub} {id}");
            assert_eq!(completed.get_index(), declared.get_index(), "{sub} {id}");
        }
        // The declarations alone carry none (they do not name this module).
        let show = bare.find_subcommand("show").unwrap();
        let arg = show
            .get_arguments()
            .find(|a| a.get_id() == "session")
            .unwrap();
        assert!(arg.get::<ArgValueCompleter>().is_none());
    }
}
