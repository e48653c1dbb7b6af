//! `pisess facts`: the fact stream for a team (issue 46), one NDJSON row per message-bearing
//! entry ([`FactRow`], docs/json.md), for an engine to key on `(sessionId, entryId)` and keep
//! the highest `version` of (docs/team.md).
//!
//! The rows are `stats --by message`'s, over the same listing and families, so an engine's
//! totals are `stats --all`'s: a session with subagent runs brings its runs (each token once,
//! `stats::family`), and an entry a fork or clone copied is emitted under its source's id
//! ([`forks`]), which `stats` counts in each file but an engine once. With `--cursor`, files
//! that did not change since the last run are not read at all ([`cursor`]).

mod cursor;
mod forks;

use std::borrow::Cow;

use anyhow::Context as _;
use std::io::Write;
use std::path::Path;

use hashbrown::HashSet;

use crate::app::cli::FactsArgs;
use crate::app::diag::Diag;
use crate::app::env::Env;
use crate::app::exit::Outcome;
use crate::cmd::stats::family;
use crate::views::facts::{Dates, FactRow, Labels, Redactor, RowWriter, SCHEMA_VERSION};
use crate::views::prices::{self, Pricer};
use cursor::{Cursor, Seen};
use forks::Forks;
use pisess_store::family::runs::{self, Limits};
use pisess_store::listing::{self, Scope};
use pisess_store::summary::{summarize, Detail, Summary, SummaryOptions};

/// Where `--redact-paths` takes its salt from.
const SALT_VAR: &str = "PISESS_FACTS_SALT";

pub fn run(
    args: &FactsArgs,
    env: &Env,
    out: &mut dyn Write,
    diag: &mut Diag,
) -> anyhow::Result<Outcome> {
    // Everything that can refuse the command line is read before a row is written.
    let labels = Labels::parse(system_labels(), &args.labels)?;
    let redactor = match args.redact_paths {
        true => Some(Redactor::new(
            std::env::var_os(SALT_VAR)
                .unwrap_or_default()
                .as_encoded_bytes(),
        )?),
        false => None,
    };
    let pricer = args.prices.as_deref().map(Pricer::read).transpose()?;
    let mut cursor = match &args.cursor {
        Some(path) => Some(Cursor::read(path, &store_id(&env.location))?),
        None => None,
    };
    // Rows written with other labels, redaction or prices are written again, with these.
    // `recorded`: whether the cursor learned anything (a run with nothing new leaves its file
    // alone).
    let mut recorded = match &mut cursor {
        Some(c) => c.keep_if(&options(
            &labels,
            redactor.as_ref(),
            args.prices.as_deref(),
        )?),
        None => false,
    };
    let scope = if args.all { Scope::All } else { Scope::Project };
    // With a cursor, the listing's cache (`ls`'s) says which files changed; only those are
    // read for their rows. Without one, every file's rows are wanted: the tally cache's.
    let mut listing = match cursor {
        Some(_) => listing::list(&env.location, scope, Detail::Listing)?,
        None => listing::list_rows(&env.location, scope)?,
    };
    let failed = listing.report(diag);
    let stems = crate::cmd::runs::stem_files(std::mem::take(&mut listing.stem_folders));
    let mut forks = Forks::new(
        &env.location.process_cwd,
        listing.sessions.iter().map(|s| s.path.as_path()),
    );
    let emit = Emit {
        labels: &labels,
        redactor: redactor.as_ref(),
        pricer: pricer.as_ref(),
    };
    let mut failed = failed;
    // First, in order on this thread, what each file's rows need of the others (its family,
    // its fork's source, the cursor); then the rows, on every core.
    let mut jobs = Vec::with_capacity(listing.sessions.len());
    for s in listing.sessions {
        let members = members(s, &stems, cursor.as_ref(), diag);
        let top = members.first().map(|m| m.id.clone());
        for (i, m) in members.into_iter().enumerate() {
            if cursor
                .as_ref()
                .is_some_and(|c| c.unchanged(&m.path, m.bytes, m.mtime_ms))
            {
                continue;
            }
            let m = match m.tally {
                Some(_) => m,
                None => match summarize(&m.path, stats()) {
                    Ok(full) => full,
                    // Not recorded: its rows are emitted by a later run that can read it.
                    Err(e) => {
                        diag.warn(&m.path.display().to_string(), None, &format!("{e:#}"));
                        failed = true;
                        continue;
                    }
                },
            };
            let copied = (m.parent_session.as_deref())
                .filter(|p| !p.is_empty())
                .map(|p| forks.copied(&m.path, p));
            let seen = cursor.as_ref().and_then(|c| c.get(&m.path));
            // A file that shrank was written anew: all of it again.
            let seen = seen.filter(|s| s.bytes <= m.bytes).cloned();
            if let (Some(c), Some(t)) = (cursor.as_mut(), m.tally.as_deref()) {
                let active = t.rows.iter().map(|r| r.active);
                c.record(&m.path, Seen::new(m.bytes, m.mtime_ms, active));
                recorded = true;
            }
            let subagent_of = if i == 0 { None } else { top.clone() };
            jobs.push(Job {
                m,
                subagent_of,
                copied,
                seen,
            });
        }
    }
    let rows = |j: &Job| j.m.tally.as_ref().map_or(0, |t| t.rows.len());
    pisess_store::util::parallel::write_in_order(
        jobs.iter(),
        |j| rows(j) * 512,
        out,
        |j, w: &mut Writers, buf| {
            emit.session(j, w, buf);
            Ok(())
        },
    )?;
    // Not freed one by one: the stream is the process's one job, and freeing every session's
    // rows on this thread (allocated on the workers) was a twelfth of a warm run.
    std::mem::forget(jobs);
    out.flush()?;
    // Only once every row is out: a run that failed part-way emits them again next time.
    if let (Some(c), Some(path)) = (&cursor, &args.cursor) {
        if recorded || !exists(path) {
            c.write(path)?;
        }
    }
    Ok(Outcome::partly_failed_if(failed))
}

