//! What `COMPLETE=<shell> pisess` prints, per shell. clap_complete's own adapters hand the
//! candidates to the shell as they are, and a candidate can be a session name, which is
//! whatever a `session_info` entry says (the agent can write one), or a v1 session's id, which is
//! a file stem. clap's bash hook reads them with `COMPREPLY=( $(…) )` (globbed: `DIR/*` becomes
//! the files under DIR) and readline inserts them verbatim (`$(touch x)` runs on Enter,
//! `keep 0197aaaa` is two words); its PowerShell hook inserts them verbatim too. So:
//!
//! - every shell: a candidate holding a control character (newline, tab, ESC…) or a bidi mark
//!   is left out, not mangled (a line per candidate is the protocol, and an escape must not
//!   reach the terminal); a session whose name is left out is still reached by its id. The
//!   descriptions are one line with control characters made visible (`style::one_line`).
//! - bash: our own hook. It reads one candidate a line with `read -r` (no splitting, no glob),
//!   and the binary prints each candidate quoted for where readline will insert it (plain,
//!   after an opening `'`, after an opening `"`), since readline quotes nothing itself.
//! - zsh, fish, elvish: clap's hooks. Their shells quote a candidate when they insert it
//!   (zsh's compadd without -Q, fish's completion, elvish's), so the candidates stay literal.
//! - PowerShell: clap's hook, which inserts the text it gets: the binary prints each candidate
//!   as a single-quoted PowerShell string.

use std::ffi::OsString;
use std::io::{self, Write};
use std::path::Path;

use clap_complete::env::{Elvish as ClapElvish, Fish as ClapFish};
use clap_complete::env::{EnvCompleter, Shells};
use clap_complete::env::{Powershell as ClapPowershell, Zsh as ClapZsh};

use crate::views::style;

/// The shells `COMPLETE=<shell> pisess` answers for.
pub const SHELLS: Shells<'static> = Shells(&[&Bash, &ELVISH, &FISH, &POWERSHELL, &ZSH]);

/// One candidate the shell may be given: its text and its description, one line, escaped.
struct Candidate {
    value: String,
    help: Option<String>,
}

/// clap's candidates for the words, less those no shell here can take as they are.
fn candidates(
    cmd: &mut clap::Command,
    args: Vec<OsString>,
    index: usize,
    current_dir: Option<&Path>,
) -> io::Result<Vec<Candidate>> {
    let all = clap_complete::engine::complete(cmd, args, index, current_dir)?;
    Ok(all
        .iter()
        .filter_map(|c| {
            let value = c.get_value().to_str()?;
            if !is_plain_text(value) {
                return None;
            }
            let help = c.get_help().map(|h| style::one_line(&h.to_string()));
            Some(Candidate {
                value: value.to_owned(),
                help,
            })
        })
        .collect())
}

/// Text with no control character, bidi mark or lone surrogate: what can be one line of the
/// protocol and reach the terminal as it is.
pub fn is_plain_text(s: &str) -> bool {
    matches!(
        style::escape_control(s, false),
        std::borrow::Cow::Borrowed(_)
    )
}

fn index_from_env() -> usize {
    std::env::var("_CLAP_COMPLETE_INDEX")
        .ok()
        .and_then(|i| i.parse().ok())
        .unwrap_or_default()
}

// ---- bash ----

/// Bash: our hook (see the module comment for why not clap's).
#[derive(Clone, Copy, Debug)]
pub struct Bash;

/// Where readline will insert a candidate: the current word as typed is plain, or readline is
/// inside a quote the word opened (it then replaces what follows the quote).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BashQuote {
    Plain,
    Single,
    Double,
}

