//! `pisess diff A B`: two branches compared (`views::diff`): where they part, their figures
//! side by side with B's change, their tool calls aligned, the files each touched. Human
//! output (`diff/human`), `--format md` (`diff/md`) and `--json`, one object (docs/json.md).
//! It exits 0 when it compared: differences are its answer, not a failure.

mod human;
mod md;

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::ops::ControlFlow;
use std::path::Path;

use anyhow::Context as _;

use serde::Serialize;

use crate::app::cli::{DiffArgs, DiffFormat};
use crate::app::diag::Diag;
use crate::app::env::Env;
use crate::app::exit::Outcome;
use crate::cmd::files::{self, Counts};
use crate::cmd::leaf::{self, LeafArg};
use crate::cmd::{find_entry, selected, warn_cycle};
use crate::views::diff::align::{self, Op, Step};
use crate::views::diff::branch::{self, Branch, Seen};
use crate::views::diff::parting::{self, By, Parting};
use crate::views::diff::records::Records;
use crate::views::diff::{tool_rows, Delta, Figures, ToolRow};
use crate::views::prices::Pricer;
use pisess_format::model::Dialect;
use pisess_format::scan::{open_named, Input, Pass, ScanError};
use pisess_format::surrogates;
use pisess_format::util::warning::Warn;
use pisess_store::locate::Selected;
use pisess_store::session::{IndexOptions, Indexer, Session};
use pisess_store::tally::ToolCount;
use pisess_store::util::stack;

/// One side, read: its session's name and header, the leaf, the branch and its figures.
pub(crate) struct Side<'s> {
    pub session: &'s Session,
    pub branch: Branch,
    pub figures: Figures,
    /// Calls and failed results by tool ([`Branch::tools`]).
    pub tools: BTreeMap<String, ToolCount>,
    pub files: BTreeMap<String, Counts>,
}

impl Side<'_> {
    /// The branch's leaf.
    pub(crate) fn leaf(&self) -> Option<usize> {
        self.branch.path.last().copied()
    }
}

/// Which side a file was touched by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) enum Touched {
    Both,
    OnlyA,
    OnlyB,
}

/// One file, with what each side's calls did to it.
pub(crate) struct FileRow<'a> {
    pub path: &'a str,
    pub touched: Touched,
    pub a: Option<&'a Counts>,
    pub b: Option<&'a Counts>,
}

/// Everything compared, for the printers.
pub(crate) struct Report<'s> {
    pub a: Side<'s>,
    pub b: Side<'s>,
    pub parting: Parting,
    pub delta: Delta,
    pub tools: Vec<ToolRow>,
    pub steps: Vec<Step>,
    pub pricer: Option<Pricer>,
}

impl Report<'_> {
    /// Every file either side touched, by path.
    pub(crate) fn files(&self) -> Vec<FileRow<'_>> {
        let mut paths: Vec<&str> = (self.a.files.keys())
            .chain(self.b.files.keys())
            .map(String::as_str)
            .collect();
        paths.sort_unstable();
        paths.dedup();
        paths
            .into_iter()
            .map(|path| {
                let (a, b) = (self.a.files.get(path), self.b.files.get(path));
                let touched = match (a, b) {
                    (Some(_), Some(_)) => Touched::Both,
                    (Some(_), None) => Touched::OnlyA,
                    _ => Touched::OnlyB,
                };
                FileRow {
                    path,
                    touched,
                    a,
                    b,
                }
            })
            .collect()
    }
}

pub fn run(
    args: &DiffArgs,
    env: &Env,
    out: &mut dyn Write,
    diag: &mut Diag,
    stdin: &mut dyn Read,
) -> anyhow::Result<Outcome> {
    let (la, lb) = (leaf::parse(&args.a)?, leaf::parse(&args.b)?);
    let (sa, sb) = (
        selected(la.session.as_deref(), env)?,
        selected(lb.session.as_deref(), env)?,
    );
    // One file named twice (or `-` twice) is read once: its leaves share entries by identity.
    let one_file = same_file(&sa, &sb);
    let pricer = args.prices.as_deref().map(Pricer::read).transpose()?;
    let (mut records_a, mut records_b) = (Records::default(), Records::default());
    let (session_a, opened_b) = match (&sa, &sb) {
        // Two regular files (a FIFO could wait for a writer while the other fails).
        (Selected::File(pa), Selected::File(pb)) if !one_file && regular(pa) && regular(pb) => {
            let records = (&mut records_a, &mut records_b);
            let (a, b) = open_both((pa, pb), diag, records)?;
            (a, Some(b))
        }
        _ => {
            let a = open(&sa, env, diag, stdin, &mut records_a)?;
            let b = if one_file {
                None
            } else {
                Some(open(&sb, env, diag, stdin, &mut records_b)?)
            };
            (a, b)
        }
    };
    let (session_b, records_b) = match &opened_b {
        Some(session) => (session, &records_b),
        None => (&session_a, &records_a),
    };
    let a = side(&session_a, &records_a, &la, pricer.as_ref(), diag)?;
    let b = side(session_b, records_b, &lb, pricer.as_ref(), diag)?;
    let parting = parting::find(
        &parting::Side {
            session: a.session,
            path: &a.branch.path,
        },
        &parting::Side {
            session: b.session,
            path: &b.branch.path,
        },
    )?;
    let steps = align::align(&keys(&a), &keys(&b), args.minimal);
    let tools = tool_rows(&a.tools, &b.tools);
    let report = Report {
        delta: Delta::of(&a.figures, &b.figures),
        a,
        b,
        parting,
        tools,
        steps,
        pricer,
    };
    if args.json {
        write_json(&report, out)?;
    } else if args.format == Some(DiffFormat::Md) {
        md::write(&report, out)?;
    } else {
        human::write(&report, env.theme(), env.width.unwrap_or(80), out)?;
    }
    Ok(Outcome::Done)
}

