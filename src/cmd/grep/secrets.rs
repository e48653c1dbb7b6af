//! `pisess grep --secrets`: what the sessions leaked, by kind, place and fingerprint, never
//! the secret itself (`crate::views::secrets`).
//!
//! Each file is read as a stream by the one reader, every line of it, entry or not
//! ([`search_stream`]); an entry is decoded only when its stored line holds a rule's keyword
//! or an escape that could hide one ([`Detector::may_hold`]), so memory is one line and one
//! session's findings, whatever the size of the store.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use serde_json::json;

use crate::app::cli::GrepArgs;
use crate::app::diag::Diag;
use crate::app::env::Env;
use crate::cmd::migrated_role;
use crate::views::secrets::{search_stream, Detector, Hit, Place, Scrub};
use crate::views::style::{self, IdCut, Role};
use pisess_format::scan::{open_file, whole_file, ScanError, ScanReport};
use pisess_format::util::readahead::Reading;
use pisess_format::util::warning::Warn;
use pisess_format::util::warning::Warning;
use pisess_store::listing::Projects;
use pisess_store::locate::tilde;
use pisess_store::util::usage::UsageError;

use super::matcher::{Live, Searched};

/// What every file is searched with.
pub(super) struct Secrets<'a> {
    args: &'a GrepArgs,
    env: &'a Env,
    detector: Detector,
}

impl<'a> Secrets<'a> {
    /// The detector and the projects asked for.
    pub(super) fn new(args: &'a GrepArgs, env: &'a Env) -> anyhow::Result<(Self, Projects)> {
        let detector = Detector::load(args.secrets_config.as_deref())?;
        let projects = Projects::parse(&args.projects, &env.inputs.home)?;
        if (args.pattern.is_some() || !args.sessions.is_empty())
            && (args.all || !args.projects.is_empty())
        {
            return Err(
                UsageError("SESSIONs cannot be given with --all or --project".into()).into(),
            );
        }
        Ok((
            Secrets {
                args,
                env,
                detector,
            },
            projects,
        ))
    }

    /// A session's findings, their roles as pi migrates them.
    fn searched(&self, path: PathBuf, (report, mut hits): (ScanReport, Vec<Hit>)) -> Searched<Hit> {
        for h in &mut hits {
            if let Place::Entry {
                role: Some(role), ..
            } = &mut h.place
            {
                *role = migrated_role(&report.header, role).to_owned();
            }
        }
        Searched {
            path,
            id: report.header.id,
            cwd: report.header.cwd.unwrap_or_default(),
            warnings: report.warnings,
            summary: None,
            hits,
            under: None,
        }
    }
}

