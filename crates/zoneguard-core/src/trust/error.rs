//! Why a policy document was refused: what is wrong, and the steps to where it is.

use std::fmt;

/// Why a policy document was refused. Shown as `<where>: <problem>`, e.g.
/// `Statement[1].Condition.StringEquals: expected an object, got a string`, or as the problem
/// alone when the document as a whole is at fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyError {
    /// The steps from the top of the document to the part at fault; none for the whole
    /// document (not JSON, not an object).
    pub at: Vec<Step>,
    pub problem: String,
}

/// One step into a policy document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// A key of the policy language (`Statement`, `Condition`, an operator, a principal
    /// kind), or one written in its place: shown `.Key`, or `Key` first.
    Key(String),
    /// A key the policy language does not have where it stands: shown `.Key`, or `` `Key` ``
    /// first (a bare unknown word would read as part of the sentence).
    Unknown(String),
    /// A condition key, such as `aws:SourceIp`: shown `["aws:SourceIp"]`.
    ConditionKey(String),
    /// An item of a list: shown `[0]`.
    Index(usize),
}

impl PolicyError {
    pub(super) fn new(at: &[Step], problem: impl Into<String>) -> Self {
        Self {
            at: at.to_vec(),
            problem: problem.into(),
        }
    }

    /// An error of the whole document.
    pub(super) fn whole(problem: impl Into<String>) -> Self {
        Self::new(&[], problem)
    }
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.at.is_empty() {
            write!(f, "{}: ", Steps(&self.at))?;
        }
        f.write_str(&self.problem)
    }
}

impl std::error::Error for PolicyError {}

/// Steps shown as errors and statement labels show them: `Statement[1].Condition`.
pub(super) struct Steps<'a>(pub &'a [Step]);

impl fmt::Display for Steps<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, step) in self.0.iter().enumerate() {
            match step {
                Step::Key(k) if i == 0 => write!(f, "{k}")?,
                Step::Unknown(k) if i == 0 => write!(f, "`{k}`")?,
                Step::Key(k) | Step::Unknown(k) => write!(f, ".{k}")?,
                Step::ConditionKey(k) => write!(f, "[{k:?}]")?,
                Step::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

/// `at`, one step further.
pub(super) fn then(at: &[Step], step: Step) -> Vec<Step> {
    let mut steps = at.to_vec();
    steps.push(step);
    steps
}

/// `at`, one key further.
pub(super) fn key(at: &[Step], key: &str) -> Vec<Step> {
    then(at, Step::Key(key.to_owned()))
}
