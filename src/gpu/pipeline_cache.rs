//! Compiled pipelines kept between processes. On a software driver, building
//! the kernels is most of a short run's start-up (Go 19×19 playouts spend
//! seconds there and milliseconds playing), and each process used to build
//! them again. On adapters that offer wgpu's `PIPELINE_CACHE` (Vulkan), a
//! context loads the driver's cache data from the cache directory, next to
//! the self-test's verdicts, builds every pipeline through it, and writes it
//! back whenever building added to it.
//!
//! The file holds a key (adapter, driver, crate version and build, as a
//! verdict's key does, so a new build or driver starts afresh and the file
//! never grows past one build's pipelines), a SHA-256 of the data, and the
//! data. A file from another key, or a truncated or altered one, is ignored
//! and later replaced: only bytes this crate got from the driver are ever
//! handed back to it. `GPU_MOVEGEN_PIPELINE_CACHE=off` turns the cache off.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use sha2::Digest as _;

/// What a context's pipeline cache is: where it lives and what it started with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PipelineCacheInfo {
    /// The file the cache is loaded from and saved to.
    pub file: PathBuf,
    /// How many bytes of driver data the context started with (0: the file
    /// was missing, or from another build or driver, or damaged).
    pub loaded_bytes: usize,
}

/// A context's pipeline cache and the file behind it.
pub(crate) struct PipelineCacheFile {
    pub(crate) cache: wgpu::PipelineCache,
    info: PipelineCacheInfo,
    key: String,
    /// The size of the data last loaded or written: building that added
    /// nothing leaves the file alone.
    saved_bytes: Mutex<usize>,
}

const MAGIC: &str = "gpu-movegen pipeline cache 1";

/// The most driver data kept: far above what any driver returns for this
/// crate's kernels (lavapipe's is under a KiB, a discrete GPU's a few MiB).
/// Larger data is not written, so a larger file is never this crate's.
const MAX_DATA_BYTES: u64 = 256 << 20;

/// The most a cache file may hold: the data and its three header lines.
const MAX_FILE_BYTES: u64 = MAX_DATA_BYTES + (64 << 10);

/// Whether the user turned the cache off (`GPU_MOVEGEN_PIPELINE_CACHE` set
/// to `off`, `0`, `false` or `no`).
pub fn disabled() -> bool {
    std::env::var("GPU_MOVEGEN_PIPELINE_CACHE")
        .is_ok_and(|value| matches!(value.to_ascii_lowercase().as_str(), "off" | "0" | "false" | "no"))
}

impl PipelineCacheFile {
    /// The cache of a device made from `info`'s adapter with the
    /// `PIPELINE_CACHE` feature, loaded from the cache directory; `None`
    /// where there is no cache directory, or the backend keeps no cache.
    pub(crate) fn open(device: &wgpu::Device, info: &wgpu::AdapterInfo) -> Option<PipelineCacheFile> {
        if disabled() || !device.features().contains(wgpu::Features::PIPELINE_CACHE) {
            return None;
        }
        let adapter_key = wgpu::util::pipeline_cache_key(info)?;
        let key = format!(
            "{adapter_key} | {} | {} | {} | gpu-movegen {} build {}",
            info.name,
            info.driver,
            info.driver_info,
            env!("CARGO_PKG_VERSION"),
            super::cache::BUILD_ID
        );
        // One file per adapter and driver, whatever the build: a new build replaces it.
        let file_key = format!("{adapter_key} | {} | {}", info.driver, info.driver_info);
        let file =
            super::cache::cache_directory()?.join("pipelines").join(super::cache::file_name(&file_key, "pipelines"));
        let data = read(&file, &key);
        // SAFETY: `read` returns only bytes whose digest matches the one
        // written beside them under this key, that is, bytes `save` got from
        // `PipelineCache::get_data` of this adapter, driver and build.
        let cache = unsafe {
            device.create_pipeline_cache(&wgpu::PipelineCacheDescriptor {
                label: Some("gpu-movegen pipelines"),
                data: data.as_deref(),
                fallback: true,
            })
        };
        let loaded_bytes = data.as_ref().map_or(0, Vec::len);
        Some(PipelineCacheFile {
            cache,
            info: PipelineCacheInfo { file, loaded_bytes },
            key,
            saved_bytes: Mutex::new(loaded_bytes),
        })
    }

