//! Perft split into work units for a batch engine (Slurm, GNU parallel, or
//! anything that runs one command per file): `split` writes the distinct
//! positions at a ply with their multiplicities into unit files and a
//! manifest, `run_unit` counts one unit and writes its result atomically,
//! `merge` checks that every unit has a valid result and sums them.
//!
//! Every file is plain text ending in a `checksum` line, the SHA-256 of
//! everything before it, so a truncated or edited file is refused. A result
//! names the SHA-256 of the unit file it counted, so a result left from
//! another split is refused too. Results are written to a temporary file,
//! flushed to disk and renamed into place: a run killed at any moment leaves
//! either no result or a whole one.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::chess::position::Position;
use crate::chess::stats::PerftStats;
use crate::chess::unique::Level;
use crate::files::read_text;

const UNIT_HEADER: &str = "gpu-movegen perft unit 1";
const MANIFEST_HEADER: &str = "gpu-movegen perft manifest 1";
const RESULT_HEADER: &str = "gpu-movegen perft result 1";
/// The manifest's file name in a split's folder.
pub const MANIFEST: &str = "manifest";

/// Why a split, a unit, a result or a merge failed.
#[derive(Debug, thiserror::Error)]
pub enum UnitError {
    /// A file could not be read or written.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        error: std::io::Error,
    },
    /// A file is not what it should be.
    #[error("{path}: {problem}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        problem: String,
    },
    /// The split asked for cannot be made.
    #[error("{0}")]
    Plan(String),
}

/// The largest unit or manifest file read (a unit of a million positions is
/// about 100 MB).
const MAX_UNIT_BYTES: u64 = 512 << 20;

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> UnitError + '_ {
    move |error| UnitError::Io { path: path.to_owned(), error }
}

fn invalid(path: &Path, problem: impl Into<String>) -> UnitError {
    UnitError::Invalid { path: path.to_owned(), problem: problem.into() }
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().fold(String::with_capacity(64), |mut text, byte| {
        let _ = write!(text, "{byte:02x}");
        text
    })
}

/// `body` followed by its checksum line.
fn with_checksum(body: String) -> String {
    let checksum = sha256_hex(body.as_bytes());
    format!("{body}checksum {checksum}\n")
}

/// The lines of a checksummed file without the checksum line, or why not.
fn checked_lines(path: &Path, text: &str) -> Result<Vec<String>, UnitError> {
    let body_end = text.trim_end_matches('\n').rfind('\n').map_or(0, |at| at + 1);
    let (body, last) = text.split_at(body_end);
    let checksum = last.trim().strip_prefix("checksum ").ok_or_else(|| invalid(path, "no checksum line at the end"))?;
    if sha256_hex(body.as_bytes()) != checksum {
        return Err(invalid(path, "the checksum does not match the contents (truncated or edited)"));
    }
    Ok(body.lines().map(str::to_owned).collect())
}

/// The value after `key ` on `line`.
fn field<'a>(path: &Path, line: Option<&'a String>, key: &str) -> Result<&'a str, UnitError> {
    line.and_then(|line| line.strip_prefix(key))
        .and_then(|rest| rest.strip_prefix(' '))
        .ok_or_else(|| invalid(path, format!("expected a '{key}' line")))
}

fn number<T: std::str::FromStr>(path: &Path, text: &str, what: &str) -> Result<T, UnitError> {
    text.trim().parse().map_err(|_| invalid(path, format!("'{text}' is not a valid {what}")))
}

/// What a split is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    /// The FEN of the root.
    pub root: String,
    /// The depth of the whole count.
    pub depth: u32,
    /// The ply the units start from.
    pub split_depth: u32,
    /// Distinct positions at the split ply, over all units.
    pub positions: u64,
    /// Move sequences to the split ply: perft(split_depth).
    pub sequences: u128,
    /// Each unit's file name and SHA-256.
    pub units: Vec<(String, String)>,
}

/// The file name of unit `index`.
pub fn unit_name(index: usize) -> String {
    format!("unit-{index:04}")
}