/// The hook. `$2` is what readline will replace; comparing it with the word as typed tells
/// whether readline is inside an opening quote. A word readline split off at `=` or `:`
/// (COMP_WORDBREAKS), or one with a quote inside, is not completed: what readline would insert
/// joins the text before it, which the binary cannot quote for.
const BASH_HOOK: &str = r#"
_pisess_complete() {
    local cur="${COMP_WORDS[COMP_CWORD]}" quote
    if [[ "$cur" == "$2" ]]; then quote=plain
    elif [[ "$cur" == "'$2" ]]; then quote=single
    elif [[ "$cur" == "\"$2" ]]; then quote=double
    else return 0
    fi
    local line="${COMP_LINE:0:COMP_POINT}"
    [[ "$line" == *[[:blank:]]"$cur" ]] || return 0
    compopt +o nospace 2>/dev/null
    local out
    out="$(_CLAP_COMPLETE_INDEX="$COMP_CWORD" _PISESS_QUOTE="$quote" VAR=bash COMPLETER -- "${COMP_WORDS[@]}" 2>/dev/null)" || return 0
    COMPREPLY=()
    local candidate
    while IFS= read -r candidate; do
        [[ -n "$candidate" ]] && COMPREPLY+=("$candidate")
    done <<< "$out"
    if [[ ${#COMPREPLY[@]} == 1 && "${COMPREPLY[0]}" == *[/=] ]]; then
        compopt -o nospace 2>/dev/null
    fi
    return 0
}
if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -o nospace -o bashdefault -o nosort -F _pisess_complete BIN
else
    complete -o nospace -o bashdefault -F _pisess_complete BIN
fi
"#;

impl EnvCompleter for Bash {
    fn name(&self) -> &'static str {
        "bash"
    }
    fn is(&self, name: &str) -> bool {
        name == "bash"
    }
    fn write_registration(
        &self,
        var: &str,
        _name: &str,
        bin: &str,
        completer: &str,
        buf: &mut dyn Write,
    ) -> io::Result<()> {
        let script = BASH_HOOK
            .replace("COMPLETER", &bash_quote(completer))
            .replace("BIN", &bash_quote(bin))
            .replace("VAR", var);
        writeln!(buf, "{script}")
    }
    fn write_complete(
        &self,
        cmd: &mut clap::Command,
        mut args: Vec<OsString>,
        current_dir: Option<&Path>,
        buf: &mut dyn Write,
    ) -> io::Result<()> {
        let index = index_from_env();
        let quote = match std::env::var("_PISESS_QUOTE").as_deref() {
            Ok("single") => BashQuote::Single,
            Ok("double") => BashQuote::Double,
            _ => BashQuote::Plain,
        };
        // The word as typed, to the word it means (nothing offered when that is not plain).
        let typed = args.get(index).and_then(|w| w.to_str()).unwrap_or("");
        let Some(meant) = bash_unquote(typed, quote) else {
            return Ok(());
        };
        if index < args.len() {
            args[index] = meant.into();
        } else {
            args.push(meant.into());
        }
        for c in candidates(cmd, args, index, current_dir)? {
            writeln!(buf, "{}", bash_insert(&c.value, quote))?;
        }
        Ok(())
    }
}

/// `s` as one bash word: as it is when every character is inert, else single-quoted. `=` and
/// `:` are quoted too: they are COMP_WORDBREAKS, and a word that holds them confuses the next
/// completion.
pub fn bash_quote(s: &str) -> String {
    let inert = |c: char| {
        c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | '%' | '+' | ',' | '@' | '-')
    };
    if !s.is_empty() && s.chars().all(inert) {
        return s.to_owned();
    }
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// What readline is to insert for `value`. After an opening quote, readline replaces the text
/// after it, and backs up over the quote when the insertion starts with the same quote; so the
/// insertion starts with that quote and is the whole word. In double quotes `\ " $ `` are
/// escaped and `!` (history expansion, which `\` does not stop there) is single-quoted.
pub fn bash_insert(value: &str, quote: BashQuote) -> String {
    match quote {
        BashQuote::Plain => bash_quote(value),
        BashQuote::Single => format!("'{}'", value.replace('\'', r"'\''")),
        BashQuote::Double => {
            let mut out = String::from("\"");
            for c in value.chars() {
                match c {
                    '\\' | '"' | '$' | '`' => {
                        out.push('\\');
                        out.push(c);
                    }
                    '!' => out.push_str("\"'!'\""),
                    c => out.push(c),
                }
            }
            out.push('"');
            out
        }
    }
}

/// The text a word typed so far means, when that is certain: no expansion (`$`, backquote,
/// `~` first, glob and brace characters, `!`) outside single quotes. `typed` is the whole
/// word (with its opening quote when `quote` is not plain).
pub fn bash_unquote(typed: &str, quote: BashQuote) -> Option<String> {
    match quote {
        BashQuote::Single => {
            let rest = typed.strip_prefix('\'')?;
            (!rest.contains('\'')).then(|| rest.to_owned())
        }
        BashQuote::Double => {
            let mut out = String::new();
            let mut chars = typed.strip_prefix('"')?.chars();
            while let Some(c) = chars.next() {
                match c {
                    '\\' => match chars.next()? {
                        e @ ('\\' | '"' | '$' | '`') => out.push(e),
                        e => {
                            out.push('\\');
                            out.push(e);
                        }
                    },
                    '"' | '$' | '`' | '!' => return None,
                    c => out.push(c),
                }
            }
            Some(out)
        }
        BashQuote::Plain => {
            let mut out = String::new();
            let mut chars = typed.chars();
            while let Some(c) = chars.next() {
                match c {
                    '\\' => out.push(chars.next()?),
                    c if c.is_ascii_alphanumeric()
                        || matches!(
                            c,
                            '_' | '.' | '/' | '%' | '+' | ',' | '@' | '-' | '=' | ':'
                        )
                        || !c.is_ascii() =>
                    {
                        out.push(c)
                    }
                    _ => return None,
                }
            }
            Some(out)
        }
    }
}

// ---- zsh, fish, elvish, PowerShell: clap's hooks ----

/// A shell whose hook is clap's: clap's name, aliases and registration, and our candidates,
/// one `line` each, less the unsafe ones.
pub struct ClapHook {
    clap: &'static dyn EnvCompleter,
    /// The word completed is the last: the hook passes no index (fish, PowerShell).
    last_word: bool,
    /// An index past the words is an empty word, added as clap's zsh adapter adds it.
    pad: bool,
    line: fn(&mut dyn Write, Candidate) -> io::Result<()>,
}

/// Zsh: clap's hook (`_describe`, which inserts through compadd, quoting); the candidates as
/// clap prints them (`value:help`, `\` and `:` escaped).
const ZSH: ClapHook = ClapHook {
    clap: &ClapZsh,
    last_word: false,
    pad: true,
    line: |buf, c| {
        let value = c.value.replace('\\', r"\\").replace(':', r"\:");
        match c.help {
            Some(help) => writeln!(buf, "{value}:{}", help.replace('\\', r"\\")),
            None => writeln!(buf, "{value}"),
        }
    },
};

/// Fish: clap's hook; fish escapes a candidate when it inserts it.
const FISH: ClapHook = ClapHook {
    clap: &ClapFish,
    last_word: true,
    pad: false,
    line: |buf, c| write_tabbed(buf, &c.value, c.help.as_deref()),
};

/// Elvish: clap's hook (`put (…) | to-lines`: a line per candidate); elvish quotes a candidate
/// when it inserts it.
const ELVISH: ClapHook = ClapHook {
    clap: &ClapElvish,
    last_word: false,
    pad: false,
    line: |buf, c| writeln!(buf, "{}", c.value),
};

/// PowerShell: clap's hook, which gives the text it reads to `CompletionResult` as the text
/// to insert; so the binary prints each candidate as PowerShell will read it back.
const POWERSHELL: ClapHook = ClapHook {
    clap: &ClapPowershell,
    last_word: true,
    pad: false,
    line: |buf, c| write_tabbed(buf, &powershell_quote(&c.value), c.help.as_deref()),
};

/// `value<TAB>help` lines, what clap's fish and PowerShell hooks split.
fn write_tabbed(buf: &mut dyn Write, value: &str, help: Option<&str>) -> io::Result<()> {
    match help {
        Some(help) => writeln!(buf, "{value}\t{help}"),
        None => writeln!(buf, "{value}"),
    }
}

impl EnvCompleter for ClapHook {
    fn name(&self) -> &'static str {
        self.clap.name()
    }
    fn is(&self, name: &str) -> bool {
        self.clap.is(name)
    }
    fn write_registration(
        &self,
        var: &str,
        name: &str,
        bin: &str,
        completer: &str,
        buf: &mut dyn Write,
    ) -> io::Result<()> {
        self.clap.write_registration(var, name, bin, completer, buf)
    }
    fn write_complete(
        &self,
        cmd: &mut clap::Command,
        mut args: Vec<OsString>,
        current_dir: Option<&Path>,
        buf: &mut dyn Write,
    ) -> io::Result<()> {
        let index = if self.last_word {
            args.len().saturating_sub(1)
        } else {
            index_from_env()
        };
        if self.pad && args.len() == index {
            args.push("".into());
        }
        for c in candidates(cmd, args, index, current_dir)? {
            (self.line)(buf, c)?;
        }
        Ok(())
    }
}

/// `s` as one PowerShell argument: as it is when every character is inert, else a verbatim
/// (single-quoted) string, in which nothing expands. PowerShell takes the typographic single
/// quotes (U+2018..U+201B) for `'` too, so each quote of any kind is doubled.
pub fn powershell_quote(s: &str) -> String {
    let inert = |c: char| {
        c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | '\\' | ':' | '-' | '+' | '=')
    };
    if !s.is_empty() && !s.starts_with('-') && s.chars().all(inert) {
        return s.to_owned();
    }
    let mut out = String::from("'");
    for c in s.chars() {
        if matches!(c, '\'' | '\u{2018}'..='\u{201b}') {
            out.push(c);
        }
        out.push(c);
    }
    out.push('\'');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bash_quote_keeps_inert_words_and_single_quotes_the_rest() {
        assert_eq!(bash_quote("0197aaaa-bbbb"), "0197aaaa-bbbb");
        assert_eq!(bash_quote("keep 0197aaaa"), "'keep 0197aaaa'");
        assert_eq!(bash_quote("it's"), r"'it'\''s'");
        assert_eq!(bash_quote("~root"), "'~root'");
        assert_eq!(bash_quote(""), "''");
    }

    #[test]
    fn bash_insert_quotes_in_the_style_of_an_opening_quote() {
        use BashQuote::*;
        assert_eq!(bash_insert("it's", Single), r"'it'\''s'");
        assert_eq!(bash_insert("abc", Single), "'abc'");
        assert_eq!(bash_insert("a!b\"$`\\", Double), r#""a"'!'"b\"\$\`\\""#);
        assert_eq!(bash_insert("0197aaaa", Plain), "0197aaaa");
    }

    #[test]
    fn bash_unquote_refuses_what_would_expand() {
        use BashQuote::*;
        assert_eq!(bash_unquote(r"keep\ 01", Plain).as_deref(), Some("keep 01"));
        assert_eq!(bash_unquote("'keep 01", Single).as_deref(), Some("keep 01"));
        assert_eq!(bash_unquote(r#""a\$b"#, Double).as_deref(), Some("a$b"));
        for (typed, quote) in [
            ("$x", Plain),
            ("~r", Plain),
            ("a*", Plain),
            (r#""$x"#, Double),
            ("'a'b", Single),
        ] {
            assert_eq!(bash_unquote(typed, quote), None, "{typed}");
        }
    }

    #[test]
    fn powershell_quote_doubles_every_kind_of_single_quote() {
        assert_eq!(powershell_quote("0197aaaa"), "0197aaaa");
        assert_eq!(powershell_quote("$(calc)"), "'$(calc)'");
        assert_eq!(powershell_quote("keep 0197"), "'keep 0197'");
        assert_eq!(powershell_quote("a'b\u{2019}c"), "'a''b\u{2019}\u{2019}c'");
        assert_eq!(powershell_quote("-rf"), "'-rf'");
        assert_eq!(powershell_quote(""), "''");
    }

    #[test]
    fn control_characters_are_not_plain_text() {
        assert!(is_plain_text("keep 0197aaaa"));
        for bad in ["a\nb", "esc\u{1b}[31m", "tab\t", "\u{9b}x", "bidi\u{202e}"] {
            assert!(!is_plain_text(bad), "{bad:?}");
        }
    }
}
