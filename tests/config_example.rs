//! config.example.toml must stay a valid config: every key it shows is one the daemon reads.

use debugger::common::config::Config;

#[test]
fn the_example_config_parses_to_the_defaults() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/config.example.toml"))
        .expect("read config.example.toml");
    let config = Config::parse(&text).expect("config.example.toml must parse");
    let defaults = Config::default();
    assert_eq!(config.timeouts.request(), defaults.timeouts.request());
    assert_eq!(config.timeouts.launch(), defaults.timeouts.launch());
    assert_eq!(config.timeouts.evaluate(), defaults.timeouts.evaluate());
    assert_eq!(config.output.buffer_bytes, defaults.output.buffer_bytes);
    assert_eq!(config.daemon.grace_period(), defaults.daemon.grace_period());
    assert_eq!(config.rust.sysroot, defaults.rust.sysroot);
    assert_eq!(config.rust.formatters, defaults.rust.formatters);
    assert_eq!(config.defaults.stop_locals, defaults.defaults.stop_locals);
}
