//! Reading the files users hand the crate (suites, SGF, work units) with a
//! size limit, so that `/dev/zero` or a runaway file is refused instead of
//! read until memory runs out.

use std::io::Read as _;
use std::path::Path;

/// The largest suite or SGF file read: far above any published suite.
pub const MAX_INPUT_BYTES: u64 = 64 << 20;

/// The longest line of a suite read: a FEN or SFEN with its counts is a
/// few hundred bytes.
pub const MAX_LINE_BYTES: usize = 64 << 10;

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
    String::from_utf8(bytes).map_err(|error| {
        let at = error.utf8_error().valid_up_to();
        let line = error.as_bytes()[..at].iter().filter(|byte| **byte == b'\n').count() + 1;
        std::io::Error::new(std::io::ErrorKind::InvalidData, format!("line {line}: not UTF-8 text (byte {at})"))
    })
}

/// Whether a suite line is too long to be one, with the problem to report.
pub fn overlong(line: &str) -> Option<String> {
    (line.len() > MAX_LINE_BYTES)
        .then(|| format!("longer than {} KiB, the most a suite line may be", MAX_LINE_BYTES >> 10))
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_endless_file_is_refused_at_the_limit() {
        let error = super::read_text(std::path::Path::new("/dev/zero"), 1 << 20).unwrap_err();
        assert!(error.to_string().contains("larger than 1 MiB"), "{error}");
    }

    #[test]
    fn text_that_is_not_utf8_is_refused_with_its_line() {
        let path = std::env::temp_dir().join(format!("gpu-movegen-files-{}", std::process::id()));
        std::fs::write(&path, b"one\ntwo \xe9\n").unwrap();
        let error = super::read_text(&path, 1 << 20).unwrap_err();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(error.to_string(), "line 2: not UTF-8 text (byte 8)");
    }
}
