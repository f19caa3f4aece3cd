//! Whether a Windows directory's owner and access list keep it private to this user: the
//! judgement alone, on SID strings, so Linux's test run checks it too; `windows.rs` reads the
//! owner and the entries with `GetNamedSecurityInfoW`.
//!
//! Besides the user, an entry may admit SYSTEM, the Administrators group, and CREATOR OWNER.
//! SYSTEM is the OS itself, and administrators may take ownership of any file, so an entry for
//! either grants nothing they could not take; CREATOR OWNER stands for whoever creates a file in
//! the directory, and only this user can. They are there by inheritance in a directory made
//! under the user's profile (`%LOCALAPPDATA%\Temp`), which is where the runtime dir lives when
//! nothing else names it. Anyone else admitted (Everyone, Users, another account) could reach
//! the session's lock file and its neighbours, so the directory is refused.

use std::path::Path;

/// SYSTEM, the Administrators group and CREATOR OWNER: see the module's doc.
const ALSO_ADMITTED: &[&str] = &["S-1-5-18", "S-1-5-32-544", "S-1-3-0"];

/// One entry of a directory's access list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// Grants access to this SID (on the directory, or by inheritance on what is made in it).
    Allow(String),
    /// Grants access in a form this does not read (an object or callback entry).
    AllowUnread,
    /// Denies access, or audits: never opens the directory.
    Other,
}

/// Why a directory owned by `owner` with access list `dacl` (`None`: no list at all, which
/// admits everyone) is not private to `user`, as (what is wrong, what to do); `None` when it is.
pub fn problem(
    dir: &Path,
    owner: &str,
    user: &str,
    dacl: Option<&[Entry]>,
) -> Option<(String, String)> {
    if owner != user {
        return Some((
            format!("is owned by {owner}, not by you ({user})"),
            "remove it".to_string(),
        ));
    }
    let Some(dacl) = dacl else {
        return Some((
            "admits everyone (it has no access list)".to_string(),
            restrict(dir, user, &[]),
        ));
    };
    let mut others: Vec<&str> = Vec::new();
    for entry in dacl {
        match entry {
            Entry::Allow(sid)
                if sid != user
                    && !ALSO_ADMITTED.contains(&sid.as_str())
                    && !others.contains(&sid.as_str()) =>
            {
                others.push(sid)
            }
            Entry::AllowUnread => {
                return Some((
                    "has an access entry that may admit others (an object or callback entry)"
                        .to_string(),
                    restrict(dir, user, &[]),
                ));
            }
            _ => {}
        }
    }
    if others.is_empty() {
        return None;
    }
    let named: Vec<String> = others.iter().map(|sid| named(sid)).collect();
    Some((
        format!(
            "is open to other users (its access list admits {})",
            named.join(", ")
        ),
        restrict(dir, user, &others),
    ))
}

/// The `icacls` commands that leave `dir` to `user` alone: inherited entries dropped, the user
/// granted full control (inherited by what is made in it), and each of `others` removed.
fn restrict(dir: &Path, user: &str, others: &[&str]) -> String {
    let dir = dir.display();
    let mut fix = format!("run 'icacls \"{dir}\" /inheritance:r /grant:r *{user}:(OI)(CI)F'");
    if !others.is_empty() {
        let sids: Vec<String> = others.iter().map(|sid| format!("*{sid}")).collect();
        fix.push_str(&format!(
            " and 'icacls \"{dir}\" /remove:g {}'",
            sids.join(" ")
        ));
    }
    fix.push_str(" if that is safe");
    fix
}

/// A SID with the name of the well-known groups that most often open a directory.
fn named(sid: &str) -> String {
    let name = match sid {
        "S-1-1-0" => "Everyone",
        "S-1-5-11" => "Authenticated Users",
        "S-1-5-32-545" => "Users",
        "S-1-5-4" => "Interactive",
        "S-1-2-0" => "Local",
        _ => return sid.to_string(),
    };
    format!("{sid} ({name})")
}

#[cfg(test)]
mod tests {
    use super::*;

    const ME: &str = "S-1-5-21-1-2-3-1001";

    fn allow(sid: &str) -> Entry {
        Entry::Allow(sid.to_string())
    }

    #[test]
    fn the_user_alone_or_with_the_system_and_administrators_is_private() {
        let dir = Path::new(r"C:\Users\me\AppData\Local\Temp\debugger-me");
        assert_eq!(problem(dir, ME, ME, Some(&[allow(ME)])), None);
        let inherited = [
            allow("S-1-5-18"),
            allow("S-1-5-32-544"),
            allow(ME),
            Entry::Other,
        ];
        assert_eq!(problem(dir, ME, ME, Some(&inherited)), None);
        assert_eq!(
            problem(dir, ME, ME, Some(&[])),
            None,
            "an empty list admits no one"
        );
    }

    #[test]
    fn another_owner_or_anyone_else_admitted_is_refused_with_the_fix() {
        let dir = Path::new(r"C:\rt");
        let (what, fix) =
            problem(dir, "S-1-5-21-9-9-9-500", ME, Some(&[allow(ME)])).expect("owner");
        assert!(
            what.contains("owned by S-1-5-21-9-9-9-500, not by you"),
            "{what}"
        );
        assert_eq!(fix, "remove it");
        let open = [
            allow(ME),
            allow("S-1-1-0"),
            allow("S-1-5-32-545"),
            allow("S-1-1-0"),
        ];
        let (what, fix) = problem(dir, ME, ME, Some(&open)).expect("open");
        assert_eq!(
            what,
            "is open to other users (its access list admits S-1-1-0 (Everyone), S-1-5-32-545 (Users))"
        );
        assert_eq!(
            fix,
            format!(
                "run 'icacls \"C:\\rt\" /inheritance:r /grant:r *{ME}:(OI)(CI)F' and 'icacls \"C:\\rt\" /remove:g *S-1-1-0 *S-1-5-32-545' if that is safe"
            )
        );
        let (what, _) = problem(dir, ME, ME, None).expect("no list");
        assert!(what.contains("admits everyone"), "{what}");
        let (what, _) = problem(dir, ME, ME, Some(&[Entry::AllowUnread])).expect("unread");
        assert!(what.contains("may admit others"), "{what}");
    }
}
