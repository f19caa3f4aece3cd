//! Function names as their language writes them, for stacks and stop reports.
//!
//! lldb demangles a Rust symbol only half-way: a legacy-mangled one (`_ZN…17h<hash>E`) comes out
//! with rustc's escapes left in (`_$LT$alloc..vec..Vec$LT$T$GT$$u20$as$u20$…$GT$::deref`,
//! `lang_start::_$u7b$$u7b$closure$u7d$$u7d$`) and the hash at the end; a frame without debug
//! info may come fully mangled. rustc-demangle, the rust-lang project's own demangler, finishes
//! the job: the escaped path is mangled back into the legacy form segment by segment (the
//! escapes are that form's own) and demangled without its hash.

use std::borrow::Cow;
use std::fmt::Write;

/// `name` as Rust writes it when it is a Rust symbol, else `name` as it is.
pub(super) fn readable(name: &str) -> Cow<'_, str> {
    if let Ok(demangled) = rustc_demangle::try_demangle(name) {
        // `{:#}`: without the hash.
        return Cow::Owned(format!("{demangled:#}"));
    }
    if (name.contains('$') || name.contains(".."))
        && let Some(demangled) = remangled(name)
    {
        return Cow::Owned(demangled);
    }
    Cow::Borrowed(without_rust_hash(name))
}

/// A half-demangled legacy name (`a::b$LT$T$GT$::c::h0123456789abcdef`), mangled back
/// (`_ZN1a8b$LT$T$GT$1cE`) and demangled; `None` if it is no such name.
fn remangled(name: &str) -> Option<String> {
    let path = without_rust_hash(name);
    let mut mangled = String::from("_ZN");
    // rustc escapes any `::` inside a segment as `..`, so `::` separates segments.
    for segment in path.split("::") {
        let valid = !segment.is_empty()
            && segment
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'.'));
        if !valid {
            return None;
        }
        let _ = write!(mangled, "{}{segment}", segment.len());
    }
    mangled.push('E');
    let demangled = rustc_demangle::try_demangle(&mangled).ok()?;
    Some(format!("{demangled:#}"))
}

/// Rust symbols carry a hash (`counter::Counter::bump::h6090cb8eda62bfe9`) that means nothing to
/// a reader; drop it.
fn without_rust_hash(name: &str) -> &str {
    match name.rsplit_once("::h") {
        Some((path, hash)) if hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()) => {
            path
        }
        _ => name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_names_read_as_rust_writes_them() {
        for (shown, expected) in [
            (
                "counter::Counter::bump::h6090cb8eda62bfe9",
                "counter::Counter::bump",
            ),
            ("ns::hello", "ns::hello"),
            ("main", "main"),
            (
                "std::rt::lang_start::_$u7b$$u7b$closure$u7d$$u7d$",
                "std::rt::lang_start::{{closure}}",
            ),
            (
                "grep_searcher::SearchWorker$LT$W$GT$::search_path",
                "grep_searcher::SearchWorker<W>::search_path",
            ),
            (
                "_$LT$alloc..vec..Vec$LT$T$C$A$GT$$u20$as$u20$core..ops..deref..Deref$GT$::deref::h0123456789abcdef",
                "<alloc::vec::Vec<T,A> as core::ops::deref::Deref>::deref",
            ),
            // Fully mangled: legacy and v0.
            (
                "_ZN7counter7Counter4bump17h6090cb8eda62bfe9E",
                "counter::Counter::bump",
            ),
            ("_RNvCs1234_7mycrate3foo", "mycrate::foo"),
            // lldb's v0 demangling and C++ names are left alone.
            ("<m::Wrapper<u32>>::get", "<m::Wrapper<u32>>::get"),
            (
                "std::vector<int>::push_back(int const&)",
                "std::vector<int>::push_back(int const&)",
            ),
            ("main at 0x555555571EAE", "main at 0x555555571EAE"),
        ] {
            assert_eq!(readable(shown), expected, "{shown}");
        }
    }
}