impl super::matcher::Matcher for Secrets<'_> {
    type Hit = Hit;

    /// Without a pattern, the first SESSION is clap's `pattern`.
    fn named(&self) -> Vec<std::ffi::OsString> {
        let args = self.args;
        let pattern = args.pattern.iter().map(Into::into);
        pattern.chain(args.sessions.iter().cloned()).collect()
    }

    fn file(&self, path: &Path) -> Result<Searched<Hit>, ScanError> {
        let opened = open_file(path)?;
        let input = whole_file(&opened, Reading::OnThisThread)?;
        let found = search_stream(input, &opened.stem, &self.detector)?;
        Ok(self.searched(path.to_path_buf(), found))
    }

    /// Read whole before it is reported (its findings are merged in line order at the end).
    fn stdin(&self, stdin: &mut dyn Read, _live: &mut Live) -> Result<Searched<Hit>, ScanError> {
        let input = io::BufReader::with_capacity(256 * 1024, stdin);
        let found = search_stream(input, "-", &self.detector)?;
        Ok(self.searched(PathBuf::from("-"), found))
    }

    fn redact(&self, path: &str) -> String {
        self.detector.redact(path).into_owned()
    }

    /// Warnings name ids and the path too: out of stderr the same secrets stay out.
    fn warn(&self, diag: &mut Diag, s: &Searched<Hit>) {
        let scrub = Scrub::new(&self.detector, s.hits.iter().map(|h| &h.found));
        let warnings: Vec<Warning> = s
            .warnings
            .iter()
            .map(|w| Warning {
                line: w.line,
                message: scrub.owned(&w.message),
            })
            .collect();
        diag.session_warnings(&scrub.owned(&s.path.display().to_string()), &warnings);
    }

    fn write(&self, s: &Searched<Hit>, first: bool, out: &mut dyn Write) -> io::Result<()> {
        let (args, env, detector) = (self.args, self.env, &self.detector);
        let theme = env.theme();
        // Every name printed (the path, the session and entry ids, types, roles) may hold a
        // secret the session was found to hold: each is replaced by its token (`Scrub`).
        let scrub = Scrub::new(detector, s.hits.iter().map(|h| &h.found));
        let path = scrub.owned(&s.path.display().to_string());
        let session_cwd = scrub.owned(&s.cwd);
        let shown = |p: &str| -> String {
            if env.stdout_tty {
                style::escape_control(p, false).into_owned()
            } else {
                p.to_owned()
            }
        };
        if args.files_with_matches {
            return writeln!(out, "{}", shown(&path));
        }
        if args.count {
            return writeln!(out, "{}:{}", shown(&path), s.hits.len());
        }
        let opt = |o: Option<&str>| o.map(|t| scrub.owned(t));
        // The session a run was found under: what this run leaked and what any rule finds in
        // its id and path are kept out of them (its own findings are not known here).
        let parent = s.under.as_ref().map(|u| {
            let clean = |t: &str| scrub.owned(&detector.redact(t));
            (clean(&u.id), clean(&u.path.display().to_string()), u.made)
        });
        if args.json {
            let session_id = scrub.owned(&s.id);
            for h in &s.hits {
                let (entry_id, kind, role) = place(&h.place);
                let mut object = json!({
                    "session": session_id,
                    "path": path,
                    "cwd": session_cwd,
                    "entry": opt(entry_id),
                    "type": opt(kind),
                    "role": opt(role),
                    "fileLine": h.file_line,
                    "field": scrub.owned(&h.found.field),
                    "line": h.found.line,
                    "kind": h.found.kind,
                    "fingerprint": h.found.fingerprint,
                    "preview": h.found.preview,
                    // The one vocabulary's names (docs/json.md), beside the old ones, scrubbed
                    // as they are.
                    "sessionId": session_id,
                    "entryId": opt(entry_id),
                    "lineNumber": h.found.line,
                });
                if let Some((id, path, made)) = &parent {
                    object["subagentOf"] = crate::cmd::runs::json_of(id, path, *made);
                }
                pisess_format::surrogates::write(&mut *out, &object)?;
                out.write_all(b"\n")?;
            }
            return Ok(());
        }
        if !first {
            out.write_all(b"\n")?;
        }
        let esc = |t: &str| style::escape_control(t, false).into_owned();
        // An id that held a secret is its token, whole: a cut token would say nothing.
        let id_shown = |id: &str, cut: IdCut| match scrub.text(id) {
            std::borrow::Cow::Borrowed(id) => style::shown_id(id, cut),
            std::borrow::Cow::Owned(token) => esc(&token),
        };
        let session_id = id_shown(&s.id, IdCut::Column);
        // A subagent run says whose it is after its path.
        let of = parent.as_ref().map_or(String::new(), |(id, path, made)| {
            let parent = match id.as_str() {
                "" => Path::new(path)
                    .file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned(),
                id => id_shown(id, IdCut::Column),
            };
            format!("  {}", esc(&crate::cmd::runs::of(*made, &parent)))
        });
        let mut cwd = esc(&tilde(Path::new(&session_cwd), &env.inputs.home));
        let mut file = esc(&path);
        if let Some(w) = env.width {
            // The heading fits the terminal: the path gives way first, down to what the cwd
            // leaves of the room (the cwd keeps at most half of it), then the cwd; 20 columns
            // each at least.
            let room = w.saturating_sub(style::width(&session_id) + 4 + style::width(&of));
            let cwd_share = style::width(&cwd).min(room / 2);
            file = style::truncate(&file, room.saturating_sub(cwd_share).max(20)).into_owned();
            cwd = style::truncate(&cwd, room.saturating_sub(style::width(&file)).max(20))
                .into_owned();
        }
        writeln!(
            out,
            "{}  {}  {}{}",
            theme.paint(Role::Id, &session_id),
            cwd,
            theme.dim(&file),
            if of.is_empty() {
                String::new()
            } else {
                theme.dim(&of).to_string()
            }
        )?;
        for h in &s.hits {
            let id = match place(&h.place) {
                (Some(id), _, _) => id_shown(id, IdCut::Typed),
                (None, Some("session"), _) => "header".to_owned(),
                (None, _, _) => "-".to_owned(),
            };
            let f = &h.found;
            let preview = esc(&f.preview);
            let mut field = esc(&scrub.text(&f.field));
            if let Some(w) = env.width {
                // Everything but the field is short: the field gives way (to 20 columns at least).
                let rest = style::width(&id) + f.line.to_string().len() + style::width(&f.kind);
                let rest = 12 + rest + style::width(&preview) + f.fingerprint.len();
                field = style::truncate(&field, w.saturating_sub(rest).max(20)).into_owned();
            }
            writeln!(
                out,
                "  {}  {}:{}  {}  {}…  {}",
                theme.paint(Role::Id, &id),
                field,
                f.line,
                theme.bold(&theme.paint(Role::Error, &f.kind)),
                preview,
                theme.dim(&f.fingerprint)
            )?;
        }
        Ok(())
    }
}

/// A finding's entry id, type (`session` for the header, none for a line pi skips) and role.
fn place(place: &Place) -> (Option<&str>, Option<&str>, Option<&str>) {
    match place {
        Place::Entry { id, kind, role } => (id.as_deref(), Some(kind), role.as_deref()),
        Place::Header => (None, Some("session"), None),
        Place::Skipped => (None, None, None),
    }
}
