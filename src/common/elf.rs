//! A small reader of the ELF facts `core` needs, and no more: a program's build id, and of a core
//! dump whether it is whole, what signal killed the process (and where it faulted), and the build
//! id of the program that crashed.
//!
//! Hand-written rather than a crate because so little is read (the header, the program headers
//! and the notes) and the project depends on no ELF crate. Only 64-bit little-endian files
//! (x86-64, AArch64, RISC-V 64) are read in full; of others only the kind is told, and the checks
//! that need more are skipped rather than guessed at. A minidump (what LLDB's `process save-core`
//! writes on Linux) is recognised by its magic and passed through unchecked.

use std::fmt;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use crate::common::user_files;

const ELF_MAGIC: &[u8; 4] = b"\x7fELF";
const MINIDUMP_MAGIC: &[u8; 4] = b"MDMP";
const ET_CORE: u16 = 4;
const PT_LOAD: u32 = 1;
const PT_NOTE: u32 = 4;
const NT_PRSTATUS: u32 = 1;
const NT_AUXV: u32 = 6;
const NT_FILE: u32 = 0x4649_4c45;
const NT_SIGINFO: u32 = 0x5349_4749;
const NT_GNU_BUILD_ID: u32 = 3;
const NT_GO_BUILD_ID: u32 = 4;
const AT_ENTRY: u64 = 9;
/// Notes bigger than this are not read (a core's notes are a few hundred KiB at most).
const MAX_NOTES: u64 = 64 << 20;
/// Signals whose siginfo carries the faulting address.
const FAULT_SIGNALS: [i32; 4] = [4, 7, 8, 11];

/// The identity a linker gave a program: GNU's build-id note, or Go's own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuildId {
    Gnu(Vec<u8>),
    Go(String),
}

impl fmt::Display for BuildId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildId::Gnu(bytes) => bytes.iter().try_for_each(|b| write!(f, "{b:02x}")),
            BuildId::Go(id) => write!(f, "go:{id}"),
        }
    }
}

/// What a dump file turned out to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dump {
    /// An ELF core dump, with what could be read of it.
    Elf(CoreFacts),
    /// A minidump: only LLDB reads those, and nothing of it is checked here.
    Minidump,
}

/// What an ELF core says of the crash. Each fact is `None` when the core does not hold it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CoreFacts {
    /// The signal that ended the process (the siginfo note, else the first thread's status).
    pub signal: Option<i32>,
    /// The address that faulted, for SIGSEGV, SIGBUS, SIGILL and SIGFPE.
    pub fault_address: Option<u64>,
    /// The crashed process's id.
    pub pid: Option<u32>,
    /// The path the crashed program had, as the kernel recorded its mapping.
    pub program_path: Option<String>,
    /// The crashed program's build id, read from its mapped ELF header in the core.
    pub program_build_id: Option<BuildId>,
}

/// Why a dump could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DumpError {
    /// The file could not be opened or read.
    Unreadable(String),
    /// Neither an ELF file nor a minidump.
    NotADump,
    /// An ELF file, but a program or library rather than a core dump.
    NotACore,
    /// The file ends before the data its headers describe: `size` bytes where `needed` are.
    Truncated { size: u64, needed: u64 },
}