/// Splits perft(`depth`) of `root` at ply `split_depth` into `units` unit
/// files and a manifest in `folder` (created if missing; it must not hold a
/// manifest already).
pub fn split(
    root: &Position,
    depth: u32,
    split_depth: u32,
    units: usize,
    folder: &Path,
) -> Result<Manifest, UnitError> {
    if split_depth > depth {
        return Err(UnitError::Plan(format!("--split-depth {split_depth} is deeper than --depth {depth}")));
    }
    if depth > crate::chess::perft::MAX_DEPTH {
        return Err(UnitError::Plan(format!(
            "--depth {depth} is beyond the deepest perft counted ({})",
            crate::chess::perft::MAX_DEPTH
        )));
    }
    if units == 0 {
        return Err(UnitError::Plan("--units must be at least 1".into()));
    }
    std::fs::create_dir_all(folder).map_err(io_error(folder))?;
    let manifest_path = folder.join(MANIFEST);
    if manifest_path.exists() {
        return Err(UnitError::Plan(format!("{} exists: split into an empty folder", manifest_path.display())));
    }
    let level = Level::at_ply(root, split_depth, crate::chess::unique::default_memory_bytes())
        .map_err(|error| UnitError::Plan(format!("--split-depth {split_depth}: {error}; split at a shallower ply")))?;
    if level.len() < units {
        return Err(UnitError::Plan(format!(
            "ply {split_depth} has {} distinct positions; ask for at most that many units",
            level.len()
        )));
    }
    let root_fen = root.to_fen();
    let mut manifest = Manifest {
        root: root_fen.clone(),
        depth,
        split_depth,
        positions: level.len() as u64,
        sequences: level.sequences(),
        units: Vec::with_capacity(units),
    };
    for index in 0..units {
        // Round robin: each unit gets a similar mix of the sorted positions.
        let members: Vec<&(crate::chess::position::PositionIdentity, u64)> =
            level.positions.iter().skip(index).step_by(units).collect();
        let mut body = format!(
            "{UNIT_HEADER}\nroot {root_fen}\ndepth {depth}\nsplit-depth {split_depth}\nunit {index} of {units}\npositions {}\n",
            members.len()
        );
        for (identity, multiplicity) in members {
            let _ = writeln!(body, "{} {multiplicity}", Position::from_identity(identity).to_fen());
        }
        let text = with_checksum(body);
        let name = unit_name(index);
        write_atomically(&folder.join(&name), text.as_bytes())?;
        manifest.units.push((name, sha256_hex(text.as_bytes())));
    }
    let mut body = format!(
        "{MANIFEST_HEADER}\nroot {root_fen}\ndepth {depth}\nsplit-depth {split_depth}\nunits {units}\npositions {}\nsequences {}\n",
        manifest.positions, manifest.sequences
    );
    for (name, checksum) in &manifest.units {
        let _ = writeln!(body, "unit {name} {checksum}");
    }
    write_atomically(&manifest_path, with_checksum(body).as_bytes())?;
    Ok(manifest)
}

/// Reads and checks a split's manifest.
pub fn read_manifest(folder: &Path) -> Result<Manifest, UnitError> {
    let path = folder.join(MANIFEST);
    let text = read_text(&path, MAX_UNIT_BYTES).map_err(io_error(&path))?;
    let lines = checked_lines(&path, &text)?;
    if lines.first().map(String::as_str) != Some(MANIFEST_HEADER) {
        return Err(invalid(&path, "not a gpu-movegen perft manifest"));
    }
    let mut lines = lines.iter().skip(1);
    let root = field(&path, lines.next(), "root")?.to_owned();
    let depth = number(&path, field(&path, lines.next(), "depth")?, "depth")?;
    let split_depth = number(&path, field(&path, lines.next(), "split-depth")?, "split depth")?;
    let count: usize = number(&path, field(&path, lines.next(), "units")?, "unit count")?;
    let positions = number(&path, field(&path, lines.next(), "positions")?, "position count")?;
    let sequences = number(&path, field(&path, lines.next(), "sequences")?, "sequence count")?;
    // The count is the file's word: room for the lines there are, no more.
    let mut units = Vec::with_capacity(count.min(lines.len()));
    for line in lines {
        let entry = line.strip_prefix("unit ").ok_or_else(|| invalid(&path, format!("unexpected line '{line}'")))?;
        let (name, checksum) =
            entry.split_once(' ').ok_or_else(|| invalid(&path, format!("bad unit line '{line}'")))?;
        units.push((name.to_owned(), checksum.to_owned()));
    }
    if units.len() != count {
        return Err(invalid(&path, format!("lists {} units, says {count}", units.len())));
    }
    Ok(Manifest { root, depth, split_depth, positions, sequences, units })
}

