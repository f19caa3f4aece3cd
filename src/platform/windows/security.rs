//! The Windows forms of privacy: who owns the runtime dir and whom its access list admits, the
//! directory made for this user alone, the session pipe's DACL, and whether this process runs
//! elevated. The judgement of an access list is `acl.rs`'s, on SID strings.

use std::fs::{self, Metadata};
use std::io;
use std::path::Path;

use interprocess::local_socket::ListenerOptions;
use interprocess::os::windows::local_socket::ListenerOptionsExt;
use interprocess::os::windows::security_descriptor::SecurityDescriptor;
use widestring::U16CString;
use windows_sys::Win32::Foundation::{CloseHandle, HANDLE, LocalFree};
use windows_sys::Win32::Security::Authorization::{
    ConvertSidToStringSidW, ConvertStringSecurityDescriptorToSecurityDescriptorW,
    GetNamedSecurityInfoW, SDDL_REVISION_1, SE_FILE_OBJECT,
};
use windows_sys::Win32::Security::{
    ACCESS_ALLOWED_ACE, ACE_HEADER, ACL, ACL_SIZE_INFORMATION, AclSizeInformation,
    DACL_SECURITY_INFORMATION, GetAce, GetAclInformation, GetTokenInformation,
    OWNER_SECURITY_INFORMATION, PSECURITY_DESCRIPTOR, PSID, SECURITY_ATTRIBUTES, TOKEN_ELEVATION,
    TOKEN_QUERY, TOKEN_USER, TokenElevation, TokenUser,
};
use windows_sys::Win32::Storage::FileSystem::CreateDirectoryW;
use windows_sys::Win32::System::Threading::{GetCurrentProcess, OpenProcessToken};

use crate::platform::acl::{self, Entry};

/// Creates `dir` (and its parents) for this user alone: owned by the user, with a protected
/// access list (nothing inherited from the parent) of one entry, full control for the user's
/// SID, inherited by everything made in it (`O:S-…D:P(A;OICI;FA;;;S-…)`). An existing
/// directory is left as it is, as on Unix; [`privacy_problem`] judges it.
pub fn create_private_dir(dir: &Path) -> io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent)?;
    }
    let sid = current_user_sid()?;
    match create_dir_with(dir, &format!("O:{sid}D:P(A;OICI;FA;;;{sid})")) {
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists && dir.is_dir() => Ok(()),
        other => other,
    }
}

/// Creates one directory with the security descriptor `sddl` (SDDL text).
fn create_dir_with(dir: &Path, sddl: &str) -> io::Result<()> {
    let sddl = wide(sddl)?;
    let path = wide(dir.as_os_str())?;
    let mut descriptor: PSECURITY_DESCRIPTOR = std::ptr::null_mut();
    // SAFETY: NUL-terminated wide strings; the descriptor the first call allocates is used by
    // the second and freed with LocalFree, as the first requires.
    unsafe {
        if ConvertStringSecurityDescriptorToSecurityDescriptorW(
            sddl.as_ptr(),
            SDDL_REVISION_1,
            &mut descriptor,
            std::ptr::null_mut(),
        ) == 0
        {
            return Err(io::Error::last_os_error());
        }
        let attributes = SECURITY_ATTRIBUTES {
            nLength: std::mem::size_of::<SECURITY_ATTRIBUTES>() as u32,
            lpSecurityDescriptor: descriptor,
            bInheritHandle: 0,
        };
        let made = CreateDirectoryW(path.as_ptr(), &attributes);
        let error = io::Error::last_os_error();
        LocalFree(descriptor);
        if made == 0 {
            return Err(error);
        }
    }
    Ok(())
}

/// A NUL-terminated UTF-16 copy of `text`, as Win32 calls take it.
fn wide(text: impl AsRef<std::ffi::OsStr>) -> io::Result<U16CString> {
    U16CString::from_os_str(text.as_ref())
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.to_string()))
}

