//! The register budgets: a checked-in TOML file with a table per chip and a
//! VGPR budget per kernel, every configuration of the kernel held to it. A
//! key may add the start of a configuration after a space; for the
//! configurations it names, the longest such key wins over the kernel's own.
//!
//! ```toml
//! [navi31]
//! "chess/perft/count_leaves_fused" = 64
//! "chess/perft/count_leaves_fused kogge-stone/u64" = 84
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::report::ChipReport;

/// The budgets file, read.
pub struct Budgets {
    /// Where it was read from.
    pub path: PathBuf,
    /// Chip, then `game/module/entry_point`, then the most VGPRs allowed.
    chips: BTreeMap<String, BTreeMap<String, u64>>,
}

impl Budgets {
    /// Reads and checks the shape of a budgets file.
    pub fn read(path: &Path) -> Result<Budgets, String> {
        let text = std::fs::read_to_string(path).map_err(|error| format!("{}: {error}", path.display()))?;
        let chips: BTreeMap<String, BTreeMap<String, u64>> = toml::from_str(&text).map_err(|error| {
            format!(
                "{}: not a budgets file (a table per chip of \"game/module/entry\" = VGPRs): {error}",
                path.display()
            )
        })?;
        for (chip, kernels) in &chips {
            for (key, budget) in kernels {
                let kernel = key.split(' ').next().unwrap_or_default();
                if kernel.split('/').count() != 3 || kernel.split('/').any(str::is_empty) {
                    return Err(format!(
                        "{}: [{chip}] '{key}' is not game/module/entry, with a configuration after a space or none",
                        path.display()
                    ));
                }
                if *budget == 0 {
                    return Err(format!("{}: [{chip}] '{key}' has a budget of 0 VGPRs", path.display()));
                }
            }
        }
        Ok(Budgets { path: path.to_owned(), chips })
    }

    /// The breaches of the budgets in `reports`, one line each. With
    /// `complete` (every kernel compiled, no filter), a budget naming a
    /// kernel no module holds is an error, since a misspelt name would
    /// otherwise hold nothing to account; budgets of chips not compiled are
    /// not checked.
    pub fn check(&self, reports: &[ChipReport], complete: bool) -> Result<Vec<String>, String> {
        let mut breaches = Vec::new();
        for (chip, kernels) in &self.chips {
            let Some(report) = reports.iter().find(|report| &report.chip == chip) else {
                // A chip not asked for this run is not checked; a run that
                // asked for none of the file's chips checked nothing.
                continue;
            };
            let split = |key: &str| {
                let (kernel, configuration) = key.split_once(' ').unwrap_or((key, ""));
                (kernel.to_owned(), configuration.to_owned())
            };
            for key in kernels.keys().filter(|_| complete) {
                let (kernel, configuration) = split(key);
                if !report
                    .kernels
                    .iter()
                    .any(|row| row.kernel() == kernel && row.configuration.starts_with(&configuration))
                {
                    return Err(format!("{}: [{chip}] names '{key}', which no module holds", self.path.display()));
                }
            }
            for row in &report.kernels {
                // The most specific key for this row: its kernel, the longest configuration start.
                let budget = kernels
                    .iter()
                    .map(|(key, budget)| (split(key), budget))
                    .filter(|((kernel, configuration), _)| {
                        *kernel == row.kernel() && row.configuration.starts_with(configuration.as_str())
                    })
                    .max_by_key(|((_, configuration), _)| configuration.len());
                if let Some(((_, configuration), &budget)) = budget
                    && row.vgprs() > budget
                {
                    let rule = if configuration.is_empty() { String::new() } else { format!(" for {configuration}") };
                    breaches.push(format!(
                        "{chip} {} ({}) holds {} VGPRs, over its budget{rule} of {budget}",
                        row.kernel(),
                        row.configuration,
                        row.vgprs()
                    ));
                }
            }
        }
        if !reports.iter().any(|report| self.chips.contains_key(&report.chip)) {
            return Err(format!("{}: budgets no chip of this run", self.path.display()));
        }
        Ok(breaches)
    }
}