/// One unit: its positions, their multiplicities and the plies left to count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    /// The unit file.
    pub path: PathBuf,
    /// SHA-256 of the whole unit file, which its result names.
    pub checksum: String,
    /// The split's root, as its header gives it.
    pub root: String,
    /// The depth of the whole count.
    pub depth: u32,
    /// The ply the unit's positions sit at.
    pub split_depth: u32,
    /// This unit's place in the split: unit `index` of `units`.
    pub index: usize,
    /// Units in the split.
    pub units: usize,
    /// Plies to count below each position.
    pub remaining: u32,
    /// Each position and the move sequences that reach it.
    pub positions: Vec<(Position, u64)>,
}

/// Reads and checks a unit file.
pub fn read_unit(path: &Path) -> Result<Unit, UnitError> {
    let text = read_text(path, MAX_UNIT_BYTES).map_err(io_error(path))?;
    let lines = checked_lines(path, &text)?;
    if lines.first().map(String::as_str) != Some(UNIT_HEADER) {
        return Err(invalid(path, "not a gpu-movegen perft unit"));
    }
    let mut lines = lines.iter().skip(1);
    let root = field(path, lines.next(), "root")?.to_owned();
    let depth: u32 = number(path, field(path, lines.next(), "depth")?, "depth")?;
    let split_depth: u32 = number(path, field(path, lines.next(), "split-depth")?, "split depth")?;
    let place = field(path, lines.next(), "unit")?;
    let (index, units) =
        place.split_once(" of ").ok_or_else(|| invalid(path, format!("bad unit line 'unit {place}'")))?;
    let index: usize = number(path, index, "unit index")?;
    let units: usize = number(path, units, "unit count")?;
    if index >= units {
        return Err(invalid(path, format!("unit {index} of {units} is not a place in the split")));
    }
    let count: usize = number(path, field(path, lines.next(), "positions")?, "position count")?;
    let mut positions = Vec::with_capacity(count.min(lines.len()));
    for line in lines {
        let (fen, multiplicity) = line.rsplit_once(' ').ok_or_else(|| invalid(path, format!("bad line '{line}'")))?;
        let position = Position::from_fen(fen).map_err(|error| invalid(path, format!("bad FEN '{fen}': {error}")))?;
        positions.push((position, number(path, multiplicity, "multiplicity")?));
    }
    if positions.len() != count || split_depth > depth {
        return Err(invalid(path, "the header does not match the positions"));
    }
    if depth > crate::chess::perft::MAX_DEPTH {
        let deepest = crate::chess::perft::MAX_DEPTH;
        return Err(invalid(path, format!("depth {depth} is beyond the deepest perft counted ({deepest})")));
    }
    Ok(Unit {
        path: path.to_owned(),
        checksum: sha256_hex(text.as_bytes()),
        root,
        depth,
        split_depth,
        index,
        units,
        remaining: depth - split_depth,
        positions,
    })
}

/// Where a unit's result goes.
pub fn result_path(unit: &Path) -> PathBuf {
    let mut name = unit.file_name().unwrap_or_default().to_owned();
    name.push(".result");
    unit.with_file_name(name)
}

/// What a result file holds: the unit's nodes and, when it was counted with
/// statistics, the nine columns of [`PerftStats::NAMES`], nodes first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnitResult {
    /// The unit's nodes, multiplicities applied.
    pub nodes: u128,
    /// The statistics columns, when counted with them.
    pub statistics: Option<[u128; STATISTICS_COLUMNS]>,
}

const STATISTICS_COLUMNS: usize = PerftStats::NAMES.len();

/// The node count a result file holds, checked against the unit's checksum.
pub fn read_result(path: &Path, unit_checksum: &str) -> Result<u128, UnitError> {
    read_unit_result(path, unit_checksum).map(|result| result.nodes)
}

