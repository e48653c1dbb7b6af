//! `pisess tree` (being written).

use std::io::{Read, Write};

use crate::cli::TreeArgs;
use crate::env::Env;
use crate::{Diag, Outcome};

pub fn run(
    _args: &TreeArgs,
    _env: &Env,
    _out: &mut dyn Write,
    _diag: &mut Diag,
    _stdin: &mut dyn Read,
) -> anyhow::Result<Outcome> {
    anyhow::bail!("not implemented yet")
}
