//! A breakpoint's condition and hit count, judged at each hit in the stopped thread's top
//! frame by the Java evaluator. A hit whose condition is false, or that the hit count has not
//! reached, lets the program run on unseen. A condition that cannot be evaluated (it throws,
//! names nothing, is not a `boolean`) stops, as every adapter is made to: the session evaluates
//! it again there and reports the error (`condition_error`) rather than taking it as false.
//! A condition that does not parse is refused when it is set, as the breakpoint's answer.

use crate::adapters::hit_rule::HitRule;
use crate::adapters::java::expression::{evaluate_condition, parse};
use crate::adapters::java::heap::Heap;
use crate::dap::requests::BreakpointOptions;

/// How an unverified breakpoint's message starts when its condition does not parse; the
/// profile reads the parser's words after it.
pub const REFUSED: &str = "the condition does not parse: ";

/// The message refusing a breakpoint whose condition does not parse.
pub fn refusal(options: &BreakpointOptions) -> Option<String> {
    let condition = options
        .condition
        .as_deref()
        .filter(|c| !c.trim().is_empty())?;
    parse(condition).err().map(|e| format!("{REFUSED}{e}"))
}

/// When one breakpoint stops.
#[derive(Debug, Clone, Default)]
pub struct Rule {
    condition: Option<String>,
    hit: Option<HitRule>,
    /// Hits whose condition held (or that have none), counted against `hit`.
    hits: u64,
}

impl Rule {
    pub fn of(options: &BreakpointOptions) -> Rule {
        Rule {
            condition: options.condition.clone().filter(|c| !c.trim().is_empty()),
            hit: options.hit_condition.as_deref().and_then(HitRule::parse),
            hits: 0,
        }
    }

    /// Whether this hit stops the program.
    pub async fn stops<H: Heap>(&mut self, heap: &H) -> bool {
        if let Some(condition) = &self.condition {
            match evaluate_condition(heap, condition).await {
                Ok(true) => {}
                Ok(false) => return false,
                Err(_) => return true,
            }
        }
        self.hits += 1;
        self.hit.is_none_or(|rule| rule.allows(self.hits))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_condition_that_does_not_parse_is_refused_with_the_parsers_words() {
        let with = |condition: &str| BreakpointOptions {
            condition: Some(condition.into()),
            ..BreakpointOptions::default()
        };
        let refused = refusal(&with("count >")).unwrap_or_default();
        assert!(refused.starts_with(REFUSED), "{refused}");
        assert_eq!(refusal(&with("count > 1 && item.equals(\"x\")")), None);
        assert_eq!(refusal(&with("nosuch > 1")), None);
        assert_eq!(refusal(&with(" ")), None);
    }

    #[test]
    fn hit_conditions_read_as_dap_writes_them() {
        assert_eq!(HitRule::parse("2"), Some(HitRule::AtLeast(2)));
        assert_eq!(HitRule::parse(">2"), Some(HitRule::AtLeast(3)));
        assert_eq!(HitRule::parse("==3"), Some(HitRule::Exactly(3)));
        assert_eq!(HitRule::parse("%2"), Some(HitRule::Every(2)));
        assert_eq!(HitRule::parse("%0"), None);
        assert!(HitRule::AtLeast(2).allows(3) && !HitRule::AtLeast(2).allows(1));
    }
}