/// A side's call keys, in order.
fn keys<'a>(s: &'a Side) -> Vec<&'a str> {
    (0..s.branch.calls.len()).map(|i| s.branch.key(i)).collect()
}

/// A side as JSON writes it.
fn side_json<'a>(s: &'a Side) -> SideJson<'a> {
    SideJson {
        path: &s.session.name,
        session_id: &s.session.header.id,
        leaf: entry_ref(s.session, s.leaf()),
        figures: &s.figures,
    }
}

/// Call `i` of a side, as JSON names it.
fn call_ref<'a>(s: &'a Side, i: Option<usize>) -> Option<CallRef<'a>> {
    i.map(|i| {
        let c = &s.branch.calls[i];
        CallRef {
            index: i,
            entry_id: s.session.id(c.entry),
            failed: c.failed,
        }
    })
}

/// Whether A and B name one file (then it is read once, and shares its entries by identity).
fn same_file(a: &Selected, b: &Selected) -> bool {
    match (a, b) {
        (Selected::File(x), Selected::File(y)) => {
            x == y || matches!((x.canonicalize(), y.canonicalize()), (Ok(x), Ok(y)) if x == y)
        }
        (Selected::Stdin, Selected::Stdin) => true,
        _ => false,
    }
}

/// A session indexed as [`open_session`](crate::cmd::open_session) does, each entry's share
/// of its branches' figures recorded in the same pass ([`Records`]).
fn open(
    selected: &Selected,
    env: &Env,
    diag: &mut Diag,
    stdin: &mut dyn Read,
    records: &mut Records,
) -> anyhow::Result<Session> {
    let session = match selected {
        Selected::Stdin => {
            Input::stdin_allowed(env.stdin_device)?;
            index(Input::Stream(stdin, "-"), records).context("<stdin>")?
        }
        Selected::File(path) => open_file(path, records)?,
    };
    diag.session_warnings(&session.name, &session.warnings);
    Ok(session)
}

/// Two files, each indexed on a core of its own: their warnings said in order, A's first.
fn open_both(
    (a, b): (&Path, &Path),
    diag: &mut Diag,
    (records_a, records_b): (&mut Records, &mut Records),
) -> anyhow::Result<(Session, Session)> {
    let mut read_b = None;
    let a = std::thread::scope(|scope| {
        // The stack the command runs on: a line may nest deep.
        stack::spawn_scoped(scope, || read_b = Some(open_file(b, records_b)));
        open_file(a, records_a)
    });
    let b = read_b.expect("the scope joined its thread");
    let a = a?;
    diag.session_warnings(&a.name, &a.warnings);
    let b = b?;
    diag.session_warnings(&b.name, &b.warnings);
    Ok((a, b))
}

