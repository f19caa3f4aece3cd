//! Variables as text: aligned `name (type) = value` lines, children inline when short, and the
//! `* ` gutter of what changed since the frame's previous stop, with what it was (`0 -> 720`).

use std::fmt::Write as _;

use super::changes::{MEMBER_CHANGES_SHOWN, has_changed_members, member_changes, shown_value};
use super::more::{self, Reveal};
use crate::ipc::protocol::VariableNode;

/// Inline children only while the whole line stays this short.
const INLINE_WIDTH: usize = 100;

/// The longest line a stop report gives one local: twelve of them and the report's other lines
/// stay within 2 KB.
const STOP_LINE_CHARS: usize = 110;

/// The widest name of `nodes`, which the values are aligned after.
fn name_width(nodes: &[VariableNode]) -> usize {
    nodes
        .iter()
        .map(|n| n.name.chars().count())
        .max()
        .unwrap_or(0)
}

/// Variables as aligned `name (type) = value` lines, children inline when short, else nested.
/// When some changed since the frame's previous stop, every line gets a two-character gutter,
/// `* ` on the changed ones. What was left out is counted, with the command that shows it
/// (`reveal`).
pub fn variables(nodes: &[VariableNode], omitted: u64, reveal: Reveal) -> String {
    listing(nodes, omitted, false, reveal)
}

/// [`variables`] for the changed ones (`locals --changed`): their values say what they were
/// (`0 -> 720`), and the members of a value whose text stands for them are shown when one of
/// them changed.
pub fn changed_variables(nodes: &[VariableNode], omitted: u64, reveal: Reveal) -> String {
    listing(nodes, omitted, true, reveal)
}

fn listing(nodes: &[VariableNode], omitted: u64, changes: bool, reveal: Reveal) -> String {
    let mut out = String::new();
    let width = name_width(nodes);
    let marks = nodes.iter().any(|n| n.changed);
    let style = Style {
        marks,
        changes,
        reveal,
    };
    for node in nodes {
        write_node(&mut out, node, 0, width, style);
    }
    if omitted > 0 {
        let gutter = if marks { "  " } else { "" };
        let more = more::more_locals(omitted, nodes.len(), reveal);
        let _ = writeln!(out, "{gutter}{more}");
    }
    out
}

/// A stop report's locals: one line each (members inline when short, else collapsed to the
/// value), cut to [`STOP_LINE_CHARS`], with a two-character gutter, `* ` on the changed ones,
/// and a count of those left out. So a report on a frame of thirty locals stays a screenful.
/// A changed value says what it was (`0 -> 720`); a changed member, on a line of its own below
/// its local (`this.total: 0 -> 720`), a few in all.
pub fn stop_locals(nodes: &[VariableNode], omitted: u64) -> String {
    let mut out = String::new();
    let width = name_width(nodes);
    let mut room = MEMBER_CHANGES_SHOWN;
    for node in nodes {
        let gutter = if node.changed { "* " } else { "  " };
        let style = Style {
            marks: false,
            changes: node.children.is_empty(),
            reveal: Reveal(None),
        };
        let mut whole = String::new();
        write_node(&mut whole, node, 0, width, style);
        let first = whole.lines().next().unwrap_or_default();
        let line = if first.chars().count() > STOP_LINE_CHARS {
            // Members inline made it too long: the value alone, and cut if that still is.
            cut_line(&head(node, width, style))
        } else {
            first.to_string()
        };
        let _ = writeln!(out, "{gutter}{line}");
        let (members, more) = member_changes(node, room);
        room -= members.len();
        for member in members {
            let _ = writeln!(out, "    {}", cut_line(&member));
        }
        if more > 0 {
            let _ = writeln!(
                out,
                "    … {more} more changed: `debugger locals --changed`"
            );
        }
    }
    if omitted > 0 {
        let _ = writeln!(out, "  {}", more::stop_report_more(omitted, nodes.len()));
    }
    out
}

