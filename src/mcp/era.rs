//! Which protocol revision a request speaks, and what that changes in its answer.
//!
//! MCP 2026-07-28 is stateless: no `initialize` handshake; every request carries its protocol
//! version and the client's capabilities (and, optionally, the client's name) in `params._meta`,
//! and every result carries `resultType`. The revisions before it open with `initialize` and
//! carry nothing per request. This server speaks both on one connection (the spec's
//! "dual-era" server, basic/versioning): a request whose `_meta` names a protocol version is
//! served by the 2026-07-28 rules, any other by the handshake revisions' rules, so clients of
//! either era are served.

use serde_json::{Map, Value, json};

use super::jsonrpc::INVALID_PARAMS;

/// The revisions served per request, with the version in `_meta`.
pub const STATELESS_VERSIONS: [&str; 1] = ["2026-07-28"];

/// The revisions served through `initialize`, newest first: the current handshake revision and
/// the one before it.
pub const HANDSHAKE_VERSIONS: [&str; 2] = ["2025-11-25", "2025-06-18"];

/// Every revision this server speaks, newest first: what `server/discover` and the unsupported
/// version error name (the spec's own example of that error lists a handshake revision too).
pub const ALL_VERSIONS: [&str; 3] = ["2026-07-28", "2025-11-25", "2025-06-18"];

/// The spec's `UnsupportedProtocolVersionError` code (2026-07-28 schema).
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

const VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
const CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
const CLIENT_INFO_KEY: &str = "io.modelcontextprotocol/clientInfo";
const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";

/// How long a client may keep `tools/list` and `server/discover` answers (the spec requires a
/// caching hint on both): they are fixed for the life of this binary, so an hour.
const CACHE_TTL_MS: u64 = 3_600_000;

/// The rules a request is served by.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Era {
    /// 2025-11-25 and before: the connection opened with `initialize` (or did not bother).
    Handshake,
    /// 2026-07-28: the request carries its own version, capabilities and client.
    Stateless,
}

/// A request refused before it is served: the JSON-RPC error to answer with.
#[derive(Debug, PartialEq)]
pub struct Rejection {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

impl Era {
    /// Reads a request's era from its `_meta`. A 2026-07-28 request that lacks a required field
    /// is malformed (-32602), and one naming a revision not served per request gets the spec's
    /// `UnsupportedProtocolVersionError`, with the versions to retry with.
    pub fn of(method: &str, params: &Value) -> Result<Era, Rejection> {
        let meta = &params["_meta"];
        let version = &meta[VERSION_KEY];
        if version.is_null() {
            if method == "server/discover" {
                return Err(invalid(&format!(
                    "server/discover needs params._meta with {VERSION_KEY} and {CAPABILITIES_KEY}"
                )));
            }
            return Ok(Era::Handshake);
        }
        let Some(version) = version.as_str() else {
            return Err(invalid(&format!("_meta {VERSION_KEY} must be a string")));
        };
        if !meta[CAPABILITIES_KEY].is_object() {
            return Err(invalid(&format!(
                "_meta {CAPABILITIES_KEY} is required (an object) with {VERSION_KEY}"
            )));
        }
        if !STATELESS_VERSIONS.contains(&version) {
            return Err(Rejection {
                code: UNSUPPORTED_PROTOCOL_VERSION,
                message: "Unsupported protocol version".to_string(),
                data: Some(json!({ "supported": ALL_VERSIONS, "requested": version })),
            });
        }
        Ok(Era::Stateless)
    }

    /// A 2026-07-28 request's client name, for the connection's default session name.
    pub fn client_name(self, params: &Value) -> Option<&str> {
        match self {
            Era::Stateless => params["_meta"][CLIENT_INFO_KEY]["name"].as_str(),
            Era::Handshake => None,
        }
    }

    /// A result as this era shapes it: for 2026-07-28, marked `complete` (this server never asks
    /// the client for more input) and signed with the server's name in `_meta`.
    pub fn finish(self, mut result: Value) -> Value {
        if self == Era::Stateless
            && let Value::Object(fields) = &mut result
        {
            fields.insert("resultType".into(), json!("complete"));
            let meta = fields
                .entry("_meta")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(meta) = meta {
                meta.insert(SERVER_INFO_KEY.into(), server_info());
            }
        }
        result
    }

    /// A list result as this era shapes it: 2026-07-28 requires caching hints on it.
    pub fn cacheable(self, mut result: Value) -> Value {
        if self == Era::Stateless
            && let Value::Object(fields) = &mut result
        {
            fields.insert("ttlMs".into(), json!(CACHE_TTL_MS));
            fields.insert("cacheScope".into(), json!("public"));
        }
        result
    }
}

fn invalid(message: &str) -> Rejection {
    Rejection {
        code: INVALID_PARAMS,
        message: message.to_string(),
        data: None,
    }
}

/// The server's name and version, as `initialize` and every 2026-07-28 result carry it.
pub fn server_info() -> Value {
    json!({ "name": "debugger", "title": "debugger", "version": env!("CARGO_PKG_VERSION") })
}

/// The answer to `server/discover`: the revisions, the capabilities (tools only: the stop
/// pushes ride on logging, which 2026-07-28 deprecates and scopes to one request, so they stay
/// with the handshake revisions), and the agent guide as instructions.
pub fn discover(instructions: &str) -> Value {
    Era::Stateless.cacheable(json!({
        "supportedVersions": ALL_VERSIONS,
        "capabilities": { "tools": { "listChanged": false } },
        "instructions": instructions,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(fields: Value) -> Value {
        json!({ "_meta": fields })
    }

    #[test]
    fn the_era_comes_from_meta() {
        assert_eq!(Era::of("tools/list", &Value::Null), Ok(Era::Handshake));
        let modern = meta(json!({ VERSION_KEY: "2026-07-28", CAPABILITIES_KEY: {} }));
        assert_eq!(Era::of("tools/list", &modern), Ok(Era::Stateless));
        let refused = Era::of(
            "tools/list",
            &meta(json!({ VERSION_KEY: "1900-01-01", CAPABILITIES_KEY: {} })),
        );
        let refused = refused.expect_err("an unknown version is refused");
        assert_eq!(refused.code, UNSUPPORTED_PROTOCOL_VERSION);
        assert_eq!(
            refused.data,
            Some(json!({ "supported": ALL_VERSIONS, "requested": "1900-01-01" }))
        );
        for bad in [
            meta(json!({ VERSION_KEY: "2026-07-28" })),
            meta(json!({ VERSION_KEY: 7, CAPABILITIES_KEY: {} })),
        ] {
            assert_eq!(
                Era::of("tools/list", &bad).map_err(|r| r.code),
                Err(INVALID_PARAMS),
                "{bad}"
            );
        }
        assert_eq!(
            Era::of("server/discover", &json!({})).map_err(|r| r.code),
            Err(INVALID_PARAMS)
        );
    }

    #[test]
    fn stateless_results_are_complete_and_signed() {
        let done = Era::Stateless.finish(json!({ "_meta": { "session": "s" }, "content": [] }));
        assert_eq!(done["resultType"], "complete");
        assert_eq!(done["_meta"]["session"], "s");
        assert_eq!(done["_meta"][SERVER_INFO_KEY]["name"], "debugger");
        assert_eq!(Era::Handshake.finish(json!({})), json!({}));
        assert_eq!(Era::Handshake.cacheable(json!({})), json!({}));
    }
}