fn regular(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

/// The session file named `path` ([`open_named`]: a FIFO is read as a stream), indexed.
fn open_file(path: &Path, records: &mut Records) -> anyhow::Result<Session> {
    let opened = open_named(path).with_context(|| path.display().to_string())?;
    index(Input::File(&opened), records).with_context(|| path.display().to_string())
}

/// `input` indexed ([`Session::read`]) and its entries recorded, in one pass.
fn index(input: Input<'_>, records: &mut Records) -> Result<Session, ScanError> {
    // `diff` reads no line without its content: the index keeps no copies for it.
    let options = IndexOptions {
        no_rests: true,
        ..IndexOptions::default()
    };
    let mut index = Indexer::new(&input, options)?;
    let report = Pass::new().run(input, |header, e| {
        index.entry(e);
        records.entry(header, e);
        ControlFlow::Continue(())
    })?;
    records.finish();
    index.finish(report)
}

/// One side read: its leaf (ENTRY, or the session's own), branch, figures and files.
fn side<'s>(
    session: &'s Session,
    records: &Records,
    arg: &LeafArg,
    pricer: Option<&Pricer>,
    diag: &mut Diag,
) -> anyhow::Result<Side<'s>> {
    let leaf = match &arg.entry {
        Some(id) => Some(find_entry(session, id)?),
        None => session.leaf(),
    };
    // Summed from the index's pass, unless a price table needs the tally of the branch read
    // as a file, or seed 000's results in user messages need their calls' names.
    let summed = pricer.is_none()
        && session.header.dialect != Dialect::Seed000
        && records.of_all(session.entries.len());
    let (mut branch, figures, files) = if summed {
        let (path, cycle) = leaf.map(|l| session.path_to(l)).unwrap_or_default();
        let (branch, sums) = records.branch(path, cycle, &session.header);
        let figures = Figures::unpriced(
            &sums.usage,
            &sums.counts,
            branch.compactions,
            sums.active_ms,
            sums.models,
        );
        (branch, figures, sums.files)
    } else {
        // The files, from the calls and results the branch's one pass decodes.
        let cwd = session.header.cwd.as_deref().unwrap_or("");
        let mut touches = files::Touches::default();
        let (branch, summary) =
            branch::read(session, leaf, pricer.is_some(), &mut |seen| match seen {
                Seen::Call(call) => touches.call(call, cwd),
                Seen::Result { call_id, failed } => touches.result(call_id, failed),
            })?;
        let figures = Figures::of(&summary, branch.compactions, pricer);
        (branch, figures, touches.files)
    };
    if let Some(id) = &branch.cycle {
        warn_cycle(diag, session, id);
    }
    let tools = std::mem::take(&mut branch.tools);
    Ok(Side {
        session,
        branch,
        figures,
        tools,
        files,
    })
}

/// An entry as JSON names it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct EntryRef<'a> {
    entry_id: Option<&'a str>,
    file_line: u64,
}

fn entry_ref(session: &Session, i: Option<usize>) -> Option<EntryRef<'_>> {
    i.map(|i| EntryRef {
        entry_id: session.id(i),
        file_line: session.line(i),
    })
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SideJson<'a> {
    path: &'a str,
    session_id: &'a str,
    leaf: Option<EntryRef<'a>>,
    figures: &'a Figures,
}

#[derive(Serialize)]
struct Pair<T> {
    a: T,
    b: T,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PartedJson<'a> {
    by: Option<By>,
    common: Option<Pair<Option<EntryRef<'a>>>>,
    next: Pair<Option<EntryRef<'a>>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CallRef<'a> {
    index: usize,
    entry_id: Option<&'a str>,
    failed: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CallJson<'a> {
    op: Op,
    key: &'a str,
    a: Option<CallRef<'a>>,
    b: Option<CallRef<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FileJson<'a> {
    path: &'a str,
    touched: Touched,
    a: Option<CountsJson>,
    b: Option<CountsJson>,
}

#[derive(Serialize)]
struct CountsJson {
    reads: u64,
    writes: u64,
    edits: u64,
    errors: u64,
}

impl From<&Counts> for CountsJson {
    fn from(c: &Counts) -> CountsJson {
        CountsJson {
            reads: c.reads,
            writes: c.writes,
            edits: c.edits,
            errors: c.errors,
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ReportJson<'a> {
    a: SideJson<'a>,
    b: SideJson<'a>,
    parted: PartedJson<'a>,
    delta: &'a Delta,
    tools: &'a [ToolRow],
    calls: Calls<'a>,
    files: Vec<FileJson<'a>>,
}

/// The aligned calls, each made as it is written: a row each for 100,000 calls a side was
/// more memory than the rest of the report.
struct Calls<'a>(&'a Report<'a>);

impl Serialize for Calls<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let r = self.0;
        serializer.collect_seq(r.steps.iter().map(|s| CallJson {
            op: s.op,
            key: match (s.a, s.b) {
                (Some(i), _) => r.a.branch.key(i),
                (None, Some(j)) => r.b.branch.key(j),
                (None, None) => "",
            },
            a: call_ref(&r.a, s.a),
            b: call_ref(&r.b, s.b),
        }))
    }
}

/// `--json`: one object, one line.
fn write_json<'s>(r: &'s Report<'s>, out: &mut dyn Write) -> anyhow::Result<()> {
    let (sa, sb) = (r.a.session, r.b.session);
    let common = r.parting.common.map(|(x, y)| Pair {
        a: entry_ref(sa, Some(x)),
        b: entry_ref(sb, Some(y)),
    });
    let files = (r.files().into_iter())
        .map(|f| FileJson {
            path: f.path,
            touched: f.touched,
            a: f.a.map(Into::into),
            b: f.b.map(Into::into),
        })
        .collect();
    let json = ReportJson {
        a: side_json(&r.a),
        b: side_json(&r.b),
        parted: PartedJson {
            by: r.parting.common.map(|_| r.parting.by),
            common,
            next: Pair {
                a: entry_ref(sa, r.parting.next.0),
                b: entry_ref(sb, r.parting.next.1),
            },
        },
        delta: &r.delta,
        tools: &r.tools,
        calls: Calls(r),
        files,
    };
    surrogates::write(&mut *out, &json)?;
    out.write_all(b"\n")?;
    Ok(())
}
