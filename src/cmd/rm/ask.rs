//! The question `rm` asks before it removes anything: on a terminal only, else `--yes`.

use std::io::{self, Read};

use super::sessions;
use crate::app::cli::RmArgs;
use crate::app::diag::Diag;
use crate::app::env::Env;

/// The question on a terminal; without one, only `--yes` lets the removal go on.
pub(super) fn confirm(
    args: &RmArgs,
    env: &Env,
    count: usize,
    diag: &mut Diag,
    stdin: &mut dyn Read,
) -> anyhow::Result<bool> {
    if args.yes {
        return Ok(true);
    }
    // The plan is on the screen already (it was flushed before anything else).
    if !env.stdin_tty {
        anyhow::bail!(
            "not removing {}: standard input is not a terminal, so nobody can confirm (add --yes)",
            sessions(count)
        );
    }
    let err = diag.stderr();
    write!(err, "Remove {}? [y/N] ", sessions(count))?;
    err.flush()?;
    let answer = read_line(stdin)?;
    Ok(matches!(
        answer.trim().to_ascii_lowercase().as_str(),
        "y" | "yes"
    ))
}

/// One line of the answer, byte by byte so nothing past it is consumed; EOF is "no".
pub(super) fn read_line(stdin: &mut dyn Read) -> io::Result<String> {
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    loop {
        match stdin.read(&mut byte) {
            Ok(0) => break,
            Ok(_) if byte[0] == b'\n' => break,
            Ok(_) => line.push(byte[0]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(String::from_utf8_lossy(&line).into_owned())
}