/// A listed session and, when it has subagent runs, the runs after it (`stats`' family: each
/// token once). With a cursor, a family none of whose files changed is not read again.
fn members(
    s: Summary,
    stems: &hashbrown::HashSet<std::path::PathBuf>,
    cursor: Option<&Cursor>,
    diag: &mut Diag,
) -> Vec<Summary> {
    if !stems.contains(&s.path) {
        return vec![s];
    }
    if let Some(c) = cursor {
        let found = runs::find(&s.path, Limits::default());
        let same = |p: &Path| {
            std::fs::metadata(p).is_ok_and(|m| {
                let ms = (m.modified().ok())
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .and_then(|d| i64::try_from(d.as_millis()).ok())
                    .unwrap_or(0);
                c.unchanged(p, m.len(), ms)
            })
        };
        if c.unchanged(&s.path, s.bytes, s.mtime_ms)
            && found.children.iter().all(|child| same(&child.path))
        {
            return vec![s];
        }
    }
    match family::read(&s.path) {
        Some(f) => {
            for (place, why) in &f.warnings {
                diag.warn(&place.display().to_string(), None, why);
            }
            f.members
        }
        None => vec![s],
    }
}

/// What every row of a run shares.
struct Emit<'a> {
    labels: &'a Labels,
    redactor: Option<&'a Redactor>,
    pricer: Option<&'a Pricer>,
}

/// One file whose rows are to be written, and what they need of the others.
struct Job {
    m: Summary,
    /// The listed session whose subagent run it is.
    subagent_of: Option<String>,
    copied: Option<forks::Copied>,
    /// What the cursor says was emitted of it.
    seen: Option<Seen>,
}

/// What a thread writing rows keeps between them.
#[derive(Default)]
struct Writers {
    writer: RowWriter,
    dates: Dates,
}

