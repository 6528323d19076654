//! Perft suites: EPD lines (`<fen> ;D1 20 ;D2 400`) and the `.perft`
//! format (`id`, `epd`, `perft <depth> <nodes>` lines). `#` starts a comment.

use crate::board::Position;
use crate::error::{FenError, SuiteError};

/// One position of a suite with its expected node counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuiteEntry {
    /// The 1-based line the position stands on.
    pub line: usize,
    /// The `id` of a `.perft` entry, if it has one.
    pub id: Option<String>,
    pub fen: String,
    /// (depth, expected nodes), in the file's order.
    pub expected: Vec<(u32, u64)>,
}

impl SuiteEntry {
    pub fn position(&self) -> Result<Position, FenError> {
        Position::from_fen(&self.fen)
    }

    /// The expected counts at depths up to `max_depth`.
    pub fn expected_up_to(&self, max_depth: u32) -> impl Iterator<Item = (u32, u64)> + '_ {
        self.expected.iter().copied().filter(move |(depth, _)| *depth <= max_depth)
    }
}

fn parse_count(line: usize, depth: &str, nodes: &str) -> Result<(u32, u64), SuiteError> {
    let depth_value = depth.parse::<u32>().ok().filter(|depth| *depth >= 1);
    let nodes_value = nodes.parse::<u64>().ok();
    match (depth_value, nodes_value) {
        (Some(depth), Some(nodes)) => Ok((depth, nodes)),
        (None, _) => Err(SuiteError { line, problem: format!("depth '{depth}' is not a whole number of at least 1") }),
        (_, None) => Err(SuiteError { line, problem: format!("node count '{nodes}' is not a whole number") }),
    }
}

/// Parses a whole suite. FENs are kept as text; [`SuiteEntry::position`] checks them.
pub fn parse_suite(text: &str) -> Result<Vec<SuiteEntry>, SuiteError> {
    let mut entries: Vec<SuiteEntry> = Vec::new();
    let mut pending_id: Option<String> = None;
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let content = raw.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let (keyword, rest) = content.split_once(char::is_whitespace).unwrap_or((content, ""));
        let rest = rest.trim();
        match keyword {
            "id" => pending_id = Some(rest.to_owned()),
            "epd" => {
                entries.push(SuiteEntry { line, id: pending_id.take(), fen: rest.to_owned(), expected: Vec::new() })
            }
            "perft" => {
                let Some(entry) = entries.last_mut() else {
                    return Err(SuiteError { line, problem: "'perft' line before any 'epd' line".to_owned() });
                };
                let fields: Vec<&str> = rest.split_whitespace().collect();
                let [depth, nodes] = fields[..] else {
                    return Err(SuiteError {
                        line,
                        problem: format!("expected 'perft <depth> <nodes>', found '{content}'"),
                    });
                };
                entry.expected.push(parse_count(line, depth, nodes)?);
            }
            _ => {
                let mut parts = content.split(';');
                let fen = parts.next().unwrap_or("").trim().to_owned();
                let mut expected = Vec::new();
                for part in parts {
                    let part = part.trim();
                    if part.is_empty() {
                        continue;
                    }
                    let Some(body) = part.strip_prefix('D') else {
                        return Err(SuiteError {
                            line,
                            problem: format!("expected ';D<depth> <nodes>', found ';{part}'"),
                        });
                    };
                    let fields: Vec<&str> = body.split_whitespace().collect();
                    let [depth, nodes] = fields[..] else {
                        return Err(SuiteError {
                            line,
                            problem: format!("expected ';D<depth> <nodes>', found ';{part}'"),
                        });
                    };
                    expected.push(parse_count(line, depth, nodes)?);
                }
                if expected.is_empty() {
                    return Err(SuiteError { line, problem: "no ';D<depth> <nodes>' counts after the FEN".to_owned() });
                }
                entries.push(SuiteEntry { line, id: None, fen, expected });
            }
        }
    }
    if entries.is_empty() {
        return Err(SuiteError { line: 0, problem: "no positions found".to_owned() });
    }
    Ok(entries)
}
