//! Whether a native program carries debug info: the names of its ELF sections. A program built
//! without `-g` has no `.debug_info`, so no `FILE:LINE` breakpoint can bind in it and a function
//! breakpoint stops at an address with no source line; the session says so instead of leaving
//! the breakpoint "pending" on a file that "cannot be found".
//!
//! Apart from `elf.rs`, which reads a core's notes: this reads the section table, and only
//! answers `false` when it is sure (a 64-bit little-endian ELF file with neither debug sections
//! nor a link to a separate debug file).

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use crate::common::user_files;

/// The most sections read; a program has a few dozen.
const MAX_SECTIONS: u64 = 4096;
/// The most bytes of section names read.
const MAX_NAMES: u64 = 1 << 20;

/// `Some(false)` for a 64-bit little-endian ELF program with no DWARF sections and no link to a
/// separate debug file; `Some(true)` for one with them; `None` for anything else (not ELF, not
/// readable, another ELF class), which is no reason to say anything.
pub fn has_debug_info(path: &Path) -> Option<bool> {
    let mut file = user_files::open_regular(path).ok()?;
    let mut header = [0u8; 64];
    file.read_exact(&mut header).ok()?;
    if &header[..4] != b"\x7fELF" || header[4] != 2 || header[5] != 1 {
        return None;
    }
    let table_offset = u64::from_le_bytes(header[40..48].try_into().ok()?);
    let entry_size = u64::from(u16::from_le_bytes(header[58..60].try_into().ok()?));
    let count = u64::from(u16::from_le_bytes(header[60..62].try_into().ok()?));
    let names_index = u64::from(u16::from_le_bytes(header[62..64].try_into().ok()?));
    if entry_size < 64 || count == 0 || count > MAX_SECTIONS || names_index >= count {
        return None;
    }
    let mut table = vec![0u8; usize::try_from(entry_size * count).ok()?];
    file.seek(SeekFrom::Start(table_offset)).ok()?;
    file.read_exact(&mut table).ok()?;
    let entry = |index: u64| -> Option<&[u8]> {
        let start = usize::try_from(index * entry_size).ok()?;
        table.get(start..start + 64)
    };
    let names_entry = entry(names_index)?;
    let names_offset = u64::from_le_bytes(names_entry[24..32].try_into().ok()?);
    let names_size = u64::from_le_bytes(names_entry[32..40].try_into().ok()?).min(MAX_NAMES);
    let mut names = vec![0u8; usize::try_from(names_size).ok()?];
    file.seek(SeekFrom::Start(names_offset)).ok()?;
    file.read_exact(&mut names).ok()?;
    let mut found = false;
    for index in 0..count {
        let Some(section) = entry(index) else {
            continue;
        };
        let Some(start) = section[..4]
            .try_into()
            .ok()
            .and_then(|b: [u8; 4]| usize::try_from(u32::from_le_bytes(b)).ok())
        else {
            continue;
        };
        let name = names
            .get(start..)
            .and_then(|rest| rest.split(|b| *b == 0).next())
            .unwrap_or_default();
        if matches!(
            name,
            b".debug_info" | b".zdebug_info" | b".debug_line" | b".gnu_debuglink"
        ) {
            found = true;
            break;
        }
    }
    Some(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_that_is_no_elf_program_says_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let script = dir.path().join("app.py");
        std::fs::write(&script, "print(1)\n").expect("write");
        assert_eq!(has_debug_info(&script), None);
        assert_eq!(has_debug_info(&dir.path().join("missing")), None);
    }

    #[test]
    fn the_running_test_binary_is_never_said_to_lack_debug_info() {
        // Test binaries are built with debug info (the test profile's default); off ELF
        // platforms nothing is said at all.
        let me = std::env::current_exe().expect("current exe");
        assert_ne!(has_debug_info(&me), Some(false));
    }
}
