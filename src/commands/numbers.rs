//! How the command line reads numbers: every numeric flag or argument names what it accepts.
//!
//! clap's own parsers answer `-1` with "unexpected argument" (it reads a flag), `inf` as a
//! valid timeout that later fails to cross the IPC as JSON, and a bad digit with Rust's
//! "invalid digit found in string". These parsers are used with `allow_negative_numbers`, so a
//! negative number reaches them, and their message is the accepted range; clap puts the flag's
//! name and the value given in front of it ("invalid value '-1' for '--tail <N>': ...").
//!
//! Each parser is a plain function, so clap records its output type and the JSON Schema built
//! from the flags (`commands::schema`) still calls a count an integer and seconds a number.

/// The longest wait any command takes: thirty days, far past any CI job, and small enough that
/// adding it to the clock cannot overflow.
pub const MAX_SECONDS: f64 = 30.0 * 24.0 * 3600.0;

use crate::common::error::ErrorBody;

/// What `--timeout` accepts, said in every error about it.
fn seconds_accepted() -> String {
    format!("expected a number of seconds from 0 to {MAX_SECONDS} (30 days), e.g. 30 or 0.5")
}

/// Whether `value` is a number of seconds a wait may take: finite, from 0 to [`MAX_SECONDS`].
fn seconds_in_range(value: f64) -> bool {
    value.is_finite() && (0.0..=MAX_SECONDS).contains(&value)
}

/// A number of seconds to wait: finite, from 0 to [`MAX_SECONDS`], fractions allowed.
pub fn seconds(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(value) if seconds_in_range(value) => Ok(value),
        _ => Err(seconds_accepted()),
    }
}

/// The same check for a value that did not come through clap (a front door that builds its
/// `CommandLine` values itself): a usage error naming the flag.
pub fn checked_seconds(flag: &str, value: f64) -> Result<f64, ErrorBody> {
    if seconds_in_range(value) {
        Ok(value)
    } else {
        Err(ErrorBody::usage(
            format!("invalid value {value} for {flag}"),
            seconds_accepted(),
        ))
    }
}

/// The longest an evaluation may be given: a day, as the config's timeouts.
pub const MAX_EVALUATION_SECONDS: f64 = 86_400.0;

/// Seconds an evaluation may run: above 0 and at most a day, fractions allowed.
pub fn evaluation_seconds(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(value) if value.is_finite() && value > 0.0 && value <= MAX_EVALUATION_SECONDS => {
            Ok(value)
        }
        _ => Err(format!(
            "expected a number of seconds above 0 and at most {MAX_EVALUATION_SECONDS} (a day), \
             e.g. 10 or 0.5"
        )),
    }
}

/// A whole number from `MIN` to `MAX`.
pub fn whole<const MIN: u32, const MAX: u32>(text: &str) -> Result<u32, String> {
    match text.trim().parse::<u32>() {
        Ok(value) if (MIN..=MAX).contains(&value) => Ok(value),
        _ => Err(format!("expected a whole number from {MIN} to {MAX}")),
    }
}

/// A thread id as the adapter gives it: a whole number from 1 up.
pub fn thread_id(text: &str) -> Result<i64, String> {
    match text.trim().parse::<i64>() {
        Ok(value) if value >= 1 => Ok(value),
        _ => Err(format!(
            "expected a thread id, a whole number from 1 to {} ('debugger threads' lists them)",
            i64::MAX
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_evaluation_gets_more_than_nothing_and_at_most_a_day() {
        assert_eq!(evaluation_seconds("0.5"), Ok(0.5));
        assert_eq!(evaluation_seconds("86400"), Ok(86_400.0));
        for bad in ["0", "-1", "inf", "NaN", "86401", "soon"] {
            let error = evaluation_seconds(bad).expect_err(bad);
            assert!(error.contains("above 0"), "{bad}: {error}");
        }
    }

    #[test]
    fn seconds_are_finite_and_in_range() {
        assert_eq!(seconds("30"), Ok(30.0));
        assert_eq!(seconds("0.5"), Ok(0.5));
        assert_eq!(seconds("0"), Ok(0.0));
        for bad in ["inf", "-inf", "NaN", "-1", "1e30", "", "ten"] {
            let error = seconds(bad).expect_err(bad);
            assert!(error.contains("from 0 to 2592000"), "{bad}: {error}");
        }
    }

    #[test]
    fn seconds_given_as_values_are_checked_alike() {
        assert_eq!(checked_seconds("--timeout", 2.5), Ok(2.5));
        let error = checked_seconds("--timeout", f64::INFINITY).expect_err("inf");
        assert_eq!(error.message, "invalid value inf for --timeout");
        assert!(error.hint.contains("from 0 to"), "{}", error.hint);
    }

    #[test]
    fn whole_numbers_name_their_range() {
        assert_eq!(whole::<1, 1000>("1000"), Ok(1000));
        for bad in ["0", "1001", "-1", "1.5", "x"] {
            assert_eq!(
                whole::<1, 1000>(bad),
                Err("expected a whole number from 1 to 1000".to_string()),
                "{bad}"
            );
        }
    }

    #[test]
    fn thread_ids_are_positive() {
        assert_eq!(thread_id("4242"), Ok(4242));
        assert!(thread_id("0").is_err());
        assert!(thread_id("-3").is_err());
    }
}
