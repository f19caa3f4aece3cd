//! The adapter table: every built-in adapter as a row of data: its names, what it debugs, how
//! `start` and `attach` tell its programs, how to make it, and what `doctor` and `setup` need to
//! know of it (its version probe, its install recipe, the advice for a missing one). Detection,
//! the commands and every list or hint that names adapters walk this table; none of them names
//! an adapter.
use std::sync::Arc;

use super::row::{AdapterRow, Advice, Detection, FolderProgram, NativeClaim, ServerProbe};
use super::{codelldb, debugpy, delve, gdb, install, java, lldb, node, pdb, php, ruby};

/// Every built-in adapter, in the order `doctor` lists them and detection asks them.
pub const ADAPTERS: &[AdapterRow] = &[
    AdapterRow {
        profile: &lldb::PROFILE,
        aliases: &["lldb-dap", "lldb-vscode"],
        shorthands: &[],
        languages: &["C", "C++", "Rust"],
        detection: Detection {
            native: NativeClaim::Any(|section| {
                section.path.is_some() || lldb::find_on_system().is_some()
            }),
            ..Detection::NONE
        },
        one_shot: false,
        runs_modules: false,
        make: |config, section, _| {
            Ok(Arc::new(
                lldb::LldbDap::locate(section)?.with_rust(&config.rust),
            ))
        },
        remote: Some(|| Arc::new(lldb::LldbDap::remote())),
        version: lldb::version,
        install: Some(install::lldb::install),
        advice: Advice::SetupOr(lldb::install_hint),
        unusable: None,
        toolchain: None,
    },
    AdapterRow {
        profile: &debugpy::PROFILE,
        aliases: &[],
        shorthands: &["python", "py"],
        languages: &["Python"],
        detection: Detection {
            process_names: &["python"],
            ..debugpy::PYTHON_PROGRAMS
        },
        one_shot: false,
        runs_modules: true,
        make: |config, section, caller| {
            let gdb = config.adapter(gdb::PROFILE.name).path;
            Ok(Arc::new(
                debugpy::Debugpy::for_session(section, caller)?.injecting_with(gdb),
            ))
        },
        remote: Some(|| Arc::new(debugpy::Debugpy::remote())),
        version: debugpy::debugpy_version,
        install: Some(install::debugpy::install),
        advice: Advice::FromError,
        unusable: None,
        toolchain: None,
    },
    AdapterRow {
        profile: &pdb::PROFILE,
        aliases: &["bdb"],
        shorthands: &[],
        languages: &["Python"],
        // The same programs as debugpy's, which is listed first: pdb serves them only as a
        // one-shot question's, or when named.
        detection: debugpy::PYTHON_PROGRAMS,
        one_shot: true,
        runs_modules: true,
        make: |_, section, caller| Ok(Arc::new(pdb::Pdb::locate(section, caller)?)),
        remote: None,
        version: pdb::version,
        install: None,
        advice: Advice::Text(pdb::install_hint),
        unusable: None,
        toolchain: None,
    },
    AdapterRow {
        profile: &delve::PROFILE,
        aliases: &["dlv"],
        shorthands: &["go"],
        languages: &["Go"],
        detection: Detection {
            extensions: &["go"],
            folder: Some(FolderProgram {
                holds_one: delve::go_programs::is_package_dir,
                what: "a Go package (a folder of .go files)",
            }),
            native: NativeClaim::ByContent(delve::go_programs::carries_go_build_info),
            ..Detection::NONE
        },
        one_shot: false,
        runs_modules: false,
        make: |_, section, _| Ok(Arc::new(delve::Delve::locate(section)?)),
        remote: Some(|| Arc::new(delve::Delve::remote())),
        version: delve::version,
        install: Some(install::delve::install),
        advice: Advice::SetupOr(delve::install_hint),
        unusable: None,
        toolchain: Some(delve::toolchain::check),
    },
    AdapterRow {
        profile: &gdb::PROFILE,
        aliases: &[],
        shorthands: &[],
        languages: &["C", "C++", "Rust", "Fortran", "Ada"],
        detection: Detection {
            native: NativeClaim::Any(gdb::has_dap),
            ..Detection::NONE
        },
        one_shot: false,
        runs_modules: false,
        make: |config, section, _| Ok(Arc::new(gdb::Gdb::locate(section)?.with_rust(&config.rust))),
        remote: Some(|| Arc::new(gdb::Gdb::remote())),
        version: |path| {
            gdb::version(path)
                .and_then(|(line, _)| line.split_whitespace().last().map(str::to_string))
        },
        install: None,
        advice: Advice::Text(gdb::advice),
        unusable: Some(gdb::find),
        toolchain: None,
    },
    AdapterRow {
        profile: &codelldb::PROFILE,
        aliases: &[],
        shorthands: &[],
        languages: &["C", "C++", "Rust"],
        detection: Detection::NONE,
        one_shot: false,
        runs_modules: false,
        make: |_, section, _| Ok(Arc::new(codelldb::CodeLldb::locate(section)?)),
        remote: Some(|| Arc::new(codelldb::CodeLldb::remote())),
        version: |_| None,
        install: None,
        advice: Advice::FromError,
        unusable: None,
        toolchain: None,
    },
    AdapterRow {
        profile: &node::PROFILE,
        aliases: &["js-debug"],
        shorthands: &["js", "javascript"],
        languages: &["JavaScript"],
        detection: Detection {
            extensions: &["js", "mjs", "cjs", "ts", "mts", "cts", "tsx"],
            runtime: Some(node::is_node_runtime),
            interpreters: &["node"],
            process_names: &["node"],
            server: Some(ServerProbe::Asks(node::serves_inspector)),
            ..Detection::NONE
        },
        one_shot: false,
        runs_modules: false,
        make: |_, section, _| Ok(Arc::new(node::Node::locate(section)?)),
        remote: Some(|| Arc::new(node::Node::remote())),
        version: node::version,
        install: Some(install::node::install),
        advice: Advice::FromError,
        unusable: None,
        toolchain: None,
    },
    AdapterRow {
        profile: &java::PROFILE,
        aliases: &[],
        shorthands: &["jvm", "kotlin"],
        languages: &["Java", "Kotlin"],
        detection: Detection {
            extensions: &["java", "jar"],
            runtime: Some(java::is_java_runtime),
            process_names: &["java"],
            server: Some(ServerProbe::Keeps(java::serves_jdwp)),
            main_classes: true,
            ..Detection::NONE
        },
        one_shot: false,
        runs_modules: false,
        make: |_, section, caller| Ok(Arc::new(java::Java::locate(section, caller)?)),
        remote: Some(|| Arc::new(java::Java::remote())),
        version: java::version,
        // The JDK comes from the system's packages or the user's own choice (SDKMAN, an IDE).
        install: None,
        advice: Advice::Text(java::install_hint),
        unusable: None,
        toolchain: None,
    },
    AdapterRow {
        profile: &php::PROFILE,
        aliases: &[],
        shorthands: &["php"],
        languages: &["PHP"],
        detection: Detection {
            extensions: &["php"],
            runtime: Some(php::is_php_runtime),
            interpreters: &["php"],
            ..Detection::NONE
        },
        one_shot: false,
        runs_modules: false,
        make: |_, section, caller| Ok(Arc::new(php::Php::locate(section, caller)?)),
        remote: None,
        version: php::version,
        install: Some(install::php::install),
        advice: Advice::SetupOr(php::install_hint),
        unusable: None,
        toolchain: None,
    },
    AdapterRow {
        profile: &ruby::PROFILE,
        aliases: &[],
        shorthands: &["ruby", "rb"],
        languages: &["Ruby"],
        detection: ruby::RUBY_PROGRAMS,
        one_shot: false,
        runs_modules: false,
        make: |_, section, _| Ok(Arc::new(ruby::Rdbg::locate(section)?)),
        remote: Some(|| Arc::new(ruby::Rdbg::remote())),
        version: ruby::version,
        install: Some(install::ruby::install),
        advice: Advice::SetupOr(ruby::install_hint),
        unusable: None,
        toolchain: None,
    },
];