/// The whole result a result file holds, checked against the unit's checksum.
pub fn read_unit_result(path: &Path, unit_checksum: &str) -> Result<UnitResult, UnitError> {
    let text = read_text(path, 1 << 20).map_err(io_error(path))?;
    let lines = checked_lines(path, &text)?;
    if lines.first().map(String::as_str) != Some(RESULT_HEADER) {
        return Err(invalid(path, "not a gpu-movegen perft result"));
    }
    let unit = field(path, lines.get(1), "unit")?;
    let (_, checksum) = unit.split_once(' ').ok_or_else(|| invalid(path, "bad unit line"))?;
    if checksum != unit_checksum {
        return Err(invalid(path, "counts another unit file (a result from another split?)"));
    }
    let nodes = number(path, field(path, lines.get(2), "nodes")?, "node count")?;
    let statistics = match lines.get(3) {
        None => None,
        Some(_) => {
            let numbers = field(path, lines.get(3), "statistics")?
                .split(' ')
                .map(|text| number::<u128>(path, text, "statistics column"))
                .collect::<Result<Vec<u128>, UnitError>>()?;
            let columns: [u128; STATISTICS_COLUMNS] = numbers
                .try_into()
                .map_err(|_| invalid(path, format!("the statistics line needs {STATISTICS_COLUMNS} numbers")))?;
            if columns[0] != nodes {
                return Err(invalid(path, "the statistics' nodes are not the result's nodes"));
            }
            if let Some(problem) = impossible_statistics(&columns) {
                return Err(invalid(path, problem));
            }
            Some(columns)
        }
    };
    if lines.len() > 4 {
        return Err(invalid(path, "lines after the statistics"));
    }
    Ok(UnitResult { nodes, statistics })
}

/// Why a row of statistics could not come from any count, if it could not:
/// a column past the nodes, en passant past the captures, or discovered or
/// double checks or mates past the checks. The checksum shows a file is
/// whole, not that whoever wrote it counted.
fn impossible_statistics(columns: &[u128; STATISTICS_COLUMNS]) -> Option<String> {
    let names = crate::chess::stats::PerftStats::NAMES;
    let column = |name: &str| names.iter().position(|known| *known == name).expect("a statistics column");
    if let Some(index) = (1..STATISTICS_COLUMNS).find(|&index| columns[index] > columns[0]) {
        return Some(format!("the statistics count more {} than nodes", names[index]));
    }
    let bounded_by = [
        ("en_passant", "captures"),
        ("discovered_checks", "checks"),
        ("double_checks", "checks"),
        ("checkmates", "checks"),
    ];
    bounded_by
        .iter()
        .find(|(part, whole)| columns[column(part)] > columns[column(whole)])
        .map(|(part, whole)| format!("the statistics count more {part} than {whole}"))
}

/// What `run_unit` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunOutcome {
    /// Counted now, with this many nodes.
    Counted(u128),
    /// A valid result was there already, with this many nodes; nothing was counted.
    AlreadyCounted(u128),
}

/// Counts the unit at `path` with `count` (perft of each position to the
/// remaining depth, in the unit's order) unless it has a valid result, and
/// writes the result atomically.
pub fn run_unit<E: std::fmt::Display>(
    path: &Path,
    count: impl FnOnce(&Unit) -> Result<Vec<u64>, E>,
) -> Result<RunOutcome, UnitError> {
    let count_nodes = |unit: &Unit| -> Result<Vec<[u64; STATISTICS_COLUMNS]>, E> {
        Ok(count(unit)?
            .into_iter()
            .map(|nodes| std::array::from_fn(|column| if column == 0 { nodes } else { 0 }))
            .collect())
    };
    run_counted(path, false, count_nodes).map(|(outcome, _)| outcome)
}

/// [`run_unit`] with statistics: `count` gives the statistics of each
/// position's leaves, and the result holds their weighted sums. A valid
/// result without statistics is counted again. The split must leave at
/// least one ply below it: a leaf's statistics are those of the move that
/// reached it, which a unit's positions do not record.
pub fn run_unit_stats<E: std::fmt::Display>(
    path: &Path,
    count: impl FnOnce(&Unit) -> Result<Vec<PerftStats>, E>,
) -> Result<(RunOutcome, [u128; STATISTICS_COLUMNS]), UnitError> {
    let count_columns = |unit: &Unit| -> Result<Vec<[u64; STATISTICS_COLUMNS]>, E> {
        Ok(count(unit)?.iter().map(PerftStats::columns).collect())
    };
    let (outcome, result) = run_counted(path, true, count_columns)?;
    Ok((outcome, result.statistics.expect("a result counted with statistics has them")))
}

