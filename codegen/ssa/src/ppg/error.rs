//! Why a CFG cannot get a Predicate Partition Graph: the preconditions of the report
//! (§3.2, Defs 3 and 9, §4.2) that the input breaks.

use std::fmt;

use crate::cfg::Block;

/// A precondition of the PPG construction that the input CFG does not meet.
///
/// Every variant names a block or an edge, so the caller can say where the CFG is
/// wrong; none of them is a bug of the construction.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PpgError {
    /// The designated END is not a block of the graph.
    EndOutOfRange { end: Block, num_blocks: usize },
    /// START does not reach the designated END.
    EndUnreachable(Block),
    /// The designated END has successors (Def 3: END has no out-edge).
    EndHasSuccessors(Block),
    /// A block START reaches has no path to END (Def 9, "reachable" CFG): a block
    /// without successors other than END, or an infinite loop. The lowest such block.
    NoPathToEnd(Block),
    /// The acyclic constructions got a cycle: `from -> to` is a back edge of the
    /// depth-first search from START.
    Cyclic { from: Block, to: Block },
    /// The loop-forest construction (§4.2) got an irreducible CFG: `from -> to`
    /// enters the loop headed by `header` at another block.
    Irreducible {
        from: Block,
        to: Block,
        header: Block,
    },
}

impl fmt::Display for PpgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            PpgError::EndOutOfRange { end, num_blocks } => {
                write!(f, "END {end:?} is outside a graph of {num_blocks} blocks")
            }
            PpgError::EndUnreachable(end) => write!(f, "START does not reach END {end:?}"),
            PpgError::EndHasSuccessors(end) => write!(f, "END {end:?} has successors"),
            PpgError::NoPathToEnd(b) => write!(f, "{b:?} has no path to END"),
            PpgError::Cyclic { from, to } => {
                write!(f, "the edge {from:?} -> {to:?} closes a cycle")
            }
            PpgError::Irreducible { from, to, header } => write!(
                f,
                "irreducible CFG: {from:?} -> {to:?} enters the loop headed by {header:?} \
                 at another block"
            ),
        }
    }
}

impl std::error::Error for PpgError {}
