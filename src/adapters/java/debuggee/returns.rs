//! The value a `finish` returned. JDWP's step out stops in the caller, past the return, where
//! the value is gone; so a finish also asks for the method-exit-with-return-value events of its
//! thread in the method's class, and keeps the value of the one that leaves the call it began
//! in (same method, same stack depth: not a deeper call of it, a recursion). The caller's frame
//! then shows it as a scope of its own, `Return value`, as the other adapters that know it do.

use crate::adapters::java::heap::JavaValue;
use crate::adapters::java::jdwp::commands::Modifier;
use crate::adapters::java::jdwp::events::{EventKind, SuspendPolicy};
use crate::adapters::java::jdwp::wire::{Location, Value};
use crate::adapters::java::jdwp::{Connection, JdwpError};

use super::frame_names::frame_class;
use super::heap::to_java;
use super::types::Types;
use crate::adapters::java::jdwp::signatures::type_name;

/// What a method returned: the method as frames name it (`Cart.total`) and the value, `void`
/// for a method that returns none.
#[derive(Debug, Clone)]
pub struct Returned {
    pub method: String,
    pub value: JavaValue,
}

/// A finish under way.
pub struct Finishing {
    request: i32,
    thread: u64,
    /// The call left: its method and the thread's frame count in it.
    class: u64,
    method: u64,
    depth: usize,
    returned: Option<Returned>,
}

impl Finishing {
    /// Before a finish's step out of the top frame of `thread`: asks for the returns of the
    /// frame's method.
    pub async fn begin(jvm: &Connection, thread: u64) -> Result<Finishing, JdwpError> {
        let depth = jvm.frame_count(thread).await?;
        let top = jvm.frames(thread, 1).await?;
        let location = top
            .first()
            .map(|f| f.location) // NO_MORE_FRAMES: a thread without Java frames has no method to leave.
            .ok_or(JdwpError::Jvm(31))?;
        let request = jvm
            .set_event(
                EventKind::MethodExitWithReturnValue,
                SuspendPolicy::All,
                &[
                    Modifier::ThreadOnly(thread),
                    Modifier::ClassOnly(location.class),
                ],
            )
            .await?;
        Ok(Finishing {
            request,
            thread,
            class: location.class,
            method: location.method,
            depth,
            returned: None,
        })
    }

    /// A method-exit event: whether it was this finish's, taking the value when it leaves the
    /// call the finish began in. The event is then no stop: the step out goes on.
    pub async fn exited(
        &mut self,
        jvm: &Connection,
        types: &mut Types,
        request: i32,
        location: &Location,
        value: Value,
    ) -> bool {
        if request != self.request {
            return false;
        }
        if self.returned.is_some()
            || location.class != self.class
            || location.method != self.method
            || jvm.frame_count(self.thread).await.ok() != Some(self.depth)
        {
            return true;
        }
        let value = to_java(value);
        if let JavaValue::Object(object) = &value {
            // Nothing of the program's may hold it once it is returned and dropped.
            let _ = jvm.disable_collection(object.id).await;
        }
        let method = match (
            types.signature(jvm, self.class).await,
            types.method(jvm, self.class, self.method).await,
        ) {
            (Ok(signature), Ok(Some(method))) => {
                format!("{}.{}", frame_class(&type_name(&signature)), method.name)
            }
            _ => "?".to_string(),
        };
        self.returned = Some(Returned { method, value });
        let _ = jvm
            .clear_event(EventKind::MethodExitWithReturnValue, self.request)
            .await;
        true
    }

    /// The finish is over (it stopped, or was overtaken): its request goes; what the method
    /// returned, when seen.
    pub async fn end(self, jvm: &Connection) -> Option<Returned> {
        if self.returned.is_none() {
            let _ = jvm
                .clear_event(EventKind::MethodExitWithReturnValue, self.request)
                .await;
        }
        self.returned
    }
}
