//! Perft suites: EPD lines (`<fen> ;D1 20 ;D2 400`) and the `.perft`
//! format (`id`, `epd`, `perft <depth> <nodes>` lines). `#` starts a comment.
//! A chess variant's positions say so: a `variant <name>` line (`.perft`; it
//! holds for the entries after it until the next) or a `;variant <name>`
//! field (EPD).

use crate::chess::error::{FenError, SuiteError};
use crate::chess::position::Position;

/// One position of a suite with its expected node counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuiteEntry {
    /// The 1-based line the position stands on.
    pub line: usize,
    /// The `id` of a `.perft` entry, if it has one.
    pub id: Option<String>,
    /// The position's FEN as the suite gives it.
    pub fen: String,
    /// (depth, expected nodes), in the file's order.
    pub expected: Vec<(u32, u64)>,
    /// The chess variant the suite names for this position (`variant
    /// <name>`), as written; `None`: the variant the caller counts in.
    pub variant: Option<String>,
}

impl SuiteEntry {
    /// The position, or why its FEN is refused.
    pub fn position(&self) -> Result<Position, FenError> {
        Position::from_fen(&self.fen)
    }

    /// The expected counts at depths up to `max_depth`.
    pub fn expected_up_to(&self, max_depth: u32) -> impl Iterator<Item = (u32, u64)> + '_ {
        self.expected.iter().copied().filter(move |(depth, _)| *depth <= max_depth)
    }
}

fn parse_count(line: usize, depth: &str, nodes: &str) -> Result<(u32, u64), SuiteError> {
    let depth_value = depth.parse::<u32>().ok().filter(|depth| (1..=crate::chess::perft::MAX_DEPTH).contains(depth));
    let nodes_value = nodes.parse::<u64>().ok();
    match (depth_value, nodes_value) {
        (Some(depth), Some(nodes)) => Ok((depth, nodes)),
        (None, _) => Err(SuiteError {
            line,
            problem: format!("depth '{depth}' is not a whole number from 1 to {}", crate::chess::perft::MAX_DEPTH),
        }),
        (_, None) => Err(SuiteError { line, problem: format!("node count '{nodes}' is not a whole number") }),
    }
}

/// Parses a whole suite. FENs are kept as text; [`SuiteEntry::position`] checks them.
pub fn parse_suite(text: &str) -> Result<Vec<SuiteEntry>, SuiteError> {
    let mut entries: Vec<SuiteEntry> = Vec::new();
    let mut pending_id: Option<String> = None;
    let mut variant: Option<String> = None;
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        if let Some(problem) = crate::files::overlong(raw) {
            return Err(SuiteError { line, problem });
        }
        let content = raw.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let (keyword, rest) = content.split_once(char::is_whitespace).unwrap_or((content, ""));
        let rest = rest.trim();
        match keyword {
            "id" => pending_id = Some(rest.to_owned()),
            "variant" => {
                if rest.is_empty() || rest.contains(char::is_whitespace) {
                    return Err(SuiteError { line, problem: format!("expected 'variant <name>', found '{content}'") });
                }
                variant = Some(rest.to_owned());
            }
            "epd" => entries.push(SuiteEntry {
                line,
                id: pending_id.take(),
                fen: rest.to_owned(),
                expected: Vec::new(),
                variant: variant.clone(),
            }),
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
                let mut entry_variant = variant.clone();
                for part in parts {
                    let part = part.trim();
                    if part.is_empty() {
                        continue;
                    }
                    if let Some(name) = part.strip_prefix("variant ") {
                        entry_variant = Some(name.trim().to_owned());
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
                entries.push(SuiteEntry { line, id: None, fen, expected, variant: entry_variant });
            }
        }
    }
    if entries.is_empty() {
        return Err(SuiteError { line: 0, problem: "no positions found".to_owned() });
    }
    // An entry with nothing to check must not read as passed.
    if let Some(entry) = entries.iter().find(|entry| entry.expected.is_empty()) {
        return Err(SuiteError {
            line: entry.line,
            problem: "an 'epd' line with no 'perft <depth> <nodes>' lines after it".to_owned(),
        });
    }
    Ok(entries)
}

/// Kiwipete, the perft position that exercises castling, en passant,
/// promotions and pins (Peter McKenzie's, from the Chess Programming Wiki).
pub const KIWIPETE_FEN: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

/// Published perft of the start position, depths 1 to 13 (OEIS A048987).
pub const START_PERFT: [u64; 13] = [
    20,
    400,
    8_902,
    197_281,
    4_865_609,
    119_060_324,
    3_195_901_860,
    84_998_978_956,
    2_439_530_234_167,
    69_352_859_712_417,
    2_097_651_003_696_806,
    62_854_969_236_701_747,
    1_981_066_775_000_396_239,
];

/// Published perft of Kiwipete, depths 1 to 7 (Chess Programming Wiki, "Perft Results").
pub const KIWIPETE_PERFT: [u64; 7] = [48, 2_039, 97_862, 4_085_603, 193_690_690, 8_031_647_685, 374_190_009_323];

/// The perft suite of tests/data/perftsuite.epd (its source line is kept there).
const PERFT_SUITE: &str = include_str!("../../tests/data/perftsuite.epd");

/// The published perft of `position` at `depth`, where this crate knows one:
/// the start position to depth 13, Kiwipete to depth 7 and every count of
/// the 126-position perft suite. Positions are matched on the first four
/// FEN fields (the move counters do not change a count).
pub fn published_count(position: &Position, depth: u32) -> Option<u64> {
    if depth == 0 {
        return Some(1);
    }
    let key = |fen: &str| fen.split_whitespace().take(4).collect::<Vec<_>>().join(" ");
    let wanted = key(&position.to_fen());
    let index = depth as usize - 1;
    if wanted == key(crate::chess::position::START_FEN) {
        return START_PERFT.get(index).copied();
    }
    if wanted == key(KIWIPETE_FEN) {
        return KIWIPETE_PERFT.get(index).copied();
    }
    let entries = parse_suite(PERFT_SUITE).ok()?;
    let entry = entries.iter().find(|entry| key(&entry.fen) == wanted)?;
    entry.expected.iter().find(|(at, _)| *at == depth).map(|(_, nodes)| *nodes)
}
