//! The display registry (`display EXPR`): the session's expressions shown at every stop, under
//! stable ids, with what each showed last so a report can say `old -> new`.
//!
//! Apart from the session because it outlives one: a `restart` carries it to the next run, as
//! it carries the breakpoints. Each display remembers the stop it was last reported at (a
//! generation of the run state), so every report of one stop (`await` again, `status`) shows
//! the same values and the same changes rather than comparing the stop with itself.

use std::sync::Mutex;

use crate::ipc::protocol::DisplayValue;

/// What one evaluation gave: the value, or why there is none.
pub type Outcome = Result<String, String>;

#[derive(Default)]
pub struct Displays {
    registry: Mutex<Registry>,
}

#[derive(Default)]
struct Registry {
    /// The id the next display gets: ids are never reused, so a removed one cannot be mistaken
    /// for a later one.
    next_id: u32,
    list: Vec<Display>,
}

struct Display {
    id: u32,
    expression: String,
    /// The value at the last stop where it could be evaluated: what the next one compares with.
    last_value: Option<String>,
    /// What it showed last, and the stop (generation) that was; `None` once a new run began.
    shown: Option<(Option<u64>, DisplayValue)>,
}

impl Display {
    fn listed(&self) -> DisplayValue {
        match &self.shown {
            Some((_, shown)) => shown.clone(),
            None => DisplayValue {
                id: Some(self.id),
                expression: self.expression.clone(),
                value: None,
                old_value: None,
                changed: false,
                error: None,
            },
        }
    }
}

/// A stop's displays: those already evaluated at it, and those still to evaluate.
#[derive(Default)]
pub struct AtStop {
    pub shown: Vec<DisplayValue>,
    pub due: Vec<(u32, String)>,
}

impl Displays {
    fn registry(&self) -> std::sync::MutexGuard<'_, Registry> {
        self.registry.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Adds a display of `expression`; its id.
    pub fn add(&self, expression: &str) -> u32 {
        let mut registry = self.registry();
        registry.next_id += 1;
        let id = registry.next_id;
        registry.list.push(Display {
            id,
            expression: expression.to_string(),
            last_value: None,
            shown: None,
        });
        id
    }

    /// Removes display `id`; when there is none, the ids there are.
    pub fn remove(&self, id: u32) -> Result<(), Vec<u32>> {
        let mut registry = self.registry();
        match registry.list.iter().position(|d| d.id == id) {
            Some(at) => {
                registry.list.remove(at);
                Ok(())
            }
            None => Err(registry.list.iter().map(|d| d.id).collect()),
        }
    }

    /// Every display, with what it showed last, in id order.
    pub fn list(&self) -> Vec<DisplayValue> {
        self.registry().list.iter().map(Display::listed).collect()
    }

    pub fn is_empty(&self) -> bool {
        self.registry().list.is_empty()
    }

    /// What a report of stop `generation` shows of the displays: those a report of it already
    /// evaluated, and the ones it has to.
    pub fn at_stop(&self, generation: u64) -> AtStop {
        let registry = self.registry();
        let mut at = AtStop {
            shown: Vec::new(),
            due: Vec::new(),
        };
        for display in &registry.list {
            match &display.shown {
                Some((Some(seen), shown)) if *seen == generation => at.shown.push(shown.clone()),
                _ => at.due.push((display.id, display.expression.clone())),
            }
        }
        at
    }

    /// Records what display `id` gave in the frame stop `generation` reports, compared with its
    /// last value; what to show. A display removed meanwhile is shown, this once. Of two
    /// reports of one stop, the first to record wins, so both show the same.
    pub fn record(
        &self,
        id: u32,
        expression: &str,
        generation: u64,
        outcome: Outcome,
    ) -> DisplayValue {
        let mut registry = self.registry();
        let Some(display) = registry.list.iter_mut().find(|d| d.id == id) else {
            return evaluated(Some(id), expression, None, outcome);
        };
        if let Some((Some(seen), shown)) = &display.shown
            && *seen == generation
        {
            return shown.clone();
        }
        let shown = evaluated(Some(id), expression, display.last_value.clone(), outcome);
        if let Some(value) = &shown.value {
            display.last_value = Some(value.clone());
        }
        display.shown = Some((Some(generation), shown.clone()));
        shown
    }

    /// A new run of the program begins (`restart`): its stops are counted afresh, so no
    /// display has been shown at any of them; the last values stay, to compare with.
    pub fn new_run(&self) {
        for display in &mut self.registry().list {
            if let Some((seen, _)) = &mut display.shown {
                *seen = None;
            }
        }
    }
}

/// What an expression shows for `outcome`, against `old_value` (a display's last value).
pub fn evaluated(
    id: Option<u32>,
    expression: &str,
    old_value: Option<String>,
    outcome: Outcome,
) -> DisplayValue {
    let (value, error) = match outcome {
        Ok(value) => (Some(value), None),
        Err(error) => (None, Some(error)),
    };
    let changed = matches!((&old_value, &value), (Some(old), Some(new)) if old != new);
    DisplayValue {
        id,
        expression: expression.to_string(),
        value,
        old_value,
        changed,
        error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_stable_and_never_reused() {
        let displays = Displays::default();
        assert_eq!(displays.add("a"), 1);
        assert_eq!(displays.add("b"), 2);
        assert_eq!(displays.remove(1), Ok(()));
        assert_eq!(displays.remove(1), Err(vec![2]));
        assert_eq!(displays.add("c"), 3);
        let ids: Vec<_> = displays.list().iter().map(|d| d.id).collect();
        assert_eq!(ids, [Some(2), Some(3)]);
    }

    #[test]
    fn a_value_is_compared_with_the_last_stop_that_had_one() {
        let displays = Displays::default();
        let id = displays.add("x");
        let first = displays.record(id, "x", 1, Ok("0".into()));
        assert_eq!((first.old_value, first.changed), (None, false));
        let gone = displays.record(id, "x", 2, Err("not in scope".into()));
        assert_eq!(gone.error.as_deref(), Some("not in scope"));
        let back = displays.record(id, "x", 3, Ok("1".into()));
        assert_eq!(back.old_value.as_deref(), Some("0"));
        assert!(back.changed);
        // A second report of stop 3 shows what the first did.
        assert_eq!(displays.at_stop(3).shown, vec![back.clone()]);
        assert_eq!(displays.record(id, "x", 3, Ok("9".into())), back);
        // A new run's stop 3 is another stop.
        displays.new_run();
        assert_eq!(displays.at_stop(3).due, vec![(id, "x".to_string())]);
        let again = displays.record(id, "x", 3, Ok("1".into()));
        assert!(!again.changed);
        assert_eq!(again.old_value.as_deref(), Some("1"));
    }
}
