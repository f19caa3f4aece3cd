//! The C library this process was loaded with, named as the dynamic loader named it. A warm
//! adapter loads it ahead of the program it will run (see `WarmPolicy::Spare`): nearly
//! every native program links it, and reading its symbols is most of a debugger's time to the
//! first stop when its debug file is installed.

use std::path::PathBuf;

/// The C library's path as the dynamic loader opened it (`/lib/x86_64-linux-gnu/libc.so.6`, the
/// path in its cache, not the file's real path): the name a debugger's module list shows for it
/// in every program of this system, so the one its cached copy is found under. `None` where
/// programs are not so loaded (macOS keeps it in the dyld shared cache, Windows has no such
/// library) or when this process has none (a static build).
pub fn c_library_path() -> Option<PathBuf> {
    imp::c_library_path()
}

#[cfg(target_os = "linux")]
mod imp {
    use std::ffi::{CStr, OsStr};
    use std::os::unix::ffi::OsStrExt;
    use std::path::{Path, PathBuf};

    pub fn c_library_path() -> Option<PathBuf> {
        let mut found: Option<PathBuf> = None;
        // SAFETY: the callback only reads the loader's entry it is given and writes to `found`,
        // which outlives the call; the loader holds its lock for the call's duration.
        unsafe {
            libc::dl_iterate_phdr(
                Some(visit),
                (&mut found as *mut Option<PathBuf>).cast::<libc::c_void>(),
            );
        }
        found
    }

    /// One loaded object: stops the walk (non-zero) at the C library.
    unsafe extern "C" fn visit(
        info: *mut libc::dl_phdr_info,
        _size: libc::size_t,
        data: *mut libc::c_void,
    ) -> libc::c_int {
        // SAFETY: the loader passes a valid entry and our `data` (see `c_library_path`).
        let (name, found) = unsafe { ((*info).dlpi_name, &mut *data.cast::<Option<PathBuf>>()) };
        if name.is_null() {
            return 0;
        }
        // SAFETY: a non-null `dlpi_name` is a NUL-terminated string of the loader's.
        let bytes = unsafe { CStr::from_ptr(name) }.to_bytes();
        let path = Path::new(OsStr::from_bytes(bytes));
        let is_libc = path
            .file_name()
            .and_then(|file| file.to_str())
            .is_some_and(|file| file.starts_with("libc.so"));
        if is_libc && path.is_absolute() {
            *found = Some(path.to_path_buf());
            return 1;
        }
        0
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    pub fn c_library_path() -> Option<std::path::PathBuf> {
        None
    }
}

#[cfg(all(test, target_os = "linux", target_env = "gnu"))]
mod tests {
    #[test]
    fn this_process_has_a_c_library_named_by_the_loader() {
        let path = super::c_library_path().expect("a glibc build loads libc.so.6");
        assert!(path.is_absolute(), "{}", path.display());
        assert!(path.is_file(), "{}", path.display());
        assert_eq!(path.file_name().and_then(|f| f.to_str()), Some("libc.so.6"));
    }
}
