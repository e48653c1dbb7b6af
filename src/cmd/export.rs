//! `pisess export`: the arguments to a format, a branch and a destination; the data and the
//! renderers are `crate::export`'s.

use std::ffi::OsStr;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use anyhow::Context as _;

use crate::app::cli::{ExportArgs, ExportFormat, ToolsArg};
use crate::app::diag::Diag;
use crate::app::env::Env;
use crate::app::exit::Outcome;
use crate::cmd::{find_entry, open_session, warn_cycle};
use crate::store::select::select;
use crate::store::session::{Session, Source};
use crate::util::usage::UsageError;
use crate::views::export::{self, jsonl, Redact, Tools, Verbatim, View};
use crate::views::secrets::Detector;
use crate::views::style;

pub fn run(
    args: &ExportArgs,
    env: &Env,
    out: &mut dyn Write,
    diag: &mut Diag,
    stdin: &mut dyn Read,
) -> anyhow::Result<Outcome> {
    let format = format_of(args)?;
    if format == ExportFormat::Jsonl && (args.tools.is_some() || args.no_thinking) {
        return Err(UsageError(
            "--tools and --no-thinking apply to md and html; a jsonl export holds every entry as it is"
                .to_owned(),
        )
        .into());
    }
    let destination = args.output.as_deref().filter(|o| *o != OsStr::new("-"));
    let session = open_session(
        &select(
            args.session.as_deref(),
            &env.location,
            env.pi_session_file.as_deref(),
        )?,
        env,
        diag,
        stdin,
        Default::default(),
    )?;
    if let Some(file) = destination {
        refuse_input(&session, Path::new(file))?;
    }
    let leaf = match args.leaf.as_deref() {
        Some(id) => Some(find_entry(&session, id)?),
        // The leaf every command takes (the last entry with an id; docs/format.md). pi's
        // would be the last entry's id, none when it has none: an empty branch, a deliberate
        // difference.
        None => session.leaf(),
    };
    let path = match leaf {
        Some(leaf) => {
            let (path, cycle) = session.path_to(leaf);
            if let Some(id) = &cycle {
                warn_cycle(diag, &session, id);
            }
            path
        }
        None => Vec::new(),
    };
    // pi's SessionManager holds the header's cwd resolved against the process's cwd.
    let cwd = match &session.header.cwd {
        Some(cwd) => {
            crate::store::locate::resolve_path(cwd, &env.location.process_cwd, &env.inputs.home)
        }
        None => env.location.process_cwd.clone(),
    };
    let cwd = cwd.to_string_lossy().into_owned();
    let detector = args
        .redact
        .then(|| Detector::load(args.secrets_config.as_deref()))
        .transpose()?;
    let redact: &dyn Redact = match &detector {
        Some(d) => d,
        None => &Verbatim,
    };
    let view = View {
        tools: match args.tools {
            Some(ToolsArg::Full) => Tools::Full,
            Some(ToolsArg::None) => Tools::None,
            Some(ToolsArg::Collapsed) | None => Tools::Collapsed,
        },
        thinking: !args.no_thinking,
    };
    let write = |w: &mut dyn Write| -> anyhow::Result<()> {
        match format {
            ExportFormat::Jsonl => {
                let timestamp = crate::format::time::to_json_date(env.now_ms).unwrap_or_default();
                let header = jsonl::Header {
                    id: &session.header.id,
                    timestamp: &timestamp,
                    cwd: &cwd,
                };
                jsonl::write(&session, &path, &header, redact, w)
            }
            ExportFormat::Md | ExportFormat::Html => {
                let t = export::transcript::build(&session, &path, &cwd, redact)?;
                let text = if format == ExportFormat::Md {
                    export::md::render(&t, view)
                } else {
                    export::html::render(&t, view)
                };
                // Session text may hold escape sequences (OSC 52, ESC[2J): on a terminal they
                // are shown escaped, as `show` shows them; a file or a pipe gets the bytes.
                let text = if destination.is_none() && env.stdout_tty {
                    style::escape_control(&text, true)
                } else {
                    text.into()
                };
                Ok(w.write_all(text.as_bytes())?)
            }
        }
    };
    match destination {
        None => write(out)?,
        Some(file) => write_file(Path::new(file), write)?,
    }
    Ok(Outcome::Done)
}

/// `--format`, else what `-o`'s extension says.
fn format_of(args: &ExportArgs) -> anyhow::Result<ExportFormat> {
    if let Some(f) = args.format {
        return Ok(f);
    }
    let ext = args
        .output
        .as_deref()
        .and_then(|o| Path::new(o).extension())
        .and_then(OsStr::to_str)
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("jsonl") => Ok(ExportFormat::Jsonl),
        Some("md" | "markdown") => Ok(ExportFormat::Md),
        Some("html" | "htm") => Ok(ExportFormat::Html),
        _ => Err(UsageError(match &args.output {
            Some(o) if *o != OsStr::new("-") => format!(
                "cannot tell the format from {}: give --format jsonl, md or html",
                Path::new(o).display()
            ),
            _ => "give --format jsonl, md or html (or -o FILE ending in .jsonl, .md or .html)"
                .to_owned(),
        })
        .into()),
    }
}

/// pisess never writes to a session it reads: `-o` naming the input is refused.
fn refuse_input(session: &Session, file: &Path) -> anyhow::Result<()> {
    let Source::File(input) = &session.source else {
        return Ok(());
    };
    if same_file(input, file) {
        anyhow::bail!(
            "-o {}: that is the session being exported; pisess never writes to its input",
            file.display()
        );
    }
    Ok(())
}

fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use crate::util::file::FileId;
        match (std::fs::metadata(a), std::fs::metadata(b)) {
            (Ok(x), Ok(y)) => FileId::of(&x).same(FileId::of(&y)),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
    }
}

/// Writes to a temporary file beside `file` and renames it into place: a failed export leaves
/// no half-written file, and an existing one stays whole until the new one is complete.
fn write_file(
    file: &Path,
    write: impl FnOnce(&mut dyn Write) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let shown = file.display().to_string();
    let dir = match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let tmp = tempfile::Builder::new()
        .prefix(".pisess-export")
        .tempfile_in(&dir)
        .with_context(|| format!("cannot write {shown}"))?;
    let mut w = io::BufWriter::new(tmp);
    write(&mut w)?;
    let tmp = w
        .into_inner()
        .map_err(|e| anyhow::anyhow!("cannot write {shown}: {}", e.error()))?;
    tmp.persist(file)
        .map_err(|e| anyhow::anyhow!("cannot write {shown}: {}", e.error))?;
    Ok(())
}