/// `line` cut to [`STOP_LINE_CHARS`] characters, saying how many were left out.
fn cut_line(line: &str) -> String {
    let total = line.chars().count();
    if total <= STOP_LINE_CHARS {
        return line.to_string();
    }
    let keep = STOP_LINE_CHARS - 24;
    let kept: String = line.chars().take(keep).collect();
    format!("{kept}… ({} more characters)", total - keep)
}

/// One variable (and its children) as `variables` shows it, its name padded to `width`: for a
/// list that mixes variables with other lines, aligned all the same.
pub fn variable(node: &VariableNode, width: usize, reveal: Reveal) -> String {
    let mut out = String::new();
    let style = Style {
        reveal,
        ..Style::default()
    };
    write_node(&mut out, node, 0, width, style);
    out
}

/// How changes are shown: the `* ` gutter (`marks`), and what changed values were (`changes`);
/// and the command that shows what was left out (`reveal`).
#[derive(Debug, Clone, Copy, Default)]
struct Style<'a> {
    marks: bool,
    changes: bool,
    reveal: Reveal<'a>,
}

fn head(node: &VariableNode, width: usize, style: Style) -> String {
    let name = format!("{:<width$}", node.name);
    let head = match &node.type_name {
        Some(t) => format!("{name} ({t}) ="),
        None => format!("{name} ="),
    };
    // GDB gives a struct no value text of its own: its members follow the `=`, or `{…}` when
    // they were not fetched.
    if node.value.is_empty() {
        if node.expandable && node.children.is_empty() {
            format!("{head} {{…}}")
        } else {
            head
        }
    } else {
        let value = match style.changes {
            true => shown_value(node),
            false => node.value.as_str().into(),
        };
        format!("{head} {value}")
    }
}

/// A child's value as its parent's inline summary shows it: `{…}` for one with members not
/// fetched and no value text of its own (GDB's structs).
fn inline_value(child: &VariableNode, style: Style) -> String {
    if child.value.is_empty() && child.expandable {
        "{…}".into()
    } else if style.changes {
        shown_value(child).into_owned()
    } else {
        child.value.clone()
    }
}

/// `{a = 1, b = 2, … 5 more}` when every child is a leaf and it fits, else `None`.
/// A value whose cut a command can show more of gets its lines, and the line that names it.
fn inline_children(node: &VariableNode, style: Style) -> Option<String> {
    inline_children_as(node, style, " = ")
}

/// A preview's whole value from its children, in the preview's own words: a list `[1, 2, 3]`
/// where it is one, members as `a: 1` where it writes them so (V8, Go), else as `a = 1`.
fn whole_value(node: &VariableNode, style: Style) -> Option<String> {
    let indexed = node.children.iter().enumerate().all(|(at, child)| {
        let name = child.name.trim_start_matches('[').trim_end_matches(']');
        name.parse::<usize>() == Ok(at)
    });
    if node.value.starts_with('[') && indexed {
        let items: Vec<String> = node
            .children
            .iter()
            .map(|c| inline_value(c, style))
            .collect();
        let text = format!("[{}]", items.join(", "));
        return (text.len() <= INLINE_WIDTH && !text.contains('\n')).then_some(text);
    }
    let separator = match node.children.first() {
        Some(first) if node.value.contains(&format!("{}: ", first.name)) => ": ",
        _ => " = ",
    };
    inline_children_as(node, style, separator)
}

/// [`inline_children`] with `separator` between a child's name and its value.
fn inline_children_as(node: &VariableNode, style: Style, separator: &str) -> Option<String> {
    let revealable = node.omitted_children > 0 && style.reveal.0.is_some();
    if revealable || node.children.iter().any(|c| !c.children.is_empty()) {
        return None;
    }
    let mut parts: Vec<String> = node
        .children
        .iter()
        .map(|c| format!("{}{separator}{}", c.name, inline_value(c, style)))
        .collect();
    if node.omitted_children > 0 {
        parts.push(format!("… {} more", node.omitted_children));
    }
    if node.methods_omitted {
        parts.push(more::METHODS.into());
    }
    let text = format!("{{{}}}", parts.join(", "));
    (text.len() <= INLINE_WIDTH && !text.contains('\n')).then_some(text)
}

