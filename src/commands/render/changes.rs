//! What a change was, as text: `0 -> 720` where a value changed since the frame's previous stop,
//! and in a stop report a line per changed member of a local (`this.total: 0 -> 720`), since a
//! local's own line shows its new value only (an object's text may not even show the member).

use std::borrow::Cow;

use crate::ipc::protocol::VariableNode;

/// The longest value, old or new, shown as `old -> new` on one line; a longer one shows its new
/// value alone, marked changed.
const CHANGE_VALUE_CHARS: usize = 40;

/// The most changed members a stop report shows, over all its locals.
pub(super) const MEMBER_CHANGES_SHOWN: usize = 6;

/// `old -> new` for a changed value that was there at the previous stop, when both are short
/// and no member says what changed; else the value.
pub(super) fn shown_value(node: &VariableNode) -> Cow<'_, str> {
    match &node.old_value {
        Some(old)
            if node.changed && short(old) && short(&node.value) && !has_changed_members(node) =>
        {
            Cow::Owned(format!("{old} -> {}", node.value))
        }
        _ => Cow::Borrowed(&node.value),
    }
}

fn short(value: &str) -> bool {
    value.chars().count() <= CHANGE_VALUE_CHARS && !value.contains('\n')
}

/// Whether some member of `node` changed from a value read at the previous stop: its members
/// are then shown, even where its text would stand for them, so the change is seen.
pub(super) fn has_changed_members(node: &VariableNode) -> bool {
    node.children
        .iter()
        .any(|c| c.changed && c.old_value.is_some())
}

/// A stop report's lines for the changed members of `node` (`this.total: 0 -> 720`), at most
/// `room`; also how many more there were.
pub(super) fn member_changes(node: &VariableNode, room: usize) -> (Vec<String>, usize) {
    let changed: Vec<&VariableNode> = node
        .children
        .iter()
        .filter(|c| c.changed && c.old_value.is_some())
        .collect();
    let lines = changed
        .iter()
        .take(room)
        .map(|member| {
            let old = member.old_value.as_deref().unwrap_or_default();
            let path = member_path(&node.name, &member.name);
            format!("{path}: {} -> {}", cut(old), cut(&member.value))
        })
        .collect();
    (lines, changed.len().saturating_sub(room))
}

/// `this.total`, `items[0]`: a member as the language would name it; what a pointer points at
/// (Delve's `*l`) is named so already.
fn member_path(parent: &str, member: &str) -> String {
    if member.strip_prefix('*') == Some(parent) {
        member.to_string()
    } else if member.starts_with('[') {
        format!("{parent}{member}")
    } else {
        format!("{parent}.{member}")
    }
}

/// A value cut to [`CHANGE_VALUE_CHARS`], marked where it was.
fn cut(value: &str) -> Cow<'_, str> {
    let first = value.lines().next().unwrap_or_default();
    if short(value) {
        return Cow::Borrowed(value);
    }
    let kept: String = first.chars().take(CHANGE_VALUE_CHARS).collect();
    Cow::Owned(format!("{kept}…"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &str, value: &str, old: Option<&str>) -> VariableNode {
        VariableNode {
            name: name.into(),
            value: value.into(),
            type_name: None,
            children: vec![],
            expandable: false,
            omitted_children: 0,
            methods_omitted: false,
            children_count: None,
            changed: old.is_some(),
            old_value: old.map(str::to_string),
        }
    }

    #[test]
    fn a_changed_value_shows_what_it_was_when_both_are_short() {
        assert_eq!(shown_value(&node("n", "5", Some("3"))), "3 -> 5");
        assert_eq!(shown_value(&node("n", "5", None)), "5");
        let long = "x".repeat(50);
        assert_eq!(shown_value(&node("s", &long, Some("y"))), long.as_str());
        let mut object = node("o", "{a: 2}", Some("{a: 1}"));
        object.children = vec![node("a", "2", Some("1"))];
        assert_eq!(shown_value(&object), "{a: 2}", "its member tells");
    }

    #[test]
    fn changed_members_are_told_by_their_path_within_the_room() {
        let mut this = node("this", "Cart {total: 720}", Some("Cart {total: 0}"));
        this.children = vec![
            node("total", "720", Some("0")),
            node("items", "[]", None),
            node("[0]", "2", Some("1")),
        ];
        let mut pointer = node("l", "*T {n: 2}", Some("*T {n: 1}"));
        pointer.children = vec![node("*l", "T {n: 2}", Some("T {n: 1}"))];
        assert_eq!(member_changes(&pointer, 1).0, ["*l: T {n: 1} -> T {n: 2}"]);
        assert!(has_changed_members(&this));
        let (lines, more) = member_changes(&this, MEMBER_CHANGES_SHOWN);
        assert_eq!(lines, ["this.total: 0 -> 720", "this[0]: 1 -> 2"]);
        assert_eq!(more, 0);
        let (lines, more) = member_changes(&this, 1);
        assert_eq!((lines.len(), more), (1, 1));
    }
}
