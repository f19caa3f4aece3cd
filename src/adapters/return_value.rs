//! Where an adapter tells the value a function returned, for `finish`: each adapter's row says
//! which of these ways is its own, or why it cannot tell.

/// How the value a `finish` returned is read once the program stops in the caller.
#[derive(Debug, Clone, Copy)]
pub enum ReturnValueSource {
    /// A local of the frame the finish came back to, whose name starts with this (debugpy's
    /// `(return) square`).
    LocalNamed(&'static str),
    /// A scope of that frame with the DAP hint `returnValue` (GDB 14 and later).
    Scope {
        /// Why it is unknown when the adapter gives no such scope (an older version).
        missing: &'static str,
    },
    /// A command of the adapter's console whose answer holds it (lldb's `thread info`), and
    /// how to read it from that answer: `None` when it holds none. The command reads the
    /// selected thread, which `scopes` on the returned-to frame selects first (lldb-dap does).
    Console {
        command: &'static str,
        read: fn(&str) -> Option<ReturnedValue>,
        /// Why it is unknown when the answer holds none.
        missing: &'static str,
    },
    /// The adapter shows none, but the caller can read the results right after the return by
    /// evaluating expressions (Delve: the registers Go's calling convention returns them in),
    /// planned from the function's own listing of its locals, read before it returns.
    Evaluated {
        /// From the names and types of the function's locals: how to read its results, or why
        /// they cannot be read.
        plan: PlanReading,
    },
    /// The adapter cannot tell: why.
    Unknown(&'static str),
}

/// From the names and types of a function's locals (read before it returns): how to read its
/// results, or why they cannot be read.
pub type PlanReading = fn(&[(String, Option<String>)]) -> Result<Box<dyn ResultReading>, String>;

/// A reading of a function's results by evaluations in its caller: given the answers so far,
/// the next expression to evaluate, until it says what the value is.
pub trait ResultReading: Send + Sync {
    fn next(&self, answers: &[String]) -> ReadingStep;
}

/// The next step of a [`ResultReading`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadingStep {
    Evaluate(String),
    /// The value, or why it cannot be told.
    Done(Result<ReturnedValue, String>),
}

/// A value a function returned, as the adapter shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReturnedValue {
    pub value: String,
    pub type_name: Option<String>,
}