fn write_node(out: &mut String, node: &VariableNode, indent: usize, width: usize, style: Style) {
    let marks = style.marks;
    let gutter = match (marks, node.changed) {
        (false, _) => "",
        (true, true) => "* ",
        (true, false) => "  ",
    };
    let pad = format!("{}{}", if marks { "  " } else { "" }, " ".repeat(indent));
    let mut line = format!("{gutter}{}{}", " ".repeat(indent), head(node, width, style));
    if node.children.is_empty() {
        if node.omitted_children > 0 {
            let _ = write!(line, " {{… {} more}}", node.omitted_children);
        } else if node.methods_omitted {
            let _ = write!(line, " {{{}}}", more::METHODS);
        }
        // A collapsed value says how much is in it, where the adapter told (one child is a
        // pointer's target, which its value already names).
        if let Some(count) = node.children_count.filter(|c| *c > 1) {
            let _ = write!(line, " ({count} children)");
        }
        out.push_str(&line);
        out.push('\n');
        return;
    }
    // Adapters that already summarise the children in the value (Go's `main.Point {X: 2}`,
    // Python's `[1, 2]`, JavaScript's `[1, 2]`) get no second, inline copy; a summary that
    // leaves something out (JavaScript's `{a: {…}}` and `[1, 2, …]`, Python's `{'k': [...]}`, a
    // text cut at the line limit) is not the whole story, and the children follow. Nor do
    // children whose values the text already says (`Some(3)` and its `0 = 3`).
    let changes_shown = style.changes && has_changed_members(node);
    if (summarises_children(&node.value) || repeats_children(node)) && !changes_shown {
        out.push_str(&line);
        out.push('\n');
        return;
    }
    if let Some(inline) = inline_children(node, style) {
        if inline_adds_nothing(node) && !changes_shown {
            out.push_str(&line);
            out.push('\n');
        } else if elides(&node.value) && node.omitted_children == 0 && !node.methods_omitted {
            // The text is a preview the children complete (V8's `{a: 1, b: […]}` and `{a = 1,
            // b = [1, 2]}`): the whole of it once, not the preview and then the whole.
            let whole = VariableNode {
                value: whole_value(node, style).unwrap_or(inline),
                children: Vec::new(),
                ..node.clone()
            };
            let whole_style = Style {
                changes: false,
                ..style
            };
            let _ = writeln!(
                out,
                "{gutter}{}{}",
                " ".repeat(indent),
                head(&whole, width, whole_style)
            );
        } else {
            let _ = writeln!(out, "{line} {inline}");
        }
        return;
    }
    out.push_str(&line);
    out.push('\n');
    let child_width = node
        .children
        .iter()
        .map(|c| c.name.chars().count())
        .max()
        .unwrap_or(0);
    for child in &node.children {
        write_node(out, child, indent + 2, child_width, style);
    }
    if node.omitted_children > 0 {
        let more = more::more_children(node.omitted_children, node.children.len(), style.reveal);
        let _ = writeln!(out, "{pad}  {more}");
    }
    if node.methods_omitted {
        let _ = writeln!(out, "{pad}  {}", more::METHODS);
    }
}

/// Whether a value's text already shows all its children hold, so they get no lines of their own:
/// a collection as the language writes it (`[1, 2]`, `{'k': 1}`, Python's tuple `(1, 2)`, Go's
/// `main.Point {X: 2}`) that leaves nothing out. One that elides is not the whole story, and its
/// children follow (docs/cli.md, "locals"): see [`elides`].
fn summarises_children(value: &str) -> bool {
    let value = value.trim_end();
    let collection =
        value.ends_with(['}', ']']) || (value.starts_with('(') && value.ends_with(')'));
    collection && !elides(value)
}

