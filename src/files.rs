//! Reading the files users hand the crate (suites, SGF, work units) with a
//! size limit, so that `/dev/zero` or a runaway file is refused instead of
//! read until memory runs out.

use std::io::Read as _;
use std::path::Path;

/// The largest suite or SGF file read: far above any published suite.
pub const MAX_INPUT_BYTES: u64 = 64 << 20;

/// The text of `path`, refused with an `InvalidData` error naming the limit
/// when it holds more than `limit` bytes (read no further than that).
pub fn read_text(path: &Path, limit: u64) -> std::io::Result<String> {
    let file = std::fs::File::open(path)?;
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("larger than {} MiB, the most read from such a file", limit >> 20),
        ));
    }
    String::from_utf8(bytes)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "stream did not contain valid UTF-8"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_endless_file_is_refused_at_the_limit() {
        let error = super::read_text(std::path::Path::new("/dev/zero"), 1 << 20).unwrap_err();
        assert!(error.to_string().contains("larger than 1 MiB"), "{error}");
    }
}
