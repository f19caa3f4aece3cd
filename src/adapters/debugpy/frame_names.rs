//! debugpy's frame names, made the function's own.
//!
//! When the stack it shows is an exception's traceback (a stop at an exception, its chained
//! tracebacks flattened into one stack), pydevd marks the frame where the program is paused by
//! appending ` (Current frame)` to its name (`_pydevd_bundle/pydevd_net_command_factory_json.py`,
//! `show_as_current_frame`). That is a label for an IDE's call-stack view; in a stop report or a
//! backtrace it reads as part of the function's name (`Stopped at the failure in test_month_end
//! (Current frame) (test_dates.py:14)`), and a name so labelled is no longer the function's.

/// pydevd's label on the frame where the program is paused.
const CURRENT_FRAME: &str = " (Current frame)";

/// The function's name in `name`, a frame name as pydevd sends it.
pub(super) fn function_of(name: &str) -> &str {
    name.strip_suffix(CURRENT_FRAME).unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_current_frame_label_is_taken_off_and_nothing_else() {
        assert_eq!(
            function_of("test_month_end (Current frame)"),
            "test_month_end"
        );
        assert_eq!(function_of("Cart.total (Current frame)"), "Cart.total");
        assert_eq!(function_of("<module>"), "<module>");
        assert_eq!(
            function_of("(Current frame) first"),
            "(Current frame) first"
        );
    }
}
