//! Exceptions caught by their class's name (`catch IllegalStateException`), as DAP's
//! `exceptionOptions` bring them: each class's exception request (JDWP's `ExceptionOnly`, which
//! matches its subclasses too), thrown caught or not. A name is a binary one
//! (`java.lang.IllegalStateException`, `Till$Closed`) or a bare one matched against loaded
//! classes' simple names; a class not loaded yet is caught as it loads (a class-prepare event).

use crate::adapters::java::jdwp::commands::Modifier;
use crate::adapters::java::jdwp::events::{EventKind, SuspendPolicy};
use crate::adapters::java::jdwp::signatures::type_name;
use crate::adapters::java::jdwp::{Connection, JdwpError};
use crate::dap::requests::{ExceptionBreakMode, ExceptionOptions};

/// The names of the classes `options` choose: each option's last path segment (the segments
/// above it are categories), unless it never stops.
pub fn chosen(options: &[ExceptionOptions]) -> Vec<String> {
    options
        .iter()
        .filter(|option| option.break_mode != ExceptionBreakMode::Never)
        .filter_map(|option| option.path.last())
        .filter(|segment| !segment.negate)
        .flat_map(|segment| segment.names.iter().cloned())
        .collect()
}

/// Whether a class's binary name is the one `name` stands for: the same, or, for a bare name,
/// its simple name (after its package and any outer class).
fn names(class: &str, name: &str) -> bool {
    if is_whole(name) {
        return class == name;
    }
    class.rsplit(['.', '$']).next() == Some(name)
}

/// Whether `name` is a binary name (with its package or outer class), not a simple one.
fn is_whole(name: &str) -> bool {
    name.contains(['.', '$'])
}

/// The exception requests of classes chosen by name, and the classes still to load.
#[derive(Default)]
pub struct ExceptionClasses {
    /// The exception requests set for loaded classes.
    requests: Vec<i32>,
    /// The class-prepare requests for names no loaded class has yet, each with its name.
    pending: Vec<(i32, String)>,
}

impl ExceptionClasses {
    /// Replaces the classes caught by name with `chosen`.
    pub async fn set(&mut self, jvm: &Connection, chosen: &[String]) -> Result<(), JdwpError> {
        for request in self.requests.drain(..) {
            let _ = jvm.clear_event(EventKind::Exception, request).await;
        }
        for (request, _) in self.pending.drain(..) {
            let _ = jvm.clear_event(EventKind::ClassPrepare, request).await;
        }
        if chosen.is_empty() {
            return Ok(());
        }
        let loaded = jvm.all_classes().await?;
        for name in chosen {
            for class in loaded
                .iter()
                .filter(|c| names(&type_name(&c.signature), name))
            {
                self.catch(jvm, class.id).await?;
            }
            // Loaded or not, a class of the name may load later (another loader's, or the
            // first of a bare name's namesakes).
            let pattern = if is_whole(name) {
                name.clone()
            } else {
                format!("*{name}")
            };
            let request = jvm
                .set_event(
                    EventKind::ClassPrepare,
                    SuspendPolicy::All,
                    &[Modifier::ClassMatch(pattern)],
                )
                .await?;
            self.pending.push((request, name.clone()));
        }
        Ok(())
    }

    async fn catch(&mut self, jvm: &Connection, class: u64) -> Result<(), JdwpError> {
        let request = jvm
            .set_event(
                EventKind::Exception,
                SuspendPolicy::All,
                &[Modifier::ExceptionOnly {
                    type_id: class,
                    caught: true,
                    uncaught: true,
                }],
            )
            .await?;
        self.requests.push(request);
        Ok(())
    }

    /// A class prepared for `request`: caught when its name is one chosen.
    pub async fn class_prepared(
        &mut self,
        jvm: &Connection,
        request: i32,
        type_id: u64,
        signature: &str,
    ) -> Result<(), JdwpError> {
        let class = type_name(signature);
        let wanted = self
            .pending
            .iter()
            .any(|(pending, name)| *pending == request && names(&class, name));
        if wanted {
            self.catch(jvm, type_id).await?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dap::requests::ExceptionPathSegment;

    #[test]
    fn a_bare_name_is_a_simple_name_and_a_dotted_one_the_whole() {
        assert!(names(
            "java.lang.IllegalStateException",
            "IllegalStateException"
        ));
        assert!(names("Till$ClosedException", "ClosedException"));
        assert!(names("Till$ClosedException", "Till$ClosedException"));
        assert!(!names(
            "com.shop.MyIllegalStateException",
            "IllegalStateException"
        ));
        assert!(names("java.io.IOException", "java.io.IOException"));
        assert!(!names("java.io.IOException", "java.lang.IOException"));
    }

    #[test]
    fn the_class_is_the_last_segment_of_each_path() {
        let segment = |name: &str| ExceptionPathSegment {
            negate: false,
            names: vec![name.into()],
        };
        let options = [
            ExceptionOptions {
                path: vec![segment("Java Exceptions"), segment("IllegalStateException")],
                break_mode: ExceptionBreakMode::Always,
            },
            ExceptionOptions {
                path: vec![segment("java.io.IOException")],
                break_mode: ExceptionBreakMode::Never,
            },
        ];
        assert_eq!(chosen(&options), ["IllegalStateException"]);
    }
}