/// Reads a dump file's kind and, for an ELF core, its facts. Only the headers and notes are read,
/// so a dump of gigabytes costs no more than a small one.
pub fn read_dump(path: &Path) -> Result<Dump, DumpError> {
    let mut file =
        user_files::open_regular(path).map_err(|e| DumpError::Unreadable(e.to_string()))?;
    let size = file
        .metadata()
        .map_err(|e| DumpError::Unreadable(e.to_string()))?
        .len();
    let mut ident = [0u8; 64];
    let got = read_up_to(&mut file, 0, &mut ident)?;
    if got >= 4 && &ident[..4] == MINIDUMP_MAGIC {
        let needed = minidump_extent(&mut file, &ident[..got])?;
        if needed > size {
            return Err(DumpError::Truncated { size, needed });
        }
        return Ok(Dump::Minidump);
    }
    if got < 4 || &ident[..4] != ELF_MAGIC {
        return Err(DumpError::NotADump);
    }
    let Some(header) = Header::parse(&ident[..got]) else {
        // 32-bit or big-endian: a core we do not read further (see the module's note).
        return Ok(Dump::Elf(CoreFacts::default()));
    };
    if header.kind != ET_CORE {
        return Err(DumpError::NotACore);
    }
    let segments = read_segments(&mut file, &header, size)?;
    let needed = segments
        .iter()
        .map(|s| s.offset.saturating_add(s.file_size))
        .max()
        .unwrap_or(0);
    if needed > size {
        return Err(DumpError::Truncated { size, needed });
    }
    let core = Core { file, segments };
    core.facts()
}

/// The bytes a minidump's streams reach to: its header gives the number of streams and where
/// their directory is (12 bytes an entry: type, size, offset), which gives each stream's extent.
fn minidump_extent(file: &mut File, header: &[u8]) -> Result<u64, DumpError> {
    let (Some(count), Some(directory)) = (u32_at(header, 8), u32_at(header, 12)) else {
        return Ok(u64::MAX);
    };
    let table_size = u64::from(count) * 12;
    let table_end = u64::from(directory) + table_size;
    let size = file
        .metadata()
        .map_err(|e| DumpError::Unreadable(e.to_string()))?
        .len();
    if table_end > size || table_size > MAX_NOTES {
        return Ok(table_end);
    }
    let table = read_exact_at(file, u64::from(directory), table_size as usize)?;
    Ok(table
        .chunks_exact(12)
        .filter_map(|entry| Some(u64::from(u32_at(entry, 4)?) + u64::from(u32_at(entry, 8)?)))
        .chain([table_end])
        .max()
        .unwrap_or(table_end))
}

/// A program's build id (GNU's note, else Go's), `None` when it has none or is no 64-bit
/// little-endian ELF file.
pub fn build_id(path: &Path) -> Result<Option<BuildId>, DumpError> {
    let mut file =
        user_files::open_regular(path).map_err(|e| DumpError::Unreadable(e.to_string()))?;
    let size = file
        .metadata()
        .map_err(|e| DumpError::Unreadable(e.to_string()))?
        .len();
    let mut ident = [0u8; 64];
    let got = read_up_to(&mut file, 0, &mut ident)?;
    let Some(header) = Header::parse(&ident[..got]) else {
        return Ok(None);
    };
    let segments = read_segments(&mut file, &header, size)?;
    let mut found = None;
    for note in segments.iter().filter(|s| s.kind == PT_NOTE) {
        if note.file_size > MAX_NOTES || note.offset.saturating_add(note.file_size) > size {
            continue;
        }
        let bytes = read_exact_at(&mut file, note.offset, note.file_size as usize)?;
        found = pick_build_id(found, &bytes);
    }
    Ok(found)
}

/// The GNU build id in `notes`, else Go's, else what was found before.
fn pick_build_id(found: Option<BuildId>, notes: &[u8]) -> Option<BuildId> {
    let mut found = found;
    for note in notes_in(notes) {
        match (note.name, note.kind) {
            (b"GNU", NT_GNU_BUILD_ID) => return Some(BuildId::Gnu(note.desc.to_vec())),
            (b"Go", NT_GO_BUILD_ID) if found.is_none() => {
                let id = String::from_utf8_lossy(note.desc)
                    .trim_end_matches('\0')
                    .to_string();
                found = Some(BuildId::Go(id));
            }
            _ => {}
        }
    }
    found
}

struct Header {
    kind: u16,
    ph_offset: u64,
    ph_entry_size: u16,
    ph_count: u16,
}