/// Whether a value's text already says all its children would say inline: each child is a leaf
/// with nothing more to show, whose value the text holds, in order, as a whole word (lldb's Rust
/// formatters: `Some(3)` and its `0 = 3`, `Rc("rc") strong=1 weak=0` and its `value = "rc"`, a
/// `Box`'s `0x5555555c2e40 7` and its `*boxed = 7`), or the text holds a string and its one
/// child is that string's first character (lldb's `char *`: `0x… "zzz"` and its `*name = 'z'`).
/// A child with members not fetched has more to show, on a line of its own (Delve's `*p
/// (main.T) = main.T {…}`, which its pointer's text repeats). A pointer to a struct (`0x7ffc`
/// and `id = 7, …`) says none of its members; nor does lldb's `int[1] @ 0x7ffc`, however its
/// numbers fall.
fn repeats_children(node: &VariableNode) -> bool {
    let value = node.value.as_str();
    if node.omitted_children > 0
        || value.contains(" @ 0x")
        || node
            .children
            .iter()
            .any(|c| c.expandable || !c.children.is_empty())
    {
        return false;
    }
    if let [only] = node.children.as_slice()
        && starts_the_string(value, &only.value)
    {
        return true;
    }
    let mut rest = value;
    node.children
        .iter()
        .all(|child| match word_in(rest, &child.value) {
            Some(end) => {
                rest = &rest[end..];
                true
            }
            None => false,
        })
}

/// Whether an inline copy of a value's children would say nothing its text does not: the text
/// elides, and each child's value is in it, in order, as a whole (children that elide the same: lldb's Rust `IntoIter { inner: ManuallyDrop { value: … {…} } }` and its
/// `inner = ManuallyDrop { value: … {…} }`, V8's `{kind: "retag", …}` and its `kind =
/// "retag"`). Children the text does not hold (past a preview's `…`) are worth the line.
fn inline_adds_nothing(node: &VariableNode) -> bool {
    let mut rest = node.value.as_str();
    elides(rest)
        && !node.children.is_empty()
        && node.children.iter().all(|child| {
            child.children.is_empty()
                && match word_in(rest, &child.value) {
                    Some(end) => {
                        rest = &rest[end..];
                        true
                    }
                    None => false,
                }
        })
}

/// Where the first whole-word `word` in `text` ends: not part of a longer name or number (`3`
/// is a word of `Some(3)`, not of `0x37` or `2.3`).
fn word_in(text: &str, word: &str) -> Option<usize> {
    if word.is_empty() {
        return None;
    }
    let in_word = |c: char| c.is_alphanumeric() || matches!(c, '_' | '.' | '-');
    text.match_indices(word).find_map(|(at, _)| {
        let end = at + word.len();
        let before = text[..at].chars().next_back().is_none_or(|c| !in_word(c));
        let after = text[end..].chars().next().is_none_or(|c| !in_word(c));
        (before && after).then_some(end)
    })
}

/// Whether `character` (a character literal, `'z'`, or GDB's `122 'z'`) is the first character
/// of the string `text` holds (`0x… "zzz"`); `'\0'` that of an empty one.
fn starts_the_string(text: &str, character: &str) -> bool {
    let Some(literal) = character
        .trim()
        .strip_suffix('\'')
        .and_then(|c| c.split_once('\'').map(|(_, inner)| inner))
    else {
        return false;
    };
    let Some((_, string)) = text.split_once('"') else {
        return false;
    };
    match literal {
        "" => false,
        "\\0" => string.starts_with('"'),
        first => string.starts_with(first),
    }
}

/// Whether a value's text leaves out some of what its children hold: an ellipsis (JavaScript's
/// `{parse: ƒ, …}` and `{a: {…}}`, Python's `[...]` and `{...}`, Delve's `map[…] [...]` and
/// its strings cut with `...`), a text cut at the line limit (`… (N more characters)`), or
/// Delve's `(*main.Item)(0xc000…)`, a value it did not load past its nesting limit.
fn elides(value: &str) -> bool {
    value.contains('…') || value.contains("...") || value.contains(")(0x")
}

#[cfg(test)]
mod tests;