fn run_counted<E: std::fmt::Display>(
    path: &Path,
    statistics: bool,
    count: impl FnOnce(&Unit) -> Result<Vec<[u64; STATISTICS_COLUMNS]>, E>,
) -> Result<(RunOutcome, UnitResult), UnitError> {
    let unit = read_unit(path)?;
    if statistics && unit.remaining == 0 {
        return Err(UnitError::Plan(format!(
            "{}: statistics need at least one ply below the split (this split is at the full depth {})",
            path.display(),
            unit.depth
        )));
    }
    let result = result_path(path);
    if result.exists()
        && let Ok(found) = read_unit_result(&result, &unit.checksum)
        && (found.statistics.is_some() || !statistics)
    {
        return Ok((RunOutcome::AlreadyCounted(found.nodes), found));
    }
    let counts = count(&unit).map_err(|error| UnitError::Plan(format!("counting {}: {error}", path.display())))?;
    if counts.len() != unit.positions.len() {
        return Err(UnitError::Plan(format!("counting {}: a count is missing", path.display())));
    }
    let mut columns = [0u128; STATISTICS_COLUMNS];
    for ((_, multiplicity), row) in unit.positions.iter().zip(&counts) {
        for (total, value) in columns.iter_mut().zip(row) {
            *total = total
                .checked_add(u128::from(*multiplicity) * u128::from(*value))
                .ok_or_else(|| invalid(path, "the unit's total passes 2^128"))?;
        }
    }
    let nodes = columns[0];
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let mut body = format!("{RESULT_HEADER}\nunit {name} {}\nnodes {nodes}\n", unit.checksum);
    if statistics {
        let numbers: Vec<String> = columns.iter().map(u128::to_string).collect();
        body.push_str(&format!("statistics {}\n", numbers.join(" ")));
    }
    write_atomically(&result, with_checksum(body).as_bytes())?;
    Ok((RunOutcome::Counted(nodes), UnitResult { nodes, statistics: statistics.then_some(columns) }))
}

/// A merged split: what it counted and the total.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    /// The split's manifest.
    pub manifest: Manifest,
    /// perft(`manifest.depth`) of `manifest.root`.
    pub nodes: u128,
    /// The statistics of those leaves, when every result has them.
    pub statistics: Option<[u128; STATISTICS_COLUMNS]>,
}