impl Header {
    /// The fields of a 64-bit little-endian ELF header, `None` for any other kind of file.
    fn parse(bytes: &[u8]) -> Option<Header> {
        if bytes.len() < 64 || &bytes[..4] != ELF_MAGIC || bytes[4] != 2 || bytes[5] != 1 {
            return None;
        }
        Some(Header {
            kind: u16_at(bytes, 16)?,
            ph_offset: u64_at(bytes, 32)?,
            ph_entry_size: u16_at(bytes, 54)?,
            ph_count: u16_at(bytes, 56)?,
        })
    }
}

#[derive(Debug, Clone, Copy)]
struct Segment {
    kind: u32,
    offset: u64,
    address: u64,
    file_size: u64,
}

fn parse_segments(header: &Header, table: &[u8]) -> Vec<Segment> {
    let step = usize::from(header.ph_entry_size.max(56));
    (0..usize::from(header.ph_count))
        .filter_map(|i| {
            let entry = table.get(i * step..i * step + 56)?;
            Some(Segment {
                kind: u32_at(entry, 0)?,
                offset: u64_at(entry, 8)?,
                address: u64_at(entry, 16)?,
                file_size: u64_at(entry, 32)?,
            })
        })
        .collect()
}

fn read_segments(file: &mut File, header: &Header, size: u64) -> Result<Vec<Segment>, DumpError> {
    let step = u64::from(header.ph_entry_size.max(56));
    let table_size = step * u64::from(header.ph_count);
    let needed = header.ph_offset.saturating_add(table_size);
    if needed > size {
        return Err(DumpError::Truncated { size, needed });
    }
    let table = read_exact_at(file, header.ph_offset, table_size as usize)?;
    Ok(parse_segments(header, &table))
}

/// An open core: its file and its segments.
struct Core {
    file: File,
    segments: Vec<Segment>,
}

impl Core {
    fn facts(mut self) -> Result<Dump, DumpError> {
        let mut facts = CoreFacts::default();
        let mut entry = None;
        let mut mappings = Vec::new();
        let mut seen_siginfo = false;
        let notes: Vec<Segment> = self
            .segments
            .iter()
            .filter(|s| s.kind == PT_NOTE && s.file_size <= MAX_NOTES)
            .copied()
            .collect();
        for segment in notes {
            let bytes = read_exact_at(&mut self.file, segment.offset, segment.file_size as usize)?;
            for note in notes_in(&bytes) {
                match note.kind {
                    NT_PRSTATUS if facts.pid.is_none() => {
                        // The first thread's status is the thread that took the signal.
                        facts.pid = u32_at(note.desc, 32);
                        let cursig = u16_at(note.desc, 12).map(i32::from).filter(|s| *s > 0);
                        facts.signal = facts.signal.or(cursig);
                    }
                    // GDB's gcore writes one per thread, the thread that took the signal's
                    // first (the others' say SIGSTOP, GDB's own stop); the kernel writes one.
                    NT_SIGINFO if !seen_siginfo => {
                        seen_siginfo = true;
                        let signal = i32_at(note.desc, 0).filter(|s| *s > 0);
                        if let Some(signal) = signal {
                            facts.signal = Some(signal);
                            if FAULT_SIGNALS.contains(&signal) {
                                facts.fault_address = u64_at(note.desc, 16);
                            }
                        }
                    }
                    NT_AUXV => entry = auxv_entry(note.desc),
                    NT_FILE => mappings = file_mappings(note.desc),
                    _ => {}
                }
            }
        }
        if let Some(entry) = entry
            && let Some(program) = mappings.iter().find(|m| m.start <= entry && entry < m.end)
        {
            facts.program_path = Some(program.path.clone());
            let base = mappings
                .iter()
                .filter(|m| m.path == program.path && m.page_offset == 0)
                .map(|m| m.start)
                .min();
            if let Some(base) = base {
                facts.program_build_id = self.mapped_build_id(base);
            }
        }
        Ok(Dump::Elf(facts))
    }