/// Why a directory is not private to this user, as (what is wrong, what to do), or `None` when
/// it is: owned by this user's SID, and its access list admits no one else (SYSTEM and the
/// Administrators group aside: see `acl.rs`). Read through the path; `meta` has no ACL.
pub fn privacy_problem(dir: &Path, meta: &Metadata) -> Option<(String, String)> {
    let _ = meta;
    let user = match current_user_sid() {
        Ok(user) => user,
        Err(e) => {
            return Some((
                format!("cannot be checked: this user's SID cannot be read ({e})"),
                "run the command again".to_string(),
            ));
        }
    };
    match read_security(dir) {
        Ok((owner, dacl)) => acl::problem(dir, &owner, &user, dacl.as_deref()),
        Err(e) => Some((
            format!("cannot be checked: its security cannot be read ({e})"),
            "remove it".to_string(),
        )),
    }
}

/// A file's owner SID and the entries of its access list (`None`: it has none).
fn read_security(path: &Path) -> io::Result<(String, Option<Vec<Entry>>)> {
    const ACCESS_ALLOWED: u8 = 0;
    const ACCESS_DENIED: u8 = 1;
    // Audit and alarm entries belong in the SACL; a DACL holding one grants nothing.
    const GRANTS_NOTHING: &[u8] = &[ACCESS_DENIED, 2, 3, 6, 7, 8, 10, 12, 13, 14, 15, 16];
    let path = wide(path.as_os_str())?;
    let mut owner: PSID = std::ptr::null_mut();
    let mut dacl: *mut ACL = std::ptr::null_mut();
    let mut descriptor: PSECURITY_DESCRIPTOR = std::ptr::null_mut();
    // SAFETY: a NUL-terminated path; the owner and DACL point into the descriptor the call
    // allocates, which is read before it is freed with LocalFree; each ACE is read within the
    // ACL, its SID at `SidStart` for an ACCESS_ALLOWED_ACE.
    unsafe {
        let status = GetNamedSecurityInfoW(
            path.as_ptr(),
            SE_FILE_OBJECT,
            OWNER_SECURITY_INFORMATION | DACL_SECURITY_INFORMATION,
            &mut owner,
            std::ptr::null_mut(),
            &mut dacl,
            std::ptr::null_mut(),
            &mut descriptor,
        );
        if status != 0 {
            return Err(io::Error::from_raw_os_error(status as i32));
        }
        let read = (|| {
            let owner = sid_text(owner)?;
            if dacl.is_null() {
                return Ok((owner, None));
            }
            let mut size: ACL_SIZE_INFORMATION = std::mem::zeroed();
            if GetAclInformation(
                dacl,
                (&mut size as *mut ACL_SIZE_INFORMATION).cast(),
                std::mem::size_of::<ACL_SIZE_INFORMATION>() as u32,
                AclSizeInformation,
            ) == 0
            {
                return Err(io::Error::last_os_error());
            }
            let mut entries = Vec::new();
            for index in 0..size.AceCount {
                let mut ace: *mut std::ffi::c_void = std::ptr::null_mut();
                if GetAce(dacl, index, &mut ace) == 0 {
                    return Err(io::Error::last_os_error());
                }
                let header = &*(ace as *const ACE_HEADER);
                entries.push(match header.AceType {
                    ACCESS_ALLOWED => {
                        let allowed = ace as *const ACCESS_ALLOWED_ACE;
                        Entry::Allow(sid_text(std::ptr::addr_of!((*allowed).SidStart) as PSID)?)
                    }
                    kind if GRANTS_NOTHING.contains(&kind) => Entry::Other,
                    _ => Entry::AllowUnread,
                });
            }
            Ok((owner, Some(entries)))
        })();
        LocalFree(descriptor);
        read
    }
}

/// A SID as text (`S-1-5-21-…`).
///
/// # Safety
///
/// `sid` must point at a valid SID.
unsafe fn sid_text(sid: PSID) -> io::Result<String> {
    let mut text: *mut u16 = std::ptr::null_mut();
    // SAFETY: the caller's SID; the string is read up to its NUL and freed with LocalFree, as
    // ConvertSidToStringSidW requires.
    unsafe {
        if ConvertSidToStringSidW(sid, &mut text) == 0 {
            return Err(io::Error::last_os_error());
        }
        let mut length = 0;
        while *text.add(length) != 0 {
            length += 1;
        }
        let sid = String::from_utf16_lossy(std::slice::from_raw_parts(text, length));
        LocalFree(text.cast());
        Ok(sid)
    }
}

