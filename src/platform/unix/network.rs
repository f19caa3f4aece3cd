//! A process's listening TCP ports on Linux and macOS, which an attach by pid to a running Node
//! watches for its inspector.

#[cfg(target_os = "linux")]
use std::fs;

/// The TCP ports process `pid` listens on. Linux: read from /proc, its socket inodes matched
/// against the LISTEN entries of its network namespace's tables. macOS: asked of `lsof`, which
/// every macOS has (`/usr/sbin/lsof`); libproc's socket details (`PROC_PIDFDSOCKETINFO`) are not
/// in the `libc` crate, and copying Apple's nested socket structs by hand, unrun, is the riskier
/// route.
pub fn listening_ports(pid: u32) -> Vec<u16> {
    #[cfg(target_os = "linux")]
    {
        let inodes: std::collections::HashSet<String> = fs::read_dir(format!("/proc/{pid}/fd"))
            .map(|entries| {
                entries
                    .flatten()
                    .filter_map(|e| fs::read_link(e.path()).ok())
                    .filter_map(|target| {
                        let target = target.to_string_lossy().to_string();
                        target
                            .strip_prefix("socket:[")
                            .and_then(|rest| rest.strip_suffix(']'))
                            .map(str::to_string)
                    })
                    .collect()
            })
            .unwrap_or_default();
        let mut ports = Vec::new();
        for table in ["tcp", "tcp6"] {
            let Ok(text) = fs::read_to_string(format!("/proc/{pid}/net/{table}")) else {
                continue;
            };
            ports.extend(listening_in_table(&text, &inodes));
        }
        ports
    }
    #[cfg(target_os = "macos")]
    {
        let output = std::process::Command::new("lsof")
            .args([
                "-nP",
                "-a",
                "-p",
                &pid.to_string(),
                "-iTCP",
                "-sTCP:LISTEN",
                "-Fn",
            ])
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .output();
        match output {
            Ok(output) => ports_in_lsof_fields(&String::from_utf8_lossy(&output.stdout)),
            Err(_) => Vec::new(),
        }
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos")))]
    {
        let _ = pid;
        Vec::new()
    }
}

/// The ports of the names in `lsof -F n` output: lines `n127.0.0.1:9229`, `n*:9229`,
/// `n[::1]:9229` among the process (`p`) and descriptor (`f`) lines.
#[cfg(any(target_os = "macos", test))]
fn ports_in_lsof_fields(text: &str) -> Vec<u16> {
    let mut ports: Vec<u16> = text
        .lines()
        .filter_map(|line| line.strip_prefix('n')?.rsplit_once(':')?.1.parse().ok())
        .collect();
    ports.sort_unstable();
    ports.dedup();
    ports
}

/// The LISTEN ports in a /proc/net/tcp table whose socket inode is one of `inodes`.
#[cfg(any(target_os = "linux", test))]
fn listening_in_table(table: &str, inodes: &std::collections::HashSet<String>) -> Vec<u16> {
    const LISTEN: &str = "0A";
    table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (local, state, inode) = (fields.get(1)?, fields.get(3)?, fields.get(9)?);
            if *state != LISTEN || !inodes.contains(*inode) {
                return None;
            }
            let port = local.rsplit_once(':')?.1;
            u16::from_str_radix(port, 16).ok()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listen_entries_of_the_process_are_found() {
        let table = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n\
   0: 0100007F:2405 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4242 1 0\n\
   1: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 999 1 0\n\
   2: 0100007F:2406 0100007F:A000 01 00000000:00000000 00:00000000 00000000     0        0 4243 1 0\n";
        let inodes: std::collections::HashSet<String> =
            ["4242", "4243"].iter().map(|s| s.to_string()).collect();
        assert_eq!(listening_in_table(table, &inodes), vec![9221]);
    }

    #[test]
    fn lsof_names_give_their_ports() {
        let text = "p4242\nf21\nn127.0.0.1:9229\nf22\nn[::1]:9229\nf23\nn*:8080\nfcwd\n";
        assert_eq!(ports_in_lsof_fields(text), vec![8080, 9229]);
        assert_eq!(ports_in_lsof_fields(""), Vec::<u16>::new());
    }
}