    /// The build id of the ELF image mapped at `base`, from the memory the core holds of it
    /// (the kernel dumps the first page of every mapped ELF file, where its notes usually are).
    fn mapped_build_id(&mut self, base: u64) -> Option<BuildId> {
        let header = Header::parse(&self.memory(base, 64)?)?;
        let table_size = usize::from(header.ph_entry_size.max(56)) * usize::from(header.ph_count);
        let table = self.memory(base.checked_add(header.ph_offset)?, table_size)?;
        let segments = parse_segments(&header, &table);
        let first_load = segments
            .iter()
            .filter(|s| s.kind == PT_LOAD)
            .map(|s| s.address & !0xfff)
            .min()?;
        let bias = base.wrapping_sub(first_load);
        let mut found = None;
        for note in segments.iter().filter(|s| s.kind == PT_NOTE) {
            let size = usize::try_from(note.file_size.min(MAX_NOTES)).ok()?;
            if let Some(bytes) = self.memory(bias.wrapping_add(note.address), size) {
                found = pick_build_id(found, &bytes);
            }
        }
        found
    }

    /// `len` bytes of the crashed process's memory at `address`, when the core holds them all.
    fn memory(&mut self, address: u64, len: usize) -> Option<Vec<u8>> {
        let end = address.checked_add(len as u64)?;
        let segment = self.segments.iter().find(|s| {
            s.kind == PT_LOAD
                && s.address <= address
                && s.address.checked_add(s.file_size).is_some_and(|e| end <= e)
        })?;
        let offset = segment.offset + (address - segment.address);
        read_exact_at(&mut self.file, offset, len).ok()
    }
}

struct Mapping {
    start: u64,
    end: u64,
    page_offset: u64,
    path: String,
}

/// NT_FILE: a count, the page size, then (start, end, offset in pages) per mapping, then the
/// mappings' paths, each ended by a NUL.
fn file_mappings(desc: &[u8]) -> Vec<Mapping> {
    let Some(count) = u64_at(desc, 0).and_then(|c| usize::try_from(c).ok()) else {
        return Vec::new();
    };
    let names_at = 16usize.saturating_add(count.saturating_mul(24));
    let Some(names) = desc.get(names_at..) else {
        return Vec::new();
    };
    names
        .split(|b| *b == 0)
        .take(count)
        .enumerate()
        .filter_map(|(i, name)| {
            let at = 16 + i * 24;
            Some(Mapping {
                start: u64_at(desc, at)?,
                end: u64_at(desc, at + 8)?,
                page_offset: u64_at(desc, at + 16)?,
                path: String::from_utf8_lossy(name).into_owned(),
            })
        })
        .collect()
}

/// The program's entry point from the auxiliary vector (pairs of type and value).
fn auxv_entry(desc: &[u8]) -> Option<u64> {
    desc.chunks_exact(16)
        .find(|pair| u64_at(pair, 0) == Some(AT_ENTRY))
        .and_then(|pair| u64_at(pair, 8))
}

struct Note<'a> {
    name: &'a [u8],
    kind: u32,
    desc: &'a [u8],
}

/// The notes of a note segment: each a name size, a descriptor size, a type, then the name and
/// the descriptor, each padded to 4 bytes.
fn notes_in(bytes: &[u8]) -> impl Iterator<Item = Note<'_>> {
    let mut at = 0usize;
    std::iter::from_fn(move || {
        let name_size = u32_at(bytes, at)? as usize;
        let desc_size = u32_at(bytes, at + 4)? as usize;
        let kind = u32_at(bytes, at + 8)?;
        let name_at = at + 12;
        let desc_at = name_at.checked_add(name_size.checked_add(3)? & !3)?;
        let next = desc_at.checked_add(desc_size.checked_add(3)? & !3)?;
        let name = bytes.get(name_at..name_at + name_size)?;
        let desc = bytes.get(desc_at..desc_at.checked_add(desc_size)?)?;
        at = next;
        // Go pads its name ("Go\0\0"), so every trailing NUL goes.
        let name_end = name.iter().rposition(|b| *b != 0).map_or(0, |i| i + 1);
        let name = &name[..name_end];
        Some(Note { name, kind, desc })
    })
}