/// Sums the results of a split: the total, or every problem found.
///
/// Checksums only show that a file is whole, not that it belongs: anyone can
/// recompute them. So every unit is read and held against the manifest
/// (root, depth, split depth, its place in the split and its file's
/// SHA-256), and the split's ply is generated again from the root: each
/// unit must hold exactly the positions and multiplicities that `split`
/// deals it. A result must name its unit's SHA-256. Merging costs what the
/// split did, once.
pub fn merge(folder: &Path) -> Result<Merged, Vec<String>> {
    let manifest = read_manifest(folder).map_err(|error| vec![error.to_string()])?;
    let manifest_path = folder.join(MANIFEST);
    let mut problems = check_manifest(&manifest)
        .into_iter()
        .map(|problem| format!("{}: {problem}", manifest_path.display()))
        .collect::<Vec<_>>();
    if !problems.is_empty() {
        return Err(problems);
    }
    let count = manifest.units.len();
    // The split's ply again, from the root: the only account of which
    // positions the units must hold that no edit of the files can change.
    let root = match Position::from_fen(&manifest.root) {
        Ok(root) => root,
        Err(error) => return Err(vec![format!("{}: root: {error}", manifest_path.display())]),
    };
    let level = match Level::at_ply(&root, manifest.split_depth, crate::chess::unique::default_memory_bytes()) {
        Ok(level) => level,
        Err(error) => {
            return Err(vec![format!("{}: split depth {}: {error}", manifest_path.display(), manifest.split_depth)]);
        }
    };
    if (level.len() as u64, level.sequences()) != (manifest.positions, manifest.sequences) {
        problems.push(format!(
            "{}: says ply {} has {} positions and {} move sequences, but it has {} and {}",
            manifest_path.display(),
            manifest.split_depth,
            manifest.positions,
            manifest.sequences,
            level.len(),
            level.sequences()
        ));
    }
    if level.len() < count {
        return Err(problems);
    }
    let mut total = 0u128;
    let mut statistics = Some([0u128; STATISTICS_COLUMNS]);
    for (index, (name, checksum)) in manifest.units.iter().enumerate() {
        let unit_path = folder.join(name);
        let unit = match read_unit(&unit_path) {
            Ok(unit) => unit,
            Err(error) => {
                problems.push(error.to_string());
                continue;
            }
        };
        let disagreements = [
            (
                unit.checksum != *checksum,
                "its SHA-256 is not the one the manifest lists (edited after the split?)".to_owned(),
            ),
            (unit.root != manifest.root, format!("root '{}', but the manifest's is '{}'", unit.root, manifest.root)),
            (unit.depth != manifest.depth, format!("depth {}, but the manifest's is {}", unit.depth, manifest.depth)),
            (
                unit.split_depth != manifest.split_depth,
                format!("split depth {}, but the manifest's is {}", unit.split_depth, manifest.split_depth),
            ),
            (
                (unit.index, unit.units) != (index, count),
                format!(
                    "says unit {} of {}, but the manifest lists it as unit {index} of {count}",
                    unit.index, unit.units
                ),
            ),
        ];
        let before = problems.len();
        problems.extend(
            disagreements.into_iter().filter(|(differs, _)| *differs).map(|(_, what)| format!("{name}: {what}")),
        );
        if problems.len() > before {
            continue;
        }
        let dealt: Vec<&(crate::chess::position::PositionIdentity, u64)> =
            level.positions.iter().skip(index).step_by(count).collect();
        if unit.positions.len() != dealt.len() {
            problems.push(format!(
                "{name}: holds {} positions, but split dealt it {}",
                unit.positions.len(),
                dealt.len()
            ));
            continue;
        }
        if let Some(place) =
            unit.positions.iter().zip(&dealt).position(|((position, multiplicity), (identity, dealt_multiplicity))| {
                position.identity() != *identity || multiplicity != dealt_multiplicity
            })
        {
            problems
                .push(format!("{name}: position {} or its multiplicity is not the one split dealt there", place + 1));
            continue;
        }
        let result = result_path(&unit_path);
        if !result.exists() {
            problems.push(format!("{name}: no result ({} is missing)", result.display()));
            continue;
        }
        match read_unit_result(&result, checksum) {
            Ok(found) => {
                statistics = match (statistics, found.statistics) {
                    (Some(sums), Some(columns)) => {
                        let added: Option<Vec<u128>> =
                            sums.iter().zip(columns).map(|(sum, value)| sum.checked_add(value)).collect();
                        added.and_then(|added| added.try_into().ok())
                    }
                    _ => None,
                };
                match total.checked_add(found.nodes) {
                    Some(sum) => total = sum,
                    None => problems.push(format!("{name}: the total passes 2^128 with this result")),
                }
            }
            Err(error) => problems.push(format!("{name}: invalid result: {error}")),
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    if problems.is_empty() { Ok(Merged { manifest, nodes: total, statistics }) } else { Err(problems) }
}

/// What is wrong with a manifest's own fields.
fn check_manifest(manifest: &Manifest) -> Vec<String> {
    let mut problems = Vec::new();
    if let Err(error) = Position::from_fen(&manifest.root) {
        problems.push(format!("root '{}' is not a valid FEN: {error}", manifest.root));
    }
    let deepest = crate::chess::perft::MAX_DEPTH;
    if manifest.split_depth > manifest.depth || manifest.depth > deepest {
        problems.push(format!(
            "depth {} split at {} is not a split (split depth at most the depth, depth at most {deepest})",
            manifest.depth, manifest.split_depth
        ));
    }
    if manifest.units.is_empty() {
        problems.push("lists no units".to_owned());
    }
    // Names are joined to the folder: only the names `split` writes, so a
    // manifest cannot point outside it.
    if let Some((index, (name, _))) =
        manifest.units.iter().enumerate().find(|(index, (name, _))| *name != unit_name(*index))
    {
        problems.push(format!("unit {index} is named '{name}', not '{}'", unit_name(index)));
    }
    problems
}

/// Writes `bytes` to `path` through a temporary file in the same folder,
/// flushed to disk and renamed into place.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), UnitError> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let temporary = path.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
    let mut file = std::fs::File::create(&temporary).map_err(io_error(&temporary))?;
    file.write_all(bytes).map_err(io_error(&temporary))?;
    file.sync_all().map_err(io_error(&temporary))?;
    drop(file);
    std::fs::rename(&temporary, path).map_err(io_error(path))?;
    if let Some(folder) = path.parent().filter(|folder| !folder.as_os_str().is_empty()) {
        // The rename itself reaches the disk with the folder.
        if let Ok(handle) = std::fs::File::open(folder) {
            let _ = handle.sync_all();
        }
    }
    Ok(())
}
