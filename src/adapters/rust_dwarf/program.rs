//! One program file's DWARF, opened once: where its image begins, which compile unit holds
//! which addresses, and the unit and names a lookup needs, read from the file when needed.
//!
//! A debug build's `.debug_info` and `.debug_str` are tens of megabytes each (about 36 and 38
//! in this project's own debug binary): read whole, they took half a second on the first
//! stop. A lookup reads one unit and the few names it compares.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use gimli::{
    AttributeValue, DebugAddrBase, DebugInfoOffset, DebugRngListsBase, DebugStrOffsetsBase,
    DwarfFileType, EndianSlice, RunTimeEndian, SectionId, Unit,
};
use object::{CompressionFormat, Object, ObjectSection, ObjectSegment, ReadCache};

/// The DWARF reader over bytes held in memory.
pub(super) type Reader<'a> = EndianSlice<'a, RunTimeEndian>;

/// The small sections, read whole when the file is opened.
const SECTIONS: &[SectionId] = &[
    SectionId::DebugAbbrev,
    SectionId::DebugAddr,
    SectionId::DebugAranges,
    SectionId::DebugLineStr,
    SectionId::DebugRanges,
    SectionId::DebugRngLists,
    SectionId::DebugStrOffsets,
];

/// The longest name read (a generic type's can be long).
const NAME_BYTES: usize = 64 * 1024;

pub(super) struct Program {
    file: File,
    endian: RunTimeEndian,
    /// The sections of [`SECTIONS`] the file has.
    sections: Vec<(SectionId, Vec<u8>)>,
    /// Where `.debug_info` and `.debug_str` are in the file.
    info: Range<u64>,
    strings: Option<Range<u64>>,
    /// The address the file gives its image's first byte: a debugger's module address (where
    /// that byte was loaded) less this is what was added to every address of the file.
    pub(super) image_address: u64,
    /// The compile units by the addresses of their code (`.debug_aranges`), sorted.
    units: Vec<(Range<u64>, DebugInfoOffset)>,
}

impl Program {
    /// The DWARF of the file at `path`; `None` for a file without any that can be read
    /// uncompressed.
    pub(super) fn open(path: &Path) -> Option<Program> {
        let cache = ReadCache::new(File::open(path).ok()?);
        let object = object::File::parse(&cache).ok()?;
        let endian = if object.is_little_endian() {
            RunTimeEndian::Little
        } else {
            RunTimeEndian::Big
        };
        let place = |id: SectionId| -> Option<Range<u64>> {
            let section = object.section_by_name(id.name())?;
            let range = section.compressed_file_range().ok()?;
            (range.format == CompressionFormat::None)
                .then(|| range.offset..range.offset + range.compressed_size)
        };
        let info = place(SectionId::DebugInfo)?;
        let strings = place(SectionId::DebugStr);
        let sections = SECTIONS
            .iter()
            .filter_map(|id| {
                let section = object.section_by_name(id.name())?;
                Some((*id, section.uncompressed_data().ok()?.into_owned()))
            })
            .collect();
        let image_address = object
            .segments()
            .filter(|s| s.file_range().0 == 0 && s.file_range().1 > 0)
            .map(|s| s.address())
            .min()
            .unwrap_or(0);
        drop(object);
        let mut program = Program {
            file: cache.into_inner(),
            endian,
            sections,
            info,
            strings,
            image_address,
            units: Vec::new(),
        };
        program.units = program.unit_ranges().ok()?;
        Some(program)
    }

