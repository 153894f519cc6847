//! Reads a text file zoneguard parses (a rules file, a manifest) with a bound on its size, so
//! that `--rules /dev/zero` or a disk image named by mistake is an error, not a hang.

use std::io::Read;
use std::path::Path;
use thiserror::Error;

/// The largest file read: the bound README gives for every YAML document.
pub const MAX_BYTES: u64 = 64 * 1024 * 1024;

/// Why a file's text could not be read.
#[derive(Debug, Error)]
pub enum ReadError {
    #[error("cannot read: {0}")]
    Io(#[from] std::io::Error),
    #[error("larger than {} MiB", MAX_BYTES >> 20)]
    TooLarge,
    #[error("not UTF-8 text (is this a binary file?)")]
    NotUtf8,
}

/// The text of the file at `path`, if it is at most [`MAX_BYTES`] of UTF-8.
pub fn read(path: &Path) -> Result<String, ReadError> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(MAX_BYTES + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_BYTES {
        return Err(ReadError::TooLarge);
    }
    String::from_utf8(bytes).map_err(|_| ReadError::NotUtf8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_read_only_up_to_the_bound_and_as_utf8() {
        let dir = tempfile::tempdir().expect("tempdir");
        let write = |name: &str, bytes: &[u8]| {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).expect("write");
            path
        };
        let at_bound = write("at-bound", &vec![b'#'; MAX_BYTES as usize]);
        let past = write("past", &vec![b'#'; MAX_BYTES as usize + 1]);
        let binary = write("binary", &[0xff, 0xfe]);
        let table: [(&Path, Result<usize, &str>); 5] = [
            (&at_bound, Ok(MAX_BYTES as usize)),
            (&past, Err("larger than 64 MiB")),
            (&binary, Err("not UTF-8 text (is this a binary file?)")),
            (Path::new("/dev/zero"), Err("larger than 64 MiB")),
            (&dir.path().join("missing"), Err("cannot read: ")),
        ];
        for (path, want) in table {
            let got = read(path).map(|t| t.len()).map_err(|e| e.to_string());
            match (got, want) {
                (Ok(got), Ok(want)) => assert_eq!(got, want, "{path:?}"),
                (Err(got), Err(want)) => assert!(got.starts_with(want), "{path:?}: {got}"),
                (got, want) => panic!("{path:?}: got {got:?}, want {want:?}"),
            }
        }
    }
}
