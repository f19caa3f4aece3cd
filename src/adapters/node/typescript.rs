//! Running a TypeScript program as the project does: its own `tsx` (the `--import` hook that
//! compiles each file in memory, inline source map and all), else its own `ts-node`
//! (`--require ts-node/register`), else Node's own type stripping where the Node version has it
//! (22.6 with `--experimental-strip-types`, by default from 23.6). The loader is found in the
//! `node_modules` of the program's folder or any folder above it, as Node would find the
//! package, and given by its absolute path, since Node resolves a hook's name from the working
//! directory, not from the program.

use std::path::{Path, PathBuf};

/// Whether `program` is TypeScript, which Node cannot run as it is (before 23.6).
pub fn is_typescript(program: &Path) -> bool {
    matches!(
        program.extension().and_then(|e| e.to_str()),
        Some("ts" | "mts" | "cts" | "tsx")
    )
}

/// Whether Node runs `program` as an ES module: `.mjs` and `.mts` always, `.js` and `.ts` when
/// the nearest `package.json` says `"type": "module"`.
pub fn is_es_module(program: &Path) -> bool {
    match program.extension().and_then(|e| e.to_str()) {
        Some("mjs" | "mts") => true,
        Some("js" | "ts" | "tsx" | "jsx") => {
            let folder = program.parent().unwrap_or(Path::new("."));
            let folder = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf());
            folder
                .ancestors()
                .map(|f| f.join("package.json"))
                .find(|p| p.is_file())
                .and_then(|p| std::fs::read_to_string(p).ok())
                .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
                .is_some_and(|manifest| manifest["type"] == "module")
        }
        _ => false,
    }
}

/// The runtime arguments that make `node` (of `version`, "20.20.2") run the TypeScript
/// `program`, or why there is no way.
pub fn loader_args(program: &Path, version: Option<&str>) -> Result<Vec<String>, String> {
    let folder = program.parent().unwrap_or(Path::new("."));
    if let Some(package) = package_in(folder, "tsx") {
        let entry = import_entry(&package).unwrap_or_else(|| package.join("dist/loader.mjs"));
        return Ok(vec!["--import".into(), file_url(&entry)]);
    }
    if let Some(package) = package_in(folder, "ts-node") {
        return Ok(vec![
            "--require".into(),
            package.join("register").display().to_string(),
        ]);
    }
    match version.and_then(parse_version) {
        Some(v) if v >= (23, 6) => Ok(Vec::new()),
        Some(v) if v >= (22, 6) => Ok(vec!["--experimental-strip-types".into()]),
        _ => Err(format!(
            "{} is TypeScript, and nothing here runs it: add tsx or ts-node to the project (npm install --save-dev tsx), or use Node 22.6 or later, which strips types itself{}",
            program.display(),
            version
                .map(|v| format!(" (this is Node {v})"))
                .unwrap_or_default()
        )),
    }
}

/// The folder of package `name` in the `node_modules` of `folder` or a folder above it.
fn package_in(folder: &Path, name: &str) -> Option<PathBuf> {
    let folder = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf());
    folder
        .ancestors()
        .map(|f| f.join("node_modules").join(name))
        .find(|p| p.join("package.json").is_file())
}

/// The file a package's `exports["."]` gives an `import` of it.
fn import_entry(package: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(package.join("package.json")).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    let dot = &json["exports"]["."];
    let relative = dot
        .as_str()
        .or_else(|| dot["import"].as_str())
        .or_else(|| dot["import"]["default"].as_str())
        .or_else(|| dot["default"].as_str())?;
    Some(package.join(relative.trim_start_matches("./")))
}

/// `path` as a `file://` URL, which `--import` takes where a bare path would be a package name.
fn file_url(path: &Path) -> String {
    let text = path.display().to_string().replace('\\', "/");
    if text.starts_with('/') {
        format!("file://{text}")
    } else {
        format!("file:///{text}")
    }
}

/// "22.6.1" as (22, 6).
fn parse_version(text: &str) -> Option<(u32, u32)> {
    let mut parts = text.trim_start_matches('v').split('.');
    Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(with: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("src")).expect("src");
        for (package, manifest) in with {
            let folder = dir.path().join("node_modules").join(package);
            std::fs::create_dir_all(&folder).expect("package");
            std::fs::write(folder.join("package.json"), manifest).expect("manifest");
        }
        dir
    }

    #[test]
    fn the_projects_tsx_is_imported_by_its_entry() {
        let dir = project(&[("tsx", r#"{"exports": {".": "./dist/loader.mjs"}}"#)]);
        let args = loader_args(&dir.path().join("src/app.ts"), Some("20.20.2")).expect("tsx");
        assert_eq!(args[0], "--import");
        assert!(args[1].starts_with("file:///"), "{args:?}");
        assert!(
            args[1].ends_with("node_modules/tsx/dist/loader.mjs"),
            "{args:?}"
        );
    }

    #[test]
    fn ts_node_is_required_when_there_is_no_tsx() {
        let dir = project(&[("ts-node", "{}")]);
        let args = loader_args(&dir.path().join("src/app.ts"), Some("20.20.2")).expect("ts-node");
        assert_eq!(args[0], "--require");
        assert!(
            Path::new(&args[1]).ends_with("node_modules/ts-node/register"),
            "{args:?}"
        );
    }

    #[test]
    fn without_a_loader_node_strips_types_itself_or_the_error_names_the_ways() {
        let dir = project(&[]);
        let app = dir.path().join("src/app.ts");
        assert_eq!(loader_args(&app, Some("23.6.0")), Ok(Vec::new()));
        assert_eq!(
            loader_args(&app, Some("22.6.0")),
            Ok(vec!["--experimental-strip-types".to_string()])
        );
        let error = loader_args(&app, Some("20.20.2")).expect_err("no way");
        assert!(error.contains("tsx or ts-node"), "{error}");
        assert!(error.contains("Node 22.6"), "{error}");
        assert!(error.contains("this is Node 20.20.2"), "{error}");
    }

    #[test]
    fn es_modules_are_told_by_extension_or_by_the_packages_type() {
        let dir = project(&[]);
        let app = dir.path().join("src/app.js");
        assert!(!is_es_module(&app), "no package.json: CommonJS");
        std::fs::write(dir.path().join("package.json"), r#"{"type": "module"}"#).expect("manifest");
        assert!(is_es_module(&app));
        assert!(is_es_module(&dir.path().join("src/app.ts")));
        assert!(!is_es_module(&dir.path().join("src/app.cjs")));
        assert!(is_es_module(Path::new("/elsewhere/x.mjs")));
    }

    #[test]
    fn typescript_files_are_told_by_their_extension() {
        assert!(is_typescript(Path::new("a/app.ts")));
        assert!(is_typescript(Path::new("a/app.mts")));
        assert!(!is_typescript(Path::new("a/app.js")));
    }
}
