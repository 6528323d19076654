//! What the crate keeps between processes about a device, and where: the
//! self-test's verdicts (`super::self_test`) and the driver's compiled
//! pipelines (`super::pipeline_cache`), each in a folder of the cache
//! directory, each keyed by the build that found it.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Changes with every change to the crate's sources or shaders (build.rs):
/// what a build found about a device is not trusted by another build.
pub(crate) const BUILD_ID: &str = env!("GPU_MOVEGEN_BUILD_ID");

/// Where verdicts and pipelines are kept: `GPU_MOVEGEN_CACHE_DIR`, else the
/// user's cache directory. `None` when neither exists (they then last the process).
pub fn cache_directory() -> Option<PathBuf> {
    match std::env::var_os("GPU_MOVEGEN_CACHE_DIR") {
        Some(directory) if !directory.is_empty() => Some(PathBuf::from(directory)),
        _ => dirs::cache_dir().map(|directory| directory.join("gpu-movegen")),
    }
}

/// A file name for `key`: 128 bits of its SHA-256 in hex, then `extension`.
/// Files also store their whole key, so a collision is a miss, never a wrong hit.
pub(crate) fn file_name(key: &str, extension: &str) -> String {
    use sha2::Digest as _;
    let digest = sha2::Sha256::digest(key.as_bytes());
    let hex: String = digest.iter().take(16).map(|byte| format!("{byte:02x}")).collect();
    format!("{hex}.{extension}")
}

/// Writes `contents` to `file` whole: under a temporary name beside it, then
/// renamed over it, so that a reader (another process of a GNU parallel run,
/// say) never sees half a file. Makes the folder if needed.
pub(crate) fn write_whole(file: &Path, contents: &[u8]) -> std::io::Result<()> {
    let directory = file.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(directory)?;
    let name = file.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
    let temporary = directory.join(format!(".{}.{name}", std::process::id()));
    std::fs::write(&temporary, contents)?;
    std::fs::rename(&temporary, file).inspect_err(|_| {
        let _ = std::fs::remove_file(&temporary);
    })
}

/// Who hears of a cache file ignored because it was hostile or damaged.
static IGNORED_FILE_HANDLER: OnceLock<fn(&str)> = OnceLock::new();

/// Sets what is told, in one line, of each cache file the crate ignores
/// because it is not a regular file (a FIFO, a device), is larger than any
/// file the crate writes, or is damaged: the command line prints a warning.
/// Files of another build or driver are ignored without a word, as are
/// missing ones. The first handler set stays.
pub fn set_ignored_file_handler(handler: fn(&str)) {
    let _ = IGNORED_FILE_HANDLER.set(handler);
}

/// Reads the cache file `file` of at most `limit` bytes: `None`, and nothing
/// said, when it is missing; `None`, and the handler told why, when it cannot
/// be read as a regular file within the limit. Never waits on a FIFO, never
/// reads past the limit.
pub(crate) fn read_bounded(file: &Path, limit: u64) -> Option<Vec<u8>> {
    match crate::files::read_bytes(file, limit) {
        Ok(bytes) => Some(bytes),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
        Err(error) => {
            ignored(file, &error.to_string());
            None
        }
    }
}

/// Tells the handler that `file` was ignored, and why.
pub(crate) fn ignored(file: &Path, why: &str) {
    if let Some(handler) = IGNORED_FILE_HANDLER.get() {
        handler(&format!("ignored the cache file {} ({why}); it will be replaced", file.display()));
    }
}