/// Listener options that admit this user alone. A named pipe's default DACL lets everyone read
/// it, and the pipe lets whoever writes to it run code as the user, so the session's pipe gets a
/// protected DACL with one entry: full access for this process's user SID
/// (`D:P(A;;GA;;;S-1-5-21-…)`).
pub fn private_listener(options: ListenerOptions<'_>) -> io::Result<ListenerOptions<'_>> {
    let sddl = format!("D:P(A;;GA;;;{})", current_user_sid()?);
    let sddl = U16CString::from_str(&sddl)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.to_string()))?;
    let descriptor = SecurityDescriptor::deserialize(&sddl)?;
    Ok(options.security_descriptor(descriptor))
}

/// Whether this process's token is elevated (an administrator's, past UAC).
pub fn is_elevated() -> bool {
    // SAFETY: the token handle is checked and closed; TOKEN_ELEVATION is plain data of the size
    // given.
    unsafe {
        let mut token: HANDLE = std::ptr::null_mut();
        if OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &mut token) == 0 {
            return false;
        }
        let mut elevation = TOKEN_ELEVATION { TokenIsElevated: 0 };
        let mut needed = 0u32;
        let read = GetTokenInformation(
            token,
            TokenElevation,
            (&mut elevation as *mut TOKEN_ELEVATION).cast(),
            std::mem::size_of::<TOKEN_ELEVATION>() as u32,
            &mut needed,
        );
        CloseHandle(token);
        read != 0 && elevation.TokenIsElevated != 0
    }
}

/// This process's user, as an SID string (`S-1-5-21-…`).
pub(super) fn current_user_sid() -> io::Result<String> {
    // SAFETY: the token handle is checked and closed; the buffer is sized by the first call and
    // holds a TOKEN_USER, whose SID it holds too, after the second.
    unsafe {
        let mut token: HANDLE = std::ptr::null_mut();
        if OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &mut token) == 0 {
            return Err(io::Error::last_os_error());
        }
        let mut needed = 0u32;
        GetTokenInformation(token, TokenUser, std::ptr::null_mut(), 0, &mut needed);
        // u64 elements keep the buffer aligned for TOKEN_USER.
        let mut buffer = vec![0u64; (needed as usize).div_ceil(8).max(1)];
        let read = GetTokenInformation(
            token,
            TokenUser,
            buffer.as_mut_ptr().cast(),
            (buffer.len() * 8) as u32,
            &mut needed,
        );
        CloseHandle(token);
        if read == 0 {
            return Err(io::Error::last_os_error());
        }
        let user = &*(buffer.as_ptr() as *const TOKEN_USER);
        sid_text(user.User.Sid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_users_sid_makes_a_pipe_descriptor() {
        let sid = current_user_sid().expect("the user's SID");
        assert!(sid.starts_with("S-1-"), "{sid}");
        let sddl = U16CString::from_str(format!("D:P(A;;GA;;;{sid})")).expect("sddl");
        SecurityDescriptor::deserialize(&sddl).expect("a descriptor from the SDDL");
    }

    #[test]
    fn a_private_dir_is_made_private_and_an_open_one_is_refused() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("private").join("rt");
        create_private_dir(&dir).expect("create");
        create_private_dir(&dir).expect("an existing one is fine");
        let meta = fs::metadata(&dir).expect("metadata");
        let (owner, dacl) = read_security(&dir).expect("its security");
        let me = current_user_sid().expect("the user's SID");
        assert_eq!(owner, me);
        // Windows keeps the one entry made; Wine reports the entries of the Unix mode it set from
        // it (0700): the user's, and SYSTEM's.
        let dacl = dacl.expect("an access list");
        assert!(dacl.contains(&Entry::Allow(me.clone())), "{dacl:?}");
        assert!(
            dacl.iter()
                .all(|e| *e == Entry::Allow(me.clone()) || *e == Entry::Allow("S-1-5-18".into())),
            "{dacl:?}"
        );
        assert_eq!(privacy_problem(&dir, &meta), None);
        let open = tmp.path().join("open");
        create_dir_with(
            &open,
            &format!("O:{me}D:P(A;OICI;FA;;;{me})(A;OICI;FR;;;WD)"),
        )
        .expect("create");
        let meta = fs::metadata(&open).expect("metadata");
        let (what, fix) = privacy_problem(&open, &meta).expect("refused");
        assert!(what.contains("S-1-1-0 (Everyone)"), "{what}");
        assert!(fix.contains("/remove:g *S-1-1-0"), "{fix}");
    }
}