    pub(crate) fn info(&self) -> &PipelineCacheInfo {
        &self.info
    }

    /// Writes the cache's data to its file if it changed since it was last
    /// loaded or written. A cache that cannot be written costs a rebuild in
    /// the next process, nothing more, so failures are dropped.
    pub(crate) fn save(&self) {
        let Some(data) = self.cache.get_data() else { return };
        let mut saved = self.saved_bytes.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if data.is_empty() || data.len() == *saved || data.len() as u64 > MAX_DATA_BYTES {
            return;
        }
        if write(&self.info.file, &self.key, &data).is_ok() {
            *saved = data.len();
        }
    }
}

fn hex_digest(data: &[u8]) -> String {
    sha2::Sha256::digest(data).iter().map(|byte| format!("{byte:02x}")).collect()
}

/// The file's data, if it was written under `key` and is whole. A file of
/// another build or driver is a quiet miss; one that is not a regular file,
/// too large, or damaged is reported ([`super::cache::ignored`]).
fn read(file: &Path, key: &str) -> Option<Vec<u8>> {
    let bytes = super::cache::read_bounded(file, MAX_FILE_BYTES)?;
    let mut lines = bytes.splitn(4, |&byte| byte == b'\n');
    let (magic, stored_key, digest, data) = (lines.next(), lines.next(), lines.next(), lines.next());
    let (Some(magic), Some(stored_key), Some(digest), Some(data)) = (magic, stored_key, digest, data) else {
        super::cache::ignored(file, "not a pipeline cache: its header is cut short");
        return None;
    };
    if magic != MAGIC.as_bytes() {
        super::cache::ignored(file, "not a pipeline cache of this format");
        return None;
    }
    if stored_key != key.as_bytes() {
        return None;
    }
    if digest != hex_digest(data).as_bytes() {
        super::cache::ignored(file, "damaged: its data does not match the digest beside it");
        return None;
    }
    Some(data.to_vec())
}

/// The file: the format line, the key, the data's digest, the data.
fn write(file: &Path, key: &str, data: &[u8]) -> std::io::Result<()> {
    let mut contents = format!("{MAGIC}\n{}\n{}\n", key.replace('\n', " "), hex_digest(data)).into_bytes();
    contents.extend_from_slice(data);
    super::cache::write_whole(file, &contents)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_read_back_only_whole_and_under_its_own_key() {
        let directory = std::env::temp_dir().join(format!("gpu-movegen-pipeline-cache-{}", std::process::id()));
        let file = directory.join("cache.pipelines");
        let data: Vec<u8> = (0..=255u8).chain(b"\n\n\n".iter().copied()).collect();
        write(&file, "the key", &data).expect("the temporary directory is writable");
        assert_eq!(read(&file, "the key"), Some(data.clone()));
        assert_eq!(read(&file, "another key"), None, "another build's or driver's data");

        let whole = std::fs::read(&file).unwrap();
        std::fs::write(&file, &whole[..whole.len() - 1]).unwrap();
        assert_eq!(read(&file, "the key"), None, "a truncated file");
        let mut altered = whole.clone();
        *altered.last_mut().unwrap() ^= 1;
        std::fs::write(&file, &altered).unwrap();
        assert_eq!(read(&file, "the key"), None, "one bit flipped in the data");
        std::fs::write(&file, b"").unwrap();
        assert_eq!(read(&file, "the key"), None, "an empty file");
        std::fs::remove_dir_all(&directory).unwrap();
    }
}