/// The built-in adapter a name, alias or shorthand means.
pub fn kind(name: &str) -> Option<&'static AdapterRow> {
    ADAPTERS
        .iter()
        .find(|k| k.name() == name || k.aliases.contains(&name) || k.shorthands.contains(&name))
}

/// Every name `--adapter` takes for a built-in adapter, for help texts: each row's name, with its
/// shorthands and aliases after it ("lldb (lldb-dap, lldb-vscode), debugpy (python, py), ...").
pub fn adapter_names_hint() -> String {
    let mut hint = String::new();
    for (at, row) in ADAPTERS.iter().enumerate() {
        if at > 0 {
            hint.push_str(", ");
        }
        hint.push_str(row.name());
        let mut others = row.shorthands.iter().chain(row.aliases);
        if let Some(first) = others.next() {
            hint.push_str(" (");
            hint.push_str(first);
            for other in others {
                hint.push_str(", ");
                hint.push_str(other);
            }
            hint.push(')');
        }
    }
    hint
}

/// What the hint for an adapter that offers no exception stops says: which adapters offer
/// which ("lldb-dap offers C++ throw/catch, debugpy raised/uncaught"), as their profiles name
/// them.
pub fn exception_filters_hint() -> String {
    let offers: Vec<String> = ADAPTERS
        .iter()
        .filter_map(|row| Some((row.profile.adapter_id, row.profile.exception_stops?)))
        .enumerate()
        .map(|(at, (who, what))| match at {
            0 => format!("{who} offers {what}"),
            _ => format!("{who} {what}"),
        })
        .collect();
    format!(
        "stops on exceptions depend on the adapter: {}",
        offers.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::config::Config;
    use crate::common::error::ErrorBody;
    use crate::common::error::ErrorCode;
    use crate::platform::Os;

    #[test]
    fn the_exception_hint_names_what_adapters_offer() {
        assert_eq!(
            exception_filters_hint(),
            "stops on exceptions depend on the adapter: lldb-dap offers C++ throw/catch, debugpy raised/uncaught, java caught/uncaught, php all/uncaught, rdbg raised/uncaught"
        );
    }

    #[test]
    fn the_names_hint_gives_every_name_of_every_adapter() {
        let hint = adapter_names_hint();
        assert!(
            hint.starts_with("lldb (lldb-dap, lldb-vscode), debugpy (python, py), pdb (bdb), "),
            "{hint}"
        );
        for row in ADAPTERS {
            let names = std::iter::once(row.name())
                .chain(row.shorthands.iter().copied())
                .chain(row.aliases.iter().copied());
            for name in names {
                assert!(hint.contains(name), "{name}: {hint}");
            }
        }
    }

    #[test]
    fn the_lldb_fix_names_setup() {
        let fix_for = |name: &str, err: &ErrorBody, config: &Config| {
            kind(name).expect("built in").fix(err, config)
        };
        let err = ErrorBody::new(
            ErrorCode::AdapterNotFound,
            "x",
            lldb::install_hint(Os::CURRENT),
        );
        let fix = fix_for("lldb", &err, &Config::default());
        assert!(fix.starts_with("run 'debugger setup lldb'"), "{fix}");
        let err = ErrorBody::new(
            ErrorCode::AdapterNotFound,
            "x",
            debugpy::install_hint(Os::CURRENT),
        );
        assert_eq!(
            fix_for("debugpy", &err, &Config::default()),
            debugpy::install_hint(Os::CURRENT)
        );
        let fix = fix_for("delve", &err, &Config::default());
        assert!(
            fix.starts_with("run 'debugger setup delve', or install"),
            "{fix}"
        );
        assert!(
            !fix.ends_with("or run 'debugger setup delve'"),
            "said once: {fix}"
        );
    }
}
