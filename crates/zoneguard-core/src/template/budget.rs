//! The bound on what one run of a template may read and build. Go sets none: a template of a
//! few hundred bytes can `replace` its way to gigabytes. Every function that reads or builds a
//! string takes what it will use from the run's budget *before* it allocates, and fails the
//! run when the budget cannot pay.
//!
//! A run is synchronous on one thread (gotmpl calls the functions from the thread that
//! executes), so the budget is the thread's, set by [`within`] for the length of one run.

use gotmpl::{TemplateError, Value};
use std::cell::Cell;
use std::fmt::{self, Write};

/// The most the functions of one run may read and build, in bytes: several times what a
/// template needs to write its whole output (at most 1 MiB), and little beside the pod's
/// memory (a run holds at most about twice this, with one run on each worker thread).
pub(super) const MAX_WORK: usize = 8 << 20;

thread_local! {
    /// What the run on this thread may still read and build; nothing outside a run.
    static LEFT: Cell<usize> = const { Cell::new(0) };
    /// Whether the run on this thread was refused for want of budget.
    static SPENT: Cell<bool> = const { Cell::new(false) };
}

/// Runs `run` with a budget of [`MAX_WORK`] on this thread; its result, and whether a
/// function was refused for want of budget.
pub(super) fn within<R>(run: impl FnOnce() -> R) -> (R, bool) {
    let _outer = Scope {
        left: LEFT.replace(MAX_WORK),
        spent: SPENT.replace(false),
    };
    let result = run();
    (result, SPENT.get())
}

/// Restores the budget of an enclosing run (or none) when a run ends, even by unwinding.
struct Scope {
    left: usize,
    spent: bool,
}

impl Drop for Scope {
    fn drop(&mut self) {
        LEFT.set(self.left);
        SPENT.set(self.spent);
    }
}

/// Takes `bytes` from the run's budget for `function`, or refuses them with an error naming
/// the bound (the run then fails, as Go's does on a function's error).
pub(super) fn take(function: &str, bytes: usize) -> Result<(), TemplateError> {
    let left = LEFT.get();
    if bytes > left {
        SPENT.set(true);
        return Err(TemplateError::Exec(format!(
            "{function}: the template would read and build more than {} MiB ({MAX_WORK} bytes) \
             in its functions for this one object, zoneguard's bound on a template's work; \
             names need far less",
            MAX_WORK >> 20
        )));
    }
    LEFT.set(left - bytes);
    Ok(())
}

/// Checks that `bytes` are left for `function`, taking nothing: for a result known only by a
/// bound before it is built (its length is taken once built).
pub(super) fn afford(function: &str, bytes: usize) -> Result<(), TemplateError> {
    let left = LEFT.get();
    take(function, bytes)?;
    LEFT.set(left);
    Ok(())
}

/// The length of `value` as it prints (its `Display`, Go's `%v`), counted without building
/// it, and only as far as one byte more than the run has left (which it then cannot take).
pub(super) fn printed_len(value: &Value) -> usize {
    let cap = LEFT.get();
    let mut count = Count { len: 0, cap };
    match write!(count, "{value}") {
        Ok(()) => count.len,
        Err(fmt::Error) => cap.saturating_add(1),
    }
}

/// A writer that counts what it is given, and refuses past `cap`.
struct Count {
    len: usize,
    cap: usize,
}

impl Write for Count {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.len = self.len.saturating_add(s.len());
        if self.len > self.cap {
            return Err(fmt::Error);
        }
        Ok(())
    }
}
