//! DAP's `hitCondition` as the adapters that judge hits themselves (node's, the JVM's) read
//! it: "N" stops from the Nth hit on, as `--hit-count` documents; `>N`, `>=N`, `==N` and `%N`
//! are understood too.

/// When a breakpoint with a hit count stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HitRule {
    AtLeast(u64),
    Exactly(u64),
    Every(u64),
}

impl HitRule {
    pub fn parse(text: &str) -> Option<HitRule> {
        let text = text.trim();
        let number = |s: &str| s.trim().parse::<u64>().ok();
        if let Some(rest) = text.strip_prefix(">=") {
            return number(rest).map(HitRule::AtLeast);
        }
        if let Some(rest) = text.strip_prefix('>') {
            return number(rest).map(|n| HitRule::AtLeast(n + 1));
        }
        if let Some(rest) = text.strip_prefix("==") {
            return number(rest).map(HitRule::Exactly);
        }
        if let Some(rest) = text.strip_prefix('%') {
            return number(rest).filter(|n| *n > 0).map(HitRule::Every);
        }
        number(text).map(HitRule::AtLeast)
    }

    pub fn allows(self, hits: u64) -> bool {
        match self {
            HitRule::AtLeast(n) => hits >= n,
            HitRule::Exactly(n) => hits == n,
            HitRule::Every(n) => hits.is_multiple_of(n),
        }
    }
}
