//! What the machine has, for sizing tables on either backend.

/// The machine's physical memory in MiB, where it can be read (Linux).
pub fn physical_mebibytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|line| line.starts_with("MemTotal:"))?;
    Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? / 1024)
}
