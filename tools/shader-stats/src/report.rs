//! What one chip's compiler said of each kernel, and the table it prints as.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use gpu_movegen::catalog::KernelModule;
use serde::{Deserialize, Serialize};

use crate::vulkan::Value;

/// The statistics of every kernel on one chip.
#[derive(Debug, Serialize, Deserialize)]
pub struct ChipReport {
    /// The chip as Mesa names it (`navi31`).
    pub chip: String,
    /// The device RADV made for it.
    pub device: String,
    /// The driver and its version.
    pub driver: String,
    /// One row per entry point of every module compiled.
    pub kernels: Vec<KernelRow>,
}

/// One entry point of one module in one configuration, with the driver's statistics.
#[derive(Debug, Serialize, Deserialize)]
pub struct KernelRow {
    /// The game (`chess`, `variants`, `shogi`, `go`).
    pub game: String,
    /// The kernel file (`perft`, `go_playouts`, ...).
    pub module: String,
    /// The entry point.
    pub entry_point: String,
    /// What the module was composed for.
    pub configuration: String,
    /// Every statistic the driver reported, by its name (`VGPRs`, `Spilled SGPRs`, ...).
    pub statistics: BTreeMap<String, serde_json::Value>,
}

impl KernelRow {
    /// A row for `entry_point` of `module`, its statistics still to come.
    pub fn new(module: &KernelModule, entry_point: &str) -> KernelRow {
        KernelRow {
            game: module.game.to_owned(),
            module: module.module.clone(),
            entry_point: entry_point.to_owned(),
            configuration: module.configuration.clone(),
            statistics: BTreeMap::new(),
        }
    }

    /// `game/module/entry_point`: the name budgets use.
    pub fn kernel(&self) -> String {
        format!("{}/{}/{}", self.game, self.module, self.entry_point)
    }

    /// The kernel and its configuration, what `--filter` matches.
    pub fn label(&self) -> String {
        format!("{} {}", self.kernel(), self.configuration)
    }

    /// Sets the statistics from the driver's list.
    pub fn set_statistics(&mut self, statistics: &[(String, Value)]) {
        self.statistics = statistics
            .iter()
            .map(|(name, value)| (name.clone(), serde_json::to_value(value).expect("a statistic serializes")))
            .collect();
    }

    /// A statistic as a whole number, where the driver reported it.
    pub fn count(&self, name: &str) -> Option<u64> {
        self.statistics.get(name).and_then(serde_json::Value::as_u64)
    }

    /// VGPRs a thread holds.
    pub fn vgprs(&self) -> u64 {
        self.count("VGPRs").unwrap_or(0)
    }

    /// Registers spilled to memory, vector and scalar together.
    pub fn spilled(&self) -> u64 {
        self.count("Spilled VGPRs").unwrap_or(0) + self.count("Spilled SGPRs").unwrap_or(0)
    }
}

/// The columns of the table: heading and statistic name.
const COLUMNS: [(&str, &str); 7] = [
    ("VGPRs", "VGPRs"),
    ("SGPRs", "SGPRs"),
    ("subgroups/SIMD", "Subgroups per SIMD"),
    ("instructions", "Instructions"),
    ("branches", "Branches"),
    ("latency", "Latency"),
    ("inv. throughput", "Inverse Throughput"),
];

/// The table: one row per chip, kernel and configuration (`worst`: per chip
/// and kernel, the configuration with the most VGPRs), sorted by chip and kernel.
pub fn table(reports: &[ChipReport], worst: bool) -> String {
    let mut rows: Vec<(&ChipReport, &KernelRow)> = Vec::new();
    for report in reports {
        let mut kernels: Vec<&KernelRow> = report.kernels.iter().collect();
        kernels.sort_by(|a, b| (a.kernel(), &a.configuration).cmp(&(b.kernel(), &b.configuration)));
        if worst {
            let mut by_kernel: BTreeMap<String, &KernelRow> = BTreeMap::new();
            for row in kernels {
                let entry = by_kernel.entry(row.kernel()).or_insert(row);
                if row.vgprs() > entry.vgprs() {
                    *entry = row;
                }
            }
            rows.extend(by_kernel.into_values().map(|row| (report, row)));
        } else {
            rows.extend(kernels.into_iter().map(|row| (report, row)));
        }
    }
    let mut cells: Vec<Vec<String>> = vec![
        ["chip", "kernel", "configuration"]
            .into_iter()
            .map(str::to_owned)
            .chain(COLUMNS.iter().map(|(heading, _)| (*heading).to_owned()))
            .chain(std::iter::once("spills".to_owned()))
            .collect(),
    ];
    for (report, row) in rows {
        let mut line = vec![report.chip.clone(), row.kernel(), row.configuration.clone()];
        for (_, name) in COLUMNS {
            line.push(row.count(name).map_or_else(|| "-".to_owned(), |value| value.to_string()));
        }
        line.push(row.spilled().to_string());
        cells.push(line);
    }
    let widths: Vec<usize> =
        (0..cells[0].len()).map(|column| cells.iter().map(|line| line[column].len()).max().unwrap_or(0)).collect();
    let mut text = String::new();
    for reports in reports {
        let _ = writeln!(text, "# {}: {} ({})", reports.chip, reports.device, reports.driver);
    }
    for line in &cells {
        let mut out = String::new();
        for (column, cell) in line.iter().enumerate() {
            if column < 3 {
                let _ = write!(out, "{cell:<width$}  ", width = widths[column]);
            } else {
                let _ = write!(out, "{cell:>width$}  ", width = widths[column]);
            }
        }
        let _ = writeln!(text, "{}", out.trim_end());
    }
    text
}
