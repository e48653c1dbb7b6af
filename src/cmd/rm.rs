//! `pisess rm` (being written).

use std::io::{Read, Write};

use crate::cli::RmArgs;
use crate::env::Env;
use crate::{Diag, Outcome};

pub fn run(
    _args: &RmArgs,
    _env: &Env,
    _out: &mut dyn Write,
    _diag: &mut Diag,
    _stdin: &mut dyn Read,
) -> anyhow::Result<Outcome> {
    anyhow::bail!("not implemented yet")
}
