//! `gpu-movegen go ...`: the command shape of the game still to come. Until
//! its module lands it takes any arguments and says so, with exit code 2,
//! rather than pretending to run.

use super::common::UsageError;

/// The error for a game whose commands are not built yet.
pub fn not_built(game: &str, arguments: &[String]) -> UsageError {
    let command = if arguments.is_empty() { String::new() } else { format!(" {}", arguments.join(" ")) };
    UsageError(format!(
        "'gpu-movegen {game}{command}': {game} is not built yet; this version counts chess only \
         (see 'gpu-movegen --help')"
    ))
}