    /// The small sections as gimli reads them, with no `.debug_info` or `.debug_str`: a
    /// view made per reading, as it borrows `self`.
    pub(super) fn dwarf(&self) -> gimli::Dwarf<Reader<'_>> {
        let section = |id: SectionId| -> Result<Reader<'_>, gimli::Error> {
            let data = self
                .sections
                .iter()
                .find(|(s, _)| *s == id)
                .map_or(&[][..], |(_, data)| data.as_slice());
            Ok(EndianSlice::new(data, self.endian))
        };
        gimli::Dwarf::load(section).unwrap_or_default()
    }

    /// The compile unit whose code holds `address` (the file's).
    pub(super) fn unit_at(&self, address: u64) -> Option<DebugInfoOffset> {
        let after = self.units.partition_point(|(r, _)| r.start <= address);
        self.units[..after]
            .iter()
            .rev()
            .find(|(r, _)| r.contains(&address))
            .map(|(_, offset)| *offset)
    }

    /// The bytes of the unit at `offset` in `.debug_info`, its header first.
    pub(super) fn unit_bytes(&self, offset: DebugInfoOffset) -> Option<Vec<u8>> {
        let start = self.info.start.checked_add(offset.0 as u64)?;
        let mut length = [0u8; 12];
        self.read_at(start, &mut length[..4])?;
        let short = self.u32(&length[..4]);
        let (header, body) = if short == 0xffff_ffff {
            self.read_at(start + 4, &mut length[4..])?;
            (12, self.u64(&length[4..]))
        } else {
            (4, u64::from(short))
        };
        let end = start.checked_add(header)?.checked_add(body)?;
        if end > self.info.end {
            return None;
        }
        let mut bytes = vec![0; usize::try_from(end - start).ok()?];
        self.read_at(start, &mut bytes)?;
        Some(bytes)
    }

    /// `unit` (read by [`Program::unit_bytes`]) opened in `dwarf`, without its line program,
    /// which no lookup here needs.
    pub(super) fn unit<'a>(
        &self,
        dwarf: &gimli::Dwarf<Reader<'a>>,
        unit: &'a [u8],
    ) -> Option<Unit<Reader<'a>>> {
        let info = gimli::DebugInfo::new(unit, self.endian);
        let header = info.header_from_offset(DebugInfoOffset(0)).ok()?;
        let encoding = header.encoding();
        let mut unit = Unit {
            abbreviations: Arc::new(
                dwarf
                    .debug_abbrev
                    .abbreviations(header.debug_abbrev_offset())
                    .ok()?,
            ),
            name: None,
            comp_dir: None,
            low_pc: 0,
            str_offsets_base: DebugStrOffsetsBase::default_for_encoding_and_file(
                encoding,
                DwarfFileType::Main,
            ),
            addr_base: DebugAddrBase(0),
            loclists_base: gimli::DebugLocListsBase::default_for_encoding_and_file(
                encoding,
                DwarfFileType::Main,
            ),
            rnglists_base: DebugRngListsBase::default_for_encoding_and_file(
                encoding,
                DwarfFileType::Main,
            ),
            line_program: None,
            dwo_id: None,
            header,
        };
        let mut low_pc = None;
        let (mut addr_base, mut rnglists_base, mut str_offsets_base) =
            (unit.addr_base, unit.rnglists_base, unit.str_offsets_base);
        {
            let mut entries = unit.entries();
            let (_, root) = entries.next_dfs().ok()??;
            let mut attrs = root.attrs();
            while let Some(attr) = attrs.next().ok()? {
                match (attr.name(), attr.value()) {
                    (gimli::DW_AT_low_pc, value) => low_pc = Some(value),
                    (gimli::DW_AT_addr_base, AttributeValue::DebugAddrBase(base)) => {
                        addr_base = base;
                    }
                    (gimli::DW_AT_rnglists_base, AttributeValue::DebugRngListsBase(base)) => {
                        rnglists_base = base;
                    }
                    (gimli::DW_AT_str_offsets_base, AttributeValue::DebugStrOffsetsBase(base)) => {
                        str_offsets_base = base;
                    }
                    _ => {}
                }
            }
        }
        unit.addr_base = addr_base;
        unit.rnglists_base = rnglists_base;
        unit.str_offsets_base = str_offsets_base;
        if let Some(low_pc) = low_pc {
            unit.low_pc = dwarf.attr_address(&unit, low_pc).ok()??;
        }
        Some(unit)
    }

    /// Whether `unit` is written in Rust (`DW_LANG_Rust`): another language's keeps the
    /// debugger's names.
    pub(super) fn is_rust(unit: &Unit<Reader<'_>>) -> bool {
        let mut entries = unit.entries();
        matches!(
            entries.next_dfs(),
            Ok(Some((_, root))) if matches!(
                root.attr_value(gimli::DW_AT_language),
                Ok(Some(AttributeValue::Language(gimli::DW_LANG_Rust)))
            )
        )
    }

    /// A string attribute's text: inline, or read from `.debug_str`.
    pub(super) fn string(
        &self,
        dwarf: &gimli::Dwarf<Reader<'_>>,
        unit: &Unit<Reader<'_>>,
        value: AttributeValue<Reader<'_>>,
    ) -> Option<String> {
        let offset = match value {
            AttributeValue::DebugStrRef(offset) => offset,
            AttributeValue::DebugStrOffsetsIndex(index) => dwarf
                .debug_str_offsets
                .get_str_offset(unit.encoding().format, unit.str_offsets_base, index)
                .ok()?,
            other => {
                let text = dwarf.attr_string(unit, other).ok()?;
                return Some(text.to_string_lossy().into_owned());
            }
        };
        let strings = self.strings.as_ref()?;
        let start = strings.start.checked_add(offset.0 as u64)?;
        let mut text = Vec::new();
        let mut chunk = [0u8; 256];
        while text.len() < NAME_BYTES {
            let at = start + text.len() as u64;
            let wanted = usize::try_from(strings.end.checked_sub(at)?)
                .unwrap_or(usize::MAX)
                .min(chunk.len());
            if wanted == 0 {
                return None;
            }
            self.read_at(at, &mut chunk[..wanted])?;
            match chunk[..wanted].iter().position(|b| *b == 0) {
                Some(end) => {
                    text.extend_from_slice(&chunk[..end]);
                    return Some(String::from_utf8_lossy(&text).into_owned());
                }
                None => text.extend_from_slice(&chunk[..wanted]),
            }
        }
        None
    }

    /// Every unit's ranges of code, from `.debug_aranges`, which rustc writes.
    fn unit_ranges(&self) -> Result<Vec<(Range<u64>, DebugInfoOffset)>, gimli::Error> {
        let dwarf = self.dwarf();
        let mut units = Vec::new();
        let mut headers = dwarf.debug_aranges.headers();
        while let Some(header) = headers.next()? {
            let offset = header.debug_info_offset();
            let mut entries = header.entries();
            while let Some(entry) = entries.next()? {
                let range = entry.range();
                if range.begin < range.end {
                    units.push((range.begin..range.end, offset));
                }
            }
        }
        units.sort_by_key(|(r, _)| r.start);
        Ok(units)
    }

    fn read_at(&self, offset: u64, into: &mut [u8]) -> Option<()> {
        let mut file = &self.file;
        file.seek(SeekFrom::Start(offset)).ok()?;
        file.read_exact(into).ok()
    }

    fn u32(&self, bytes: &[u8]) -> u32 {
        let bytes: [u8; 4] = bytes.try_into().unwrap_or_default();
        match self.endian {
            RunTimeEndian::Little => u32::from_le_bytes(bytes),
            RunTimeEndian::Big => u32::from_be_bytes(bytes),
        }
    }

    fn u64(&self, bytes: &[u8]) -> u64 {
        let bytes: [u8; 8] = bytes.try_into().unwrap_or_default();
        match self.endian {
            RunTimeEndian::Little => u64::from_le_bytes(bytes),
            RunTimeEndian::Big => u64::from_be_bytes(bytes),
        }
    }
}
