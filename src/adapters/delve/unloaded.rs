//! Delve's unloaded values: past its nesting limit (one level below the value asked for), Delve
//! writes a value it did not load as `(*T)(0xADDR)`, the type's pointer and the address, where
//! a pointer's target would show its members. `*(*"T")(0xADDR)` reads it, as Delve itself does
//! for a value it reloads; the answer begins with `T `, which the text around it does not repeat
//! (`"ada": *{ID: 1, ...}` is what `print` of the map shows).

use crate::adapters::value_reading::UnloadedPart;

/// Each `(*T)(0xADDR)` in `value`, once.
pub(super) fn parts(value: &str) -> Vec<UnloadedPart> {
    let mut found: Vec<UnloadedPart> = Vec::new();
    let mut rest = value;
    while let Some(open) = rest.find("(*") {
        let after = &rest[open + 2..];
        let part = after.split_once(")(0x").and_then(|(type_name, tail)| {
            let digits = tail.find(')')?;
            let address = &tail[..digits];
            let plain_type = !type_name.is_empty()
                && !type_name.contains(['(', ')', ' ', '"'])
                && !address.is_empty()
                && address.bytes().all(|b| b.is_ascii_hexdigit());
            plain_type.then(|| {
                let text = format!("(*{type_name})(0x{address})");
                UnloadedPart {
                    expression: format!("*(*\"{type_name}\")(0x{address})"),
                    answer_prefix: format!("{type_name} "),
                    text,
                    answer_wrapper: None,
                    holder: false,
                }
            })
        });
        match part {
            Some(part) => {
                rest = &after[part.text.len() - 2..];
                if !found.contains(&part) {
                    found.push(part);
                }
            }
            None => rest = after,
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_unloaded_pointer_is_read_by_its_type_and_address() {
        let text = "*main.Ledger {Accounts: map[string]*main.Account [\"ada\": \
                    *(*main.Account)(0xc0000a6228), \"erin\": *(*main.Account)(0xc0000a6240), \
                    \"ada2\": *(*main.Account)(0xc0000a6228), \"cut\": *(*main.Account)(0xc0...";
        let found = parts(text);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].text, "(*main.Account)(0xc0000a6228)");
        assert_eq!(found[0].expression, "*(*\"main.Account\")(0xc0000a6228)");
        assert_eq!(
            found[0].loaded_text("main.Account {ID: 1, Owner: \"ada\"}"),
            "{ID: 1, Owner: \"ada\"}"
        );
        assert_eq!(found[1].text, "(*main.Account)(0xc0000a6240)");
        assert!(parts("main.T {F: func() (*int)}").is_empty());
        assert!(parts("(*int)(nil)").is_empty());
    }
}
