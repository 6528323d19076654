//! What the machine has, for sizing tables on either backend.

/// The machine's physical memory in MiB, where it can be read (Linux).
pub fn physical_mebibytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|line| line.starts_with("MemTotal:"))?;
    Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? / 1024)
}

/// Bytes this process may still take before a memory limit stops it, where
/// one applies (Linux): the address-space limit (`ulimit -v`) less what the
/// process maps now, the data limit (`ulimit -d`) less its data, and its
/// cgroup's limit (`memory.max`, or v1's `memory.limit_in_bytes`: Slurm's
/// and containers') less what the cgroup uses; the least of these. `None`
/// when none applies. A device whose memory is the machine's (a software
/// adapter, an integrated GPU) has no more than this.
pub fn memory_headroom() -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        let mut headroom: Option<u64> = None;
        let mut keep = |bytes: u64| headroom = Some(headroom.map_or(bytes, |least| least.min(bytes)));
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let field = |name: &str| -> Option<u64> {
            let line = status.lines().find(|line| line.starts_with(name))?;
            Some(line[name.len()..].split_whitespace().next()?.parse::<u64>().ok()? * 1024)
        };
        for (data, used) in [(false, field("VmSize:")), (true, field("VmData:"))] {
            if let Some(limit) = soft_limit(data) {
                keep(limit.saturating_sub(used.unwrap_or(0)));
            }
        }
        if let Some(bytes) = cgroup_headroom() {
            keep(bytes);
        }
        headroom
    }
    #[cfg(not(target_os = "linux"))]
    None
}

/// The soft limit on the data segment (`data`) or the address space,
/// unless it is unlimited.
#[cfg(target_os = "linux")]
fn soft_limit(data: bool) -> Option<u64> {
    let resource = if data { libc::RLIMIT_DATA } else { libc::RLIMIT_AS };
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes one rlimit through the pointer it is given.
    let read = unsafe { libc::getrlimit(resource, &mut limit) } == 0;
    (read && limit.rlim_cur != libc::RLIM_INFINITY).then_some(limit.rlim_cur)
}

/// The memory this process's cgroup may still take: v2's `memory.max` less
/// `memory.current`, or v1's `memory.limit_in_bytes` less
/// `memory.usage_in_bytes`; `None` without a limit (v1 writes "no limit" as
/// a number near 2^63).
#[cfg(target_os = "linux")]
fn cgroup_headroom() -> Option<u64> {
    let groups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let number = |path: std::path::PathBuf| std::fs::read_to_string(path).ok()?.trim().parse::<u64>().ok();
    for line in groups.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let path = path.trim_start_matches('/');
        let (mount, limit, usage) = if controllers.is_empty() {
            ("/sys/fs/cgroup", "memory.max", "memory.current")
        } else if controllers.split(',').any(|controller| controller == "memory") {
            ("/sys/fs/cgroup/memory", "memory.limit_in_bytes", "memory.usage_in_bytes")
        } else {
            continue;
        };
        // Inside a container the mount is the group itself, and the path names a host's folder.
        let mount = std::path::Path::new(mount);
        for folder in [mount.join(path), mount.to_owned()] {
            if let Some(limit) = number(folder.join(limit)).filter(|limit| *limit < 1 << 60) {
                return Some(limit.saturating_sub(number(folder.join(usage)).unwrap_or(0)));
            }
        }
    }
    None
}
