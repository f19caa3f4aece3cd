//! `debugger mcp --print-config`: the lines that add this server to the common agent clients,
//! with this binary's own path, so a copy and paste is all the set-up there is.

use std::path::Path;

use serde_json::json;

/// The snippets for a server run as `program mcp`.
pub fn config_text(program: &Path) -> String {
    let path = program.display().to_string();
    let servers = json!({ "mcpServers": { "debugger": { "command": path, "args": ["mcp"] } } });
    let vscode =
        json!({ "servers": { "debugger": { "type": "stdio", "command": path, "args": ["mcp"] } } });
    let pretty = |v: &serde_json::Value| serde_json::to_string_pretty(v).unwrap_or_default();
    format!(
        "# Claude Code (one command):\n\
         claude mcp add debugger -- {shell} mcp\n\
         \n\
         # Claude Desktop (claude_desktop_config.json), Cursor (.cursor/mcp.json), Windsurf,\n\
         # Gemini CLI (settings.json) and most other clients: merge into their JSON file\n\
         {servers}\n\
         \n\
         # VS Code (.vscode/mcp.json)\n\
         {vscode}\n\
         \n\
         # Codex CLI (~/.codex/config.toml)\n\
         [mcp_servers.debugger]\n\
         command = {toml}\n\
         args = [\"mcp\"]\n",
        shell = shell_word(&path),
        servers = pretty(&servers),
        vscode = pretty(&vscode),
        toml = json!(path),
    )
}

/// The config for this binary, or the error that names why its path is unknown.
pub fn print_config() -> Result<String, String> {
    let program =
        std::env::current_exe().map_err(|e| format!("cannot find this program's own path: {e}"))?;
    Ok(config_text(&program))
}

/// A path as one shell word: quoted when it holds anything a shell would split or expand.
fn shell_word(path: &str) -> String {
    let plain = path
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+:=@,".contains(c));
    if plain {
        path.to_string()
    } else {
        format!("'{}'", path.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_snippet_names_this_binary_and_the_mcp_argument() {
        let text = config_text(Path::new("/opt/my tools/debugger"));
        assert!(
            text.contains("claude mcp add debugger -- '/opt/my tools/debugger' mcp"),
            "{text}"
        );
        assert!(
            text.contains(r#""command": "/opt/my tools/debugger""#),
            "{text}"
        );
        assert!(text.contains(r#""type": "stdio""#), "{text}");
        assert!(
            text.contains("command = \"/opt/my tools/debugger\""),
            "{text}"
        );
        assert_eq!(text.matches(r#""mcp""#).count(), 3, "{text}");
    }
}
