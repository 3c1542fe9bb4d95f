//! The text form of the compiler's RVSDG: a printer ([`write_graph`], `Display`) and a
//! parser ([`parse_graph`]). Printing then parsing gives back the same graph, and
//! printing that gives the same text; parsing canonical text (as the printer writes it)
//! and printing gives it back. The syntax follows the SSA IR's (`docs/ir.md` §4): same
//! tokens, comments (`;` to the end of the line), types, signatures, declarations,
//! immediates and source locations; `docs/rvsdg.md` §"Text form" has an example.
//!
//! ```text
//! graph    := item*
//! item     := loc? lambda | node                  ; λs and other nodes of the root region
//! lambda   := 'lambda' SYM sig linkage? inline? 'cold'? '{' decl* region '}'
//! region   := '(' (arg (',' arg)*)? ')' ':' node* '->' '(' uses? ')'
//! arg      := 'aK' ':' type                       ; K = 0, 1, ... in order
//! node     := loc? ('nK' '=')? body
//! body     := 'gamma' use '[' uses? ']' outputs? '{' region* '}'
//!           | 'theta' '[' uses? ']' outputs? '{' region '}'
//!           | op uses? outputs?                   ; the uses on the op's line
//! outputs  := ':' type (',' type)*
//! uses     := use (',' use)*
//! use      := 'nK' | 'nK.i' | 'aK'
//! type     := IR type | 'mem' | 'io' | 'ctlN'
//! op       := OPCODE immediates                   ; `Op::write`: `icmp slt`, `load align 4 +8`,
//!           | 'udiv'|'sdiv'|'urem'|'srem' 'safe'  ;   `call fn0`, `trap 3`, `iconst -1`...
//!           | 'matchN' '[' (INT '->' INT ',')* '_' '->' INT ']'
//!           | 'ctlN' INT
//! loc      := '[' INT ':' INT ':' INT ']'
//! ```
//! `SYM sig linkage inline decl` and `cold` are the IR's, so that a λ's shell
//! (`vliw_ir::Function` without blocks) reads and prints as a function's.
//!
//! **Regions.** A region is written as its arguments, its nodes and its results. A γ
//! has one region per arm, a θ one (its results: the predicate, then the next value of
//! each loop variable), a λ one. The arguments of a γ's arm and of a θ's body are those
//! the graph gives them (the entry or loop variables' types): the parser checks them.
//!
//! **Names.** A node with outputs is `nK` (its outputs `nK.0`, `nK.1`, ... when it has
//! several; `nK.0` is accepted for a single output); a node without outputs has no
//! name. The printer numbers nodes in printing order, from 0 in each λ (the root's other
//! nodes have a numbering of their own); the parser takes any numbers unique in a λ. An
//! argument is `aK`, K its position in its region, so inner regions shadow the names of
//! outer ones: a use always names a node or argument of the region it is in (values
//! enter a region only through its structural node's inputs), so there is no
//! ambiguity.
//!
//! **Order.** Nodes print in a topological order of their region
//! ([`crate::Graph::topological_order`]); the parser wants definitions before uses.
//!
//! **Operations** print as [`crate::Op::write`] writes them, then the inputs in order
//! (values, then states), then the output types. The IR's type suffix (`iconst.i32`) is
//! not written: the output types say it. The parser takes the number of a call's
//! arguments from its inputs (all but the two states).
//!
//! **Checks.** The parser checks what the syntax says twice (region arguments, a θ's
//! output types against its inputs, a θ's number of results, declared `ssN fnN sigN
//! gvN fileN`, `iconst` literals against their type); everything else (operand types,
//! γ results against the outputs...) is the verifier's. Errors are `line:column:
//! message`; no input makes the parser panic, and nesting is bounded.

mod parse;
mod write;

pub use parse::{MAX_DEPTH, parse_graph};
pub use write::{node_names, write_graph};