fn read_up_to(file: &mut File, offset: u64, buf: &mut [u8]) -> Result<usize, DumpError> {
    file.seek(SeekFrom::Start(offset))
        .map_err(|e| DumpError::Unreadable(e.to_string()))?;
    let mut got = 0;
    while got < buf.len() {
        match file.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(DumpError::Unreadable(e.to_string())),
        }
    }
    Ok(got)
}

fn read_exact_at(file: &mut File, offset: u64, len: usize) -> Result<Vec<u8>, DumpError> {
    let mut buf = vec![0u8; len];
    let got = read_up_to(file, offset, &mut buf)?;
    if got < len {
        return Err(DumpError::Truncated {
            size: offset + got as u64,
            needed: offset + len as u64,
        });
    }
    Ok(buf)
}

fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

fn i32_at(bytes: &[u8], at: usize) -> Option<i32> {
    Some(i32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(name: &[u8], kind: u32, desc: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&(name.len() as u32 + 1).to_le_bytes());
        out.extend_from_slice(&(desc.len() as u32).to_le_bytes());
        out.extend_from_slice(&kind.to_le_bytes());
        out.extend_from_slice(name);
        out.push(0);
        while out.len() % 4 != 0 {
            out.push(0);
        }
        out.extend_from_slice(desc);
        while out.len() % 4 != 0 {
            out.push(0);
        }
        out
    }

    #[test]
    fn the_gnu_build_id_wins_over_gos_and_prints_as_hex() {
        let mut notes = note(b"Go", NT_GO_BUILD_ID, b"abc/def");
        notes.extend(note(b"GNU", NT_GNU_BUILD_ID, &[0xde, 0xad, 0x01]));
        let id = pick_build_id(None, &notes).expect("an id");
        assert_eq!(id.to_string(), "dead01");
        let go = pick_build_id(None, &note(b"Go", NT_GO_BUILD_ID, b"abc/def"));
        assert_eq!(go.map(|id| id.to_string()), Some("go:abc/def".into()));
    }

    #[test]
    fn a_cut_note_ends_the_list_without_a_panic() {
        let notes = note(b"GNU", NT_GNU_BUILD_ID, &[1, 2, 3, 4]);
        for cut in 0..notes.len() {
            assert!(notes_in(&notes[..cut]).count() <= 1);
        }
        assert_eq!(notes_in(&notes).count(), 1);
    }

    #[test]
    fn file_mappings_pair_ranges_with_paths() {
        let mut desc = Vec::new();
        for v in [2u64, 4096, 0x1000, 0x2000, 0, 0x2000, 0x3000, 1] {
            desc.extend_from_slice(&v.to_le_bytes());
        }
        desc.extend_from_slice(b"/bin/a\0/bin/a\0");
        let maps = file_mappings(&desc);
        assert_eq!(maps.len(), 2);
        assert_eq!((maps[1].start, maps[1].page_offset), (0x2000, 1));
        assert_eq!(maps[0].path, "/bin/a");
    }

    #[test]
    fn a_file_that_is_no_dump_is_told() {
        let dir = std::env::temp_dir().join(format!("elf-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let text = dir.join("text");
        std::fs::write(&text, b"hello").expect("write");
        assert_eq!(read_dump(&text), Err(DumpError::NotADump));
        // A minidump of one stream of 4 bytes at offset 28, its directory at 16.
        let mut minidump = b"MDMP\x93\xa7\0\0".to_vec();
        minidump.extend_from_slice(&1u32.to_le_bytes());
        minidump.extend_from_slice(&16u32.to_le_bytes());
        for field in [3u32, 4, 28] {
            minidump.extend_from_slice(&field.to_le_bytes());
        }
        minidump.extend_from_slice(b"data");
        let mini = dir.join("mini");
        std::fs::write(&mini, &minidump).expect("write");
        assert_eq!(read_dump(&mini), Ok(Dump::Minidump));
        std::fs::write(&mini, &minidump[..30]).expect("write");
        assert_eq!(
            read_dump(&mini),
            Err(DumpError::Truncated {
                size: 30,
                needed: 32
            })
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
