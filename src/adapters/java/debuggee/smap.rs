//! JSR-45's source map (a class's SourceDebugExtension), as Kotlin writes it: a function
//! inlined from elsewhere (the standard library's `sumOf`, `map`, `forEach`) keeps its own
//! lines, numbered past the end of the class's file (`Main.kt` of 38 lines has them at 40 and
//! on), and the map says which lines are the file's own. A breakpoint must not bind at those
//! borrowed lines, which look like lines of the file but are not.

/// The last line of the class's own file that its line tables use, from its source map; `None`
/// when it has none (Java's classes) or none can be read, and every line is the file's.
pub fn last_own_line(smap: &str) -> Option<u32> {
    // `*F` lists the files (`+ 1 Main.kt`), the first being the class's own; `*L` maps
    // `InputStart#FileId,Repeat:OutputStart` (parts after `#` and `,` may be left out).
    let mut in_lines = false;
    let mut file = 1;
    let mut last: Option<u32> = None;
    for line in smap.lines().map(str::trim) {
        if line.starts_with('*') {
            if in_lines && line != "*L" {
                break;
            }
            in_lines = line == "*L";
            continue;
        }
        if !in_lines {
            continue;
        }
        let (input, output) = line.split_once(':')?;
        let (input, repeat) = match input.split_once(',') {
            Some((input, repeat)) => (input, repeat.parse::<u32>().ok()?),
            None => (input, 1),
        };
        if let Some((_, id)) = input.split_once('#') {
            file = id.parse().ok()?;
        }
        if file != 1 {
            continue;
        }
        let (start, increment) = match output.split_once(',') {
            Some((start, increment)) => (start.parse::<u32>().ok()?, increment.parse().ok()?),
            None => (output.parse::<u32>().ok()?, 1),
        };
        let end = start + (repeat * increment).saturating_sub(1);
        last = Some(last.map_or(end, |l: u32| l.max(end)));
    }
    last
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_files_own_lines_end_where_the_inlined_ones_begin() {
        let smap = "SMAP\nMain.kt\nKotlin\n*S Kotlin\n*F\n+ 1 Main.kt\nCart\n+ 2 fake.kt\n\
                    kotlin/jvm/internal/FakeKt\n*L\n1#1,39:1\n1#2:40\n*E\n";
        assert_eq!(last_own_line(smap), Some(39));
        let inlined = "SMAP\nMain.kt\nKotlin\n*S Kotlin\n*F\n+ 1 Main.kt\nMainKt\n\
                       + 2 _Collections.kt\nkotlin/collections/CollectionsKt___CollectionsKt\n\
                       *L\n1#1,39:1\n1563#2:40\n1634#2,3:41\n*E\n*S KotlinDebug\n*F\n\
                       + 1 Main.kt\nMainKt\n*L\n35#1:40\n35#1:41,3\n*E\n";
        assert_eq!(last_own_line(inlined), Some(39));
        assert_eq!(last_own_line("not a map"), None);
    }
}