impl Emit<'_> {
    /// The rows of one file into `buf`: those its `seen` does not hold as they are now.
    fn session(&self, job: &Job, w: &mut Writers, buf: &mut Vec<u8>) {
        let (m, copied, seen) = (&job.m, job.copied.as_ref(), job.seen.as_ref());
        let subagent_of = job.subagent_of.as_deref();
        let Some(t) = m.tally.as_deref() else { return };
        let matches = self.pricer.map(|p| p.models(t));
        let cwd: Cow<str> = match self.redactor {
            Some(r) => Cow::Owned(r.path(&m.cwd)),
            None => Cow::Borrowed(&m.cwd),
        };
        let own_version = m.entries as u64;
        let mut ids: HashSet<&str> = HashSet::with_capacity(t.rows.len());
        for (i, r) in t.rows.iter().enumerate() {
            // Keys unique within the file, whatever it holds.
            let made: String;
            let entry_id: &str = match r.id.as_deref() {
                Some(id) if ids.insert(id) => id,
                Some(id) => {
                    made = format!("{id}#{i}");
                    &made
                }
                None => {
                    made = format!("#{i}");
                    &made
                }
            };
            if seen.is_some_and(|s| s.active(i) == Some(r.active)) {
                continue;
            }
            let owner = (r.id.as_deref())
                .and_then(|id| copied.and_then(|c| c.owners.get(id)))
                .filter(|o| **o != m.id);
            let (session_id, copied_in, version) = match owner {
                Some(o) => (o.as_str(), Some(m.id.as_str()), 0),
                None => (m.id.as_str(), None, own_version),
            };
            let model = r.model.and_then(|i| t.models.get(i as usize));
            let u = r.usage.unwrap_or_default();
            let estimate = matches.as_deref().map(|ms| prices::estimate(ms, r));
            let found = estimate
                .as_ref()
                .map(|e| e.as_ref().and_then(|e| e.1.as_ref().ok()));
            let timestamp = r.ts_ms.and_then(|ms| w.dates.format(ms));
            let row = FactRow {
                schema_version: SCHEMA_VERSION,
                session_id,
                entry_id,
                version,
                copied_in,
                fork_of: copied.and_then(|c| c.fork_of.as_deref()),
                subagent_of,
                host: &self.labels.host,
                user: &self.labels.user,
                cwd: &cwd,
                timestamp,
                r#type: if r.message {
                    "message"
                } else {
                    r.role.as_str()
                },
                role: r.message.then_some(r.role.as_str()),
                provider: model.and_then(|m| m.provider.as_deref()),
                model: model.and_then(|m| m.model.as_deref()),
                model_key: model.map(|m| m.key.as_str()),
                input: u.input,
                output: u.output,
                cache_read: u.cache_read,
                cache_write: u.cache_write,
                total_tokens: u.total_tokens(),
                cost: u.cost,
                unpriced_tokens: u.unpriced,
                estimated_cost: found.map(|f| f.map(|(c, _)| c.total)),
                price_key: found.map(|f| f.map(|(_, m)| m.key)),
                tool_name: r.tool.as_ref(),
                tool_calls: r.calls.len(),
                is_error: r.is_error,
                stop_reason: r.stop_reason.as_deref(),
                active: r.active,
            };
            w.writer.push(&row, buf);
            buf.push(b'\n');
        }
    }
}

/// What the rows are written with, as a cursor remembers it: a hash of the labels, the
/// redaction (a hash of a path under its salt, not the salt) and the price table's bytes.
fn options(
    labels: &Labels,
    redactor: Option<&Redactor>,
    prices: Option<&Path>,
) -> anyhow::Result<String> {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for part in [&labels.host, &labels.user] {
        h.update(&(part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    h.update(redactor.map_or(String::new(), |r| r.path("/")).as_bytes());
    if let Some(p) = prices {
        h.update(&std::fs::read(p).with_context(|| format!("--prices {}", p.display()))?);
    }
    Ok(format!("{:032x}", h.digest128()))
}

fn exists(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}

/// The host and user labels the system gives, before `--label`.
fn system_labels() -> Labels {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    #[cfg(unix)]
    let host = Some(
        rustix::system::uname()
            .nodename()
            .to_string_lossy()
            .into_owned(),
    );
    #[cfg(not(unix))]
    let host = var("COMPUTERNAME");
    Labels {
        host: host
            .filter(|h| !h.is_empty())
            .unwrap_or_else(|| "unknown".to_owned()),
        user: var("USER")
            .or_else(|| var("LOGNAME"))
            .or_else(|| var("USERNAME"))
            .unwrap_or_else(|| "unknown".to_owned()),
    }
}

/// Which store a cursor follows: a hash of the sessions root (a custom session dir, which is
/// flat, itself), canonical where it can be: the same from any project's cwd.
fn store_id(loc: &pisess_store::locate::Location) -> String {
    let dir = if loc.custom {
        &loc.session_dir
    } else {
        &loc.root
    };
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_owned());
    let h = xxhash_rust::xxh3::xxh3_64(dir.as_os_str().as_encoded_bytes());
    format!("{h:016x}")
}

/// A summary with what the rows need ([`Detail::Stats`]).
fn stats() -> SummaryOptions<'static> {
    SummaryOptions {
        detail: Detail::Stats,
        ..SummaryOptions::default()
    }
}
