//! What the daemon's log must never hold: the values of environment variables. A launch carries
//! the caller's whole environment (API keys, tokens), and adapters echo it in their own logs
//! (lldb's `env[NAME] = value` lines at debug level). Every line written to the log passes
//! through here, and a value of the daemon's or a launch's environment is written as its name.

use std::borrow::Cow;
use std::sync::RwLock;

use crate::ipc::protocol::Command;

/// Values shorter than this are left alone: `1`, `yes` or `C` would turn every line that
/// mentions them into noise, and hold no secret.
const SHORTEST_HIDDEN: usize = 6;

/// (value, name), longest value first so a value that holds another is replaced whole.
static HIDDEN: RwLock<Vec<(String, String)>> = RwLock::new(Vec::new());

/// Keeps the values of `vars` out of the log from now on.
pub fn hide_values<'a>(vars: impl IntoIterator<Item = (&'a str, &'a str)>) {
    let mut hidden = HIDDEN.write().unwrap_or_else(|p| p.into_inner());
    let mut added = false;
    for (name, value) in vars {
        if !may_be_secret(name, value) {
            continue;
        }
        if hidden.iter().any(|(v, _)| v == value) {
            continue;
        }
        hidden.push((value.to_string(), name.to_string()));
        added = true;
    }
    if added {
        hidden.sort_by_key(|(value, _)| std::cmp::Reverse(value.len()));
    }
}

/// Whether `value` could be a secret worth hiding. Our own `DEBUGGER_*` settings are names and
/// paths the log is about; a short value, a number, or a plain word (`debugger`, `en_US.UTF-8`)
/// holds no secret, and hiding it would turn every line that mentions it (a log target, the
/// session's name) into noise.
fn may_be_secret(name: &str, value: &str) -> bool {
    let plain_word = value
        .bytes()
        .all(|b| b.is_ascii_alphabetic() || matches!(b, b'-' | b'_' | b'.'));
    !name.starts_with("DEBUGGER_")
        && value.len() >= SHORTEST_HIDDEN
        && !value.bytes().all(|b| b.is_ascii_digit())
        && !plain_word
}

/// Keeps the environment a command carries (a launch's, the caller's of a warm adapter) out of
/// the log, before anything that handles the command can log it.
pub fn hide_environment_of(command: &Command) {
    let env = match command {
        Command::Start { spec, .. } => &spec.env,
        Command::Warm {
            context: Some(context),
            ..
        } => &context.env,
        _ => return,
    };
    hide_values(env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
}

/// Keeps the values of this process's own environment out of the log.
pub fn hide_own_environment() {
    let vars: Vec<(String, String)> = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect();
    hide_values(vars.iter().map(|(k, v)| (k.as_str(), v.as_str())));
}

/// `text` with every hidden value written as `$NAME`.
pub fn redact(text: &str) -> Cow<'_, str> {
    let hidden = HIDDEN.read().unwrap_or_else(|p| p.into_inner());
    redact_with(&hidden, text)
}

fn redact_with<'t>(hidden: &[(String, String)], text: &'t str) -> Cow<'t, str> {
    let mut out = Cow::Borrowed(text);
    for (value, name) in hidden {
        if out.contains(value.as_str()) {
            out = Cow::Owned(out.replace(value.as_str(), &format!("${name}")));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_become_names_and_short_ones_stay() {
        let hidden = vec![
            ("sk-live-0123456789".to_string(), "MY_API_KEY".to_string()),
            ("/usr/local/bin:/usr/bin".to_string(), "PATH".to_string()),
        ];
        let line = "env[MY_API_KEY] = sk-live-0123456789 and PATH=/usr/local/bin:/usr/bin";
        assert_eq!(
            redact_with(&hidden, line),
            "env[MY_API_KEY] = $MY_API_KEY and PATH=$PATH"
        );
        assert!(matches!(
            redact_with(&hidden, "nothing here"),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn short_and_numeric_values_are_not_hidden() {
        hide_values([("SHLVL", "1"), ("TERM", "dumb"), ("PORT", "12345678")]);
        let hidden = HIDDEN.read().unwrap_or_else(|p| p.into_inner());
        assert!(
            !hidden
                .iter()
                .any(|(_, n)| n == "SHLVL" || n == "TERM" || n == "PORT")
        );
    }
}
