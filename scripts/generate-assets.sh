#!/bin/sh
# Regenerates the shell completions in completions/ and the man page docs/pisess.1 from the
# clap definition in src/app/cli.rs, with the hidden `pisess generate` subcommand. Run it after
# changing an option or a help text, and commit the result; the test
# `conventions::committed_completions_and_man_page_are_up_to_date` fails until you do.
set -eu
cd "$(dirname "$0")/.."
cargo build --quiet
bin="${CARGO_TARGET_DIR:-target}/debug/pisess"
mkdir -p completions docs
"$bin" generate bash > completions/pisess.bash
"$bin" generate zsh > completions/_pisess
"$bin" generate fish > completions/pisess.fish
"$bin" generate powershell > completions/_pisess.ps1
"$bin" generate elvish > completions/pisess.elv
"$bin" generate man > docs/pisess.1
echo "wrote completions/{pisess.bash,_pisess,pisess.fish,_pisess.ps1,pisess.elv} and docs/pisess.1"
