//! Logs of one line a record (history indexes, notes of writes, refusals), appended to
//! and never rewritten in place.
use std::fs::File;
use std::io::{self, Read as _, Seek as _, SeekFrom, Write as _};

/// Appends the line `line` with one write to `file`, opened for reading and appending and
/// `len` bytes long. A last line a crash cut short (no newline at its end) is ended
/// first, so the new line is never glued to it and lost with it. Returns how many bytes
/// went in.
pub(crate) fn append_line(file: &mut File, len: u64, line: &[u8]) -> io::Result<u64> {
    let mut last = [b'\n'];
    if len > 0 {
        // Appending writes at the end whatever the position: reading moves only that.
        file.seek(SeekFrom::Start(len - 1))?;
        file.read_exact(&mut last)?;
    }
    let mut bytes = Vec::with_capacity(line.len() + 1);
    if last[0] != b'\n' {
        bytes.push(b'\n');
    }
    bytes.extend_from_slice(line);
    file.write_all(&bytes)?;
    Ok(bytes.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_after_a_torn_one_starts_on_its_own_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        std::fs::write(&path, "{\"a\":1}\n{\"a\":").unwrap();
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .append(true)
            .open(&path)
            .unwrap();
        let len = file.metadata().unwrap().len();
        assert_eq!(append_line(&mut file, len, b"{\"a\":3}\n").unwrap(), 9);
        let len = file.metadata().unwrap().len();
        assert_eq!(append_line(&mut file, len, b"{\"a\":4}\n").unwrap(), 8);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\"a\":1}\n{\"a\":\n{\"a\":3}\n{\"a\":4}\n"
        );
    }
}
