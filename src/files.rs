//! Reading the files users hand the crate (suites, SGF, work units) with a
//! size limit, so that `/dev/zero` or a runaway file is refused instead of
//! read until memory runs out.

use std::io::Read as _;
use std::path::Path;

/// The largest suite or SGF file read: far above any published suite.
pub const MAX_INPUT_BYTES: u64 = 64 << 20;

/// UTF-8's byte-order mark, which some editors put at the start of a file.
const BYTE_ORDER_MARK: &[u8] = b"\xef\xbb\xbf";

/// The longest line of a suite read: a FEN or SFEN with its counts is a
/// few hundred bytes.
pub const MAX_LINE_BYTES: usize = 64 << 10;

/// The bytes of `path`, refused with an `InvalidData` error naming the
/// limit when it holds more than `limit` bytes (read no further than that),
/// and refused at once when it is not a regular file: a FIFO would wait for
/// a writer for ever, and a device such as `/dev/zero` has no end. The file
/// is opened without waiting (`O_NONBLOCK`, which changes nothing for a
/// regular file) and its type read from the open handle, so a FIFO put in
/// its place between a check and the open is refused too.
pub fn read_bytes(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        let what = if metadata.is_dir() { "a folder" } else { "not a regular file" };
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{what}; only regular files are read"),
        ));
    }
    let too_large = || {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("larger than {}, the most read from such a file", describe_bytes(limit)),
        )
    };
    if metadata.len() > limit {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(metadata.len() as usize);
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    Ok(bytes)
}

/// `limit` for people: MiB when it is whole MiB, else KiB or bytes.
fn describe_bytes(limit: u64) -> String {
    if limit >= 1 << 20 && limit % (1 << 20) == 0 {
        format!("{} MiB", limit >> 20)
    } else if limit >= 1 << 10 && limit % (1 << 10) == 0 {
        format!("{} KiB", limit >> 10)
    } else {
        format!("{limit} bytes")
    }
}

/// The text of `path`, read as [`read_bytes`] reads (a limit of `limit`
/// bytes, regular files only). A leading UTF-8 byte-order mark, as Windows
/// editors write, is dropped.
pub fn read_text(path: &Path, limit: u64) -> std::io::Result<String> {
    let mut bytes = read_bytes(path, limit)?;
    if bytes.starts_with(BYTE_ORDER_MARK) {
        bytes.drain(..BYTE_ORDER_MARK.len());
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
    fn temporary(name: &str) -> std::path::PathBuf {
        std::env::temp_dir().join(format!("gpu-movegen-files-{name}-{}", std::process::id()))
    }

    #[test]
    fn a_file_past_the_limit_is_refused_at_the_limit() {
        let path = temporary("large");
        std::fs::write(&path, vec![b'a'; (1 << 20) + 1]).unwrap();
        let error = super::read_text(&path, 1 << 20).unwrap_err();
        std::fs::remove_file(&path).unwrap();
        assert!(error.to_string().contains("larger than 1 MiB"), "{error}");
    }

    #[test]
    fn devices_fifos_and_folders_are_refused_without_waiting() {
        let error = super::read_text(std::path::Path::new("/dev/zero"), 1 << 20).unwrap_err();
        assert!(error.to_string().contains("not a regular file"), "{error}");
        let error = super::read_text(&std::env::temp_dir(), 1 << 20).unwrap_err();
        assert!(error.to_string().contains("a folder"), "{error}");
        let fifo = temporary("fifo");
        let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo reads a NUL-terminated path and nothing else.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        let error = super::read_text(&fifo, 1 << 20).unwrap_err();
        std::fs::remove_file(&fifo).unwrap();
        assert!(error.to_string().contains("not a regular file"), "{error}");
    }

    #[test]
    fn a_byte_order_mark_is_dropped() {
        let path = temporary("bom");
        std::fs::write(&path, b"\xef\xbb\xbfrnbqkbnr\n").unwrap();
        let text = super::read_text(&path, 1 << 20).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(text, "rnbqkbnr\n");
    }

    #[test]
    fn text_that_is_not_utf8_is_refused_with_its_line() {
        let path = temporary("utf8");
        std::fs::write(&path, b"one\ntwo \xe9\n").unwrap();
        let error = super::read_text(&path, 1 << 20).unwrap_err();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(error.to_string(), "line 2: not UTF-8 text (byte 8)");
    }
}
