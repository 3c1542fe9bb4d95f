//! The generic core of the RVSDG: regions, nodes, their inputs and outputs, and the
//! structural nodes (λ, γ, θ), independent of the operations that live in it (those
//! are a type parameter, [`Operation`]; the SSA IR's are in `ops.rs`), as jlm keeps
//! `rvsdg/` apart from `llvm/`.
//!
//! A **region** has arguments (values that flow in), results (values that flow out)
//! and an unordered set of nodes. A **node** lives in one region; it has inputs, each
//! connected to an [`Origin`] of the same region (an output of another node, or an
//! argument of the region), and outputs. A structural node owns subregions:
//!
//! | kind | inputs | subregions | outputs |
//! |---|---|---|---|
//! | γ (decision) | `[predicate, e1..en]` | arms: args `e1..en`, results `x1..xm` | `x1..xm` |
//! | θ (tail-controlled loop) | `l1..ln` | body: args `l1..ln`, results `[predicate, l1'..ln']` | `l1..ln` |
//! | λ (function) | none | body: args = parameters, results = returns | none |
//!
//! A γ's predicate is a control value of as many alternatives as it has arms; it runs
//! the arm of that number on the entry variables and gives that arm's results. A θ
//! runs its body on the loop variables, then again on the new values while the
//! predicate (alternative 1 of 2) says so; alternative 0 ends the loop, whose outputs
//! are the last values. λs live in the root region; calls name their callee by symbol
//! (so no φ node is needed to tie recursion: the call graph is derived from the names).
//!
//! Everything is stored in arenas with typed indices. Removed nodes and regions stay
//! in their arena, marked dead. Every origin keeps its list of users, so that edges
//! can be followed both ways and values replaced in O(users); every input and result
//! knows its place in that list, so that an edge is removed in O(1) (a value read by
//! thousands of nodes, such as a parameter of a long function, is common).

use cranelift_entity::{EntityRef, PrimaryMap, entity_impl};
use smallvec::SmallVec;

use crate::changes::{ChangeLog, Changes};
use std::fmt::Debug;
use std::hash::Hash;

/// A region.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Region(u32);
entity_impl!(Region, "r");

/// A node.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Node(u32);
entity_impl!(Node, "n");

/// What kind of edge a type carries: the well-formedness rules depend on it.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Kind {
    /// A value: used any number of times.
    Value,
    /// A state (memory, I/O): threads side effects, used linearly.
    State,
    /// A control value of `n` alternatives: the predicate of a γ or θ.
    Control(u32),
}

/// The operations that live in a graph, and their types.
pub trait Operation: Clone + PartialEq + Eq + Hash + Debug {
    /// The type of an edge.
    type Type: Copy + PartialEq + Eq + Hash + Debug;
    /// What a λ carries besides its body (name, signature, linkage...).
    type Lambda: Clone + Debug;
    /// A node's source location (not part of its identity: common node elimination
    /// merges nodes at different locations).
    type Loc: Copy + Default + PartialEq + Debug;

    fn kind(ty: Self::Type) -> Kind;
    /// The type of a control value of `n` alternatives.
    fn control(n: u32) -> Self::Type;
}

/// A producer of a value: output `i` of a node, or argument `i` of a region.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum Origin {
    Out(Node, u32),
    Arg(Region, u32),
}

/// A consumer of a value: input `i` of a node, or result `i` of a region.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum User {
    In(Node, u32),
    Res(Region, u32),
}

/// What reads edges: a node (its inputs) or a region (its results).
#[derive(Copy, Clone, Debug)]
enum Reader {
    Node(Node),
    Region(Region),
}

impl Reader {
    /// The user that edge `i` of the reader is.
    fn user(self, i: usize) -> User {
        match self {
            Reader::Node(n) => User::In(n, i as u32),
            Reader::Region(r) => User::Res(r, i as u32),
        }
    }
}

/// What gives values: a node (its outputs) or a region (its arguments).
#[derive(Copy, Clone, Debug)]
enum Producer {
    Node(Node),
    Region(Region),
}

impl Producer {
    /// Its value number `i`.
    fn origin(self, i: usize) -> Origin {
        match self {
            Producer::Node(n) => Origin::Out(n, i as u32),
            Producer::Region(r) => Origin::Arg(r, i as u32),
        }
    }
}

/// An output of a node or an argument of a region: its type and who uses it.
#[derive(Clone, Debug)]
pub struct Port<T> {
    pub ty: T,
    users: Users,
}

// The lists of a node are stored inline up to the sizes most nodes have (an operation
// reads at most three values and gives one or two, most values have one or two users),
// so that following an edge touches the node's own memory and not a separate
// allocation per list: on functions whose graph outgrows the caches, that is what a
// traversal's time goes to.

/// The edges a node or region reads (its inputs, or its results).
type Edges = SmallVec<[Origin; 3]>;
/// Where each of those edges is in its origin's list of users.
type Slots = SmallVec<[u32; 3]>;
/// Who reads a port.
type Users = SmallVec<[User; 2]>;
/// The values a node or region gives (its outputs, or its arguments).
type Ports<T> = SmallVec<[Port<T>; 1]>;

/// The kind of a node, with its subregions.
#[derive(Clone, Debug)]
pub enum NodeKind<O: Operation> {
    Simple(O),
    Gamma { arms: Vec<Region> },
    Theta { body: Region },
    Lambda { body: Region, info: Box<O::Lambda> },
}

impl<O: Operation> NodeKind<O> {
    pub fn subregions(&self) -> &[Region] {
        match self {
            NodeKind::Simple(_) => &[],
            NodeKind::Gamma { arms } => arms,
            NodeKind::Theta { body } | NodeKind::Lambda { body, .. } => core::slice::from_ref(body),
        }
    }

    pub fn is_structural(&self) -> bool {
        !matches!(self, NodeKind::Simple(_))
    }

    /// Short name: the operation's, or `gamma`, `theta`, `lambda`.
    pub fn label(&self) -> String
    where
        O: std::fmt::Display,
    {
        match self {
            NodeKind::Simple(op) => op.to_string(),
            NodeKind::Gamma { .. } => "gamma".into(),
            NodeKind::Theta { .. } => "theta".into(),
            NodeKind::Lambda { .. } => "lambda".into(),
        }
    }
}

#[derive(Clone, Debug)]
pub struct NodeData<O: Operation> {
    pub kind: NodeKind<O>,
    pub region: Region,
    inputs: Edges,
    outputs: Ports<O::Type>,
    pub loc: O::Loc,
    /// Position of each input in its origin's list of users (for O(1) unlinking).
    input_slots: Slots,
}

#[derive(Clone, Debug)]
pub struct RegionData<T> {
    /// The structural node that owns the region; `None` for the root.
    pub owner: Option<Node>,
    args: Ports<T>,
    results: Edges,
    /// Position of each result in its origin's list of users.
    result_slots: Slots,
    nodes: Vec<Node>,
    alive: bool,
}

/// An RVSDG: a root region holding λs, and every node and region below it.
#[derive(Clone, Debug)]
pub struct Graph<O: Operation> {
    nodes: PrimaryMap<Node, NodeData<O>>,
    /// Each node's position in its region's node list (for O(1) removal), `u32::MAX`
    /// when it is dead; apart from the nodes' data, which is large, so that a
    /// traversal that only needs it (the topological order) stays in cache.
    node_slots: Vec<u32>,
    regions: PrimaryMap<Region, RegionData<O::Type>>,
    root: Region,
    /// The regions changed since [`Graph::take_changes`] last ran.
    changes: ChangeLog,
}

impl<O: Operation> Default for Graph<O> {
    fn default() -> Self {
        Self::new()
    }
}

impl<O: Operation> Graph<O> {
    /// An empty graph: a root region without arguments or results.
    pub fn new() -> Self {
        let mut regions = PrimaryMap::new();
        let root = regions.push(RegionData {
            owner: None,
            args: Ports::new(),
            results: Edges::new(),
            result_slots: Slots::new(),
            nodes: Vec::new(),
            alive: true,
        });
        Graph {
            nodes: PrimaryMap::new(),
            node_slots: Vec::new(),
            regions,
            root,
            changes: ChangeLog::default(),
        }
    }

    pub fn root(&self) -> Region {
        self.root
    }

    // ---- looking ----

    pub fn node(&self, n: Node) -> &NodeData<O> {
        &self.nodes[n]
    }

    pub fn kind(&self, n: Node) -> &NodeKind<O> {
        &self.nodes[n].kind
    }

    pub fn kind_mut(&mut self, n: Node) -> &mut NodeKind<O> {
        self.touch_node(n);
        &mut self.nodes[n].kind
    }

    /// The operation of a simple node.
    pub fn op(&self, n: Node) -> Option<&O> {
        match &self.nodes[n].kind {
            NodeKind::Simple(op) => Some(op),
            _ => None,
        }
    }

    pub fn region(&self, r: Region) -> &RegionData<O::Type> {
        &self.regions[r]
    }

    /// The nodes of a region, in no particular order.
    pub fn nodes(&self, r: Region) -> &[Node] {
        &self.regions[r].nodes
    }

    pub fn is_alive(&self, n: Node) -> bool {
        self.node_slots[n.index()] != u32::MAX
    }

    pub fn region_is_alive(&self, r: Region) -> bool {
        self.regions[r].alive
    }

    /// Number of nodes ever created (the arena's size).
    pub fn node_capacity(&self) -> usize {
        self.nodes.len()
    }

    /// Number of regions ever created.
    pub fn region_capacity(&self) -> usize {
        self.regions.len()
    }

    pub fn inputs(&self, n: Node) -> &[Origin] {
        &self.nodes[n].inputs
    }

    pub fn input(&self, n: Node, i: usize) -> Origin {
        self.nodes[n].inputs[i]
    }

    pub fn num_outputs(&self, n: Node) -> usize {
        self.nodes[n].outputs.len()
    }

    pub fn args(&self, r: Region) -> &[Port<O::Type>] {
        &self.regions[r].args
    }

    pub fn results(&self, r: Region) -> &[Origin] {
        &self.regions[r].results
    }

    /// The node that owns region `r` (`None` for the root).
    pub fn owner(&self, r: Region) -> Option<Node> {
        self.regions[r].owner
    }

    /// The region an origin belongs to.
    pub fn origin_region(&self, o: Origin) -> Region {
        match o {
            Origin::Out(n, _) => self.nodes[n].region,
            Origin::Arg(r, _) => r,
        }
    }

    /// The region a user belongs to.
    pub fn user_region(&self, u: User) -> Region {
        match u {
            User::In(n, _) => self.nodes[n].region,
            User::Res(r, _) => r,
        }
    }

    fn port(&self, o: Origin) -> &Port<O::Type> {
        match o {
            Origin::Out(n, i) => &self.nodes[n].outputs[i as usize],
            Origin::Arg(r, i) => &self.regions[r].args[i as usize],
        }
    }

    fn port_mut(&mut self, o: Origin) -> &mut Port<O::Type> {
        match o {
            Origin::Out(n, i) => {
                self.changes.region(self.nodes[n].region);
                &mut self.nodes[n].outputs[i as usize]
            }
            Origin::Arg(r, i) => {
                self.changes.region(r);
                &mut self.regions[r].args[i as usize]
            }
        }
    }

    pub fn ty(&self, o: Origin) -> O::Type {
        self.port(o).ty
    }

    pub fn users(&self, o: Origin) -> &[User] {
        &self.port(o).users
    }

    pub fn has_users(&self, o: Origin) -> bool {
        !self.port(o).users.is_empty()
    }

    /// What a user reads.
    pub fn origin(&self, u: User) -> Origin {
        match u {
            User::In(n, i) => self.nodes[n].inputs[i as usize],
            User::Res(r, i) => self.regions[r].results[i as usize],
        }
    }

    /// The node that produces `o`, if it is a node's output.
    pub fn producer(&self, o: Origin) -> Option<Node> {
        match o {
            Origin::Out(n, _) => Some(n),
            Origin::Arg(..) => None,
        }
    }

    pub fn outputs(&self, n: Node) -> impl ExactSizeIterator<Item = Origin> + use<O> {
        (0..self.nodes[n].outputs.len() as u32).map(move |i| Origin::Out(n, i))
    }

    pub fn arg_origins(&self, r: Region) -> impl ExactSizeIterator<Item = Origin> + use<O> {
        (0..self.regions[r].args.len() as u32).map(move |i| Origin::Arg(r, i))
    }

    pub fn output_types(&self, n: Node) -> SmallVec<[O::Type; 2]> {
        self.nodes[n].outputs.iter().map(|p| p.ty).collect()
    }

    /// Whether some output of `n` has a user.
    pub fn is_used(&self, n: Node) -> bool {
        self.nodes[n].outputs.iter().any(|p| !p.users.is_empty())
    }

    /// Depth of a region: 0 for the root.
    pub fn depth(&self, mut r: Region) -> usize {
        let mut d = 0;
        while let Some(n) = self.regions[r].owner {
            r = self.nodes[n].region;
            d += 1;
        }
        d
    }

    /// Whether region `inner` is `outer` or nested in it.
    pub fn region_within(&self, mut inner: Region, outer: Region) -> bool {
        loop {
            if inner == outer {
                return true;
            }
            match self.regions[inner].owner {
                Some(n) => inner = self.nodes[n].region,
                None => return false,
            }
        }
    }

    /// The λ whose body contains `r` (directly or nested).
    pub fn enclosing_lambda(&self, mut r: Region) -> Option<Node> {
        while let Some(n) = self.regions[r].owner {
            if matches!(self.nodes[n].kind, NodeKind::Lambda { .. }) {
                return Some(n);
            }
            r = self.nodes[n].region;
        }
        None
    }

    // ---- building ----

    fn add_region(&mut self, owner: Node) -> Region {
        let r = self.regions.push(RegionData {
            owner: Some(owner),
            args: Ports::new(),
            results: Edges::new(),
            result_slots: Slots::new(),
            nodes: Vec::new(),
            alive: true,
        });
        self.changes.region(r);
        r
    }

    fn add_node(&mut self, region: Region, kind: NodeKind<O>, inputs: &[Origin]) -> Node {
        let slot = self.regions[region].nodes.len() as u32;
        let n = self.nodes.push(NodeData {
            kind,
            region,
            inputs: Edges::from_slice(inputs),
            outputs: Ports::new(),
            loc: O::Loc::default(),
            input_slots: SmallVec::from_elem(0, inputs.len()),
        });
        self.node_slots.push(slot);
        self.regions[region].nodes.push(n);
        self.changes.region(region);
        for (i, &o) in inputs.iter().enumerate() {
            debug_assert_eq!(
                self.origin_region(o),
                region,
                "{n}: input {i} from elsewhere"
            );
            self.link(o, User::In(n, i as u32));
        }
        n
    }

    /// A simple node of `op` in `region` on `inputs`, with outputs of `outputs`' types.
    pub fn add_simple(
        &mut self,
        region: Region,
        op: O,
        inputs: &[Origin],
        outputs: &[O::Type],
    ) -> Node {
        let n = self.add_node(region, NodeKind::Simple(op), inputs);
        for &ty in outputs {
            self.add_output(n, ty);
        }
        n
    }

    /// A γ in `region` on `predicate` (a control value of `arms` alternatives) with
    /// `entries` as entry variables: each arm gets them as its arguments. Exit
    /// variables are added with [`Graph::add_gamma_exit`].
    pub fn add_gamma(
        &mut self,
        region: Region,
        predicate: Origin,
        entries: &[Origin],
        arms: usize,
    ) -> Node {
        let mut inputs = Vec::with_capacity(entries.len() + 1);
        inputs.push(predicate);
        inputs.extend_from_slice(entries);
        let n = self.add_node(region, NodeKind::Gamma { arms: Vec::new() }, &inputs);
        let types: Vec<O::Type> = entries.iter().map(|&e| self.ty(e)).collect();
        let regions: Vec<Region> = (0..arms)
            .map(|_| {
                let r = self.add_region(n);
                for &ty in &types {
                    self.add_arg(r, ty);
                }
                r
            })
            .collect();
        self.nodes[n].kind = NodeKind::Gamma { arms: regions };
        n
    }

    /// Adds an arm to a γ: a region whose arguments have the entry variables' types,
    /// without results (the caller adds one per exit variable with
    /// [`Graph::add_result`]). For building a γ arm by arm, as a parser reads it.
    pub fn add_gamma_arm(&mut self, gamma: Node) -> Region {
        assert!(
            matches!(self.nodes[gamma].kind, NodeKind::Gamma { .. }),
            "{gamma} is not a γ"
        );
        let types: Vec<O::Type> = self.nodes[gamma]
            .inputs
            .iter()
            .skip(1)
            .map(|&o| self.ty(o))
            .collect();
        let r = self.add_region(gamma);
        for ty in types {
            self.add_arg(r, ty);
        }
        if let NodeKind::Gamma { arms } = &mut self.nodes[gamma].kind {
            arms.push(r);
        }
        r
    }

    /// Adds an entry variable to a γ: input `origin`, and an argument in every arm.
    /// Returns the arguments (one per arm).
    pub fn add_gamma_entry(&mut self, gamma: Node, origin: Origin) -> Vec<Origin> {
        self.add_input(gamma, origin);
        let ty = self.ty(origin);
        let arms = self.nodes[gamma].kind.subregions().to_vec();
        arms.into_iter().map(|r| self.add_arg(r, ty)).collect()
    }

    /// Adds an exit variable to a γ: `per_arm[i]` is its value in arm `i` (an origin of
    /// that arm). Returns the γ's new output.
    pub fn add_gamma_exit(&mut self, gamma: Node, per_arm: &[Origin]) -> Origin {
        let arms = self.nodes[gamma].kind.subregions().to_vec();
        assert_eq!(arms.len(), per_arm.len(), "{gamma}: one value per arm");
        for (&r, &o) in arms.iter().zip(per_arm) {
            self.add_result(r, o);
        }
        self.add_output(gamma, self.ty(per_arm[0]))
    }

    /// A θ in `region` with loop variables initialised to `inits`. The body's first
    /// result must be set to the predicate ([`Graph::set_theta_predicate`]) and the
    /// others to the next values of the loop variables (all start as the arguments,
    /// i.e. invariant).
    pub fn add_theta(&mut self, region: Region, inits: &[Origin]) -> Node {
        let n = self.add_node(region, NodeKind::Theta { body: Region(0) }, inits);
        let body = self.add_region(n);
        self.nodes[n].kind = NodeKind::Theta { body };
        // a placeholder predicate until the body exists: an argument cannot be a
        // control value, so the verifier rejects it if nobody sets it
        self.regions[body].results.push(Origin::Arg(body, u32::MAX));
        self.regions[body].result_slots.push(u32::MAX);
        for &o in inits {
            let ty = self.ty(o);
            let a = self.add_arg(body, ty);
            self.add_result(body, a);
            self.add_output(n, ty);
        }
        n
    }

    /// Adds a loop variable to a θ. Returns its argument in the body (whose result is
    /// the argument itself until set) and the θ's output.
    pub fn add_theta_var(&mut self, theta: Node, init: Origin) -> (Origin, Origin) {
        let body = self.theta_body(theta);
        self.add_input(theta, init);
        let ty = self.ty(init);
        let a = self.add_arg(body, ty);
        self.add_result(body, a);
        let out = self.add_output(theta, ty);
        (a, out)
    }

    pub fn set_theta_predicate(&mut self, theta: Node, predicate: Origin) {
        let body = self.theta_body(theta);
        self.set_result(body, 0, predicate);
    }

    pub fn theta_body(&self, theta: Node) -> Region {
        match self.nodes[theta].kind {
            NodeKind::Theta { body } => body,
            _ => panic!("{theta} is not a θ"),
        }
    }

    /// A λ in the root region, its body with arguments of `params`' types.
    pub fn add_lambda(&mut self, info: O::Lambda, params: &[O::Type]) -> Node {
        let root = self.root;
        let n = self.add_node(
            root,
            NodeKind::Lambda {
                body: Region(0),
                info: Box::new(info),
            },
            &[],
        );
        let body = self.add_region(n);
        if let NodeKind::Lambda { body: b, .. } = &mut self.nodes[n].kind {
            *b = body;
        }
        for &ty in params {
            self.add_arg(body, ty);
        }
        n
    }

    pub fn lambda_body(&self, lambda: Node) -> Region {
        match self.nodes[lambda].kind {
            NodeKind::Lambda { body, .. } => body,
            _ => panic!("{lambda} is not a λ"),
        }
    }

    pub fn lambda_info(&self, lambda: Node) -> &O::Lambda {
        match &self.nodes[lambda].kind {
            NodeKind::Lambda { info, .. } => info,
            _ => panic!("{lambda} is not a λ"),
        }
    }

    pub fn lambda_info_mut(&mut self, lambda: Node) -> &mut O::Lambda {
        self.touch_node(lambda);
        match &mut self.nodes[lambda].kind {
            NodeKind::Lambda { info, .. } => info,
            _ => panic!("{lambda} is not a λ"),
        }
    }

    /// The λs of the root region.
    pub fn lambdas(&self) -> Vec<Node> {
        self.nodes(self.root)
            .iter()
            .copied()
            .filter(|&n| matches!(self.nodes[n].kind, NodeKind::Lambda { .. }))
            .collect()
    }

    pub fn set_loc(&mut self, n: Node, loc: O::Loc) {
        self.nodes[n].loc = loc;
    }

    pub fn add_arg(&mut self, r: Region, ty: O::Type) -> Origin {
        self.changes.region(r);
        let a = &mut self.regions[r].args;
        a.push(Port {
            ty,
            users: Users::new(),
        });
        Origin::Arg(r, a.len() as u32 - 1)
    }

    pub fn add_result(&mut self, r: Region, o: Origin) -> u32 {
        debug_assert_eq!(self.origin_region(o), r, "result of {r} from elsewhere");
        self.changes.region(r);
        let i = self.regions[r].results.len() as u32;
        self.regions[r].results.push(o);
        self.regions[r].result_slots.push(0);
        self.link(o, User::Res(r, i));
        i
    }

    pub fn add_output(&mut self, n: Node, ty: O::Type) -> Origin {
        self.touch_node(n);
        let outs = &mut self.nodes[n].outputs;
        outs.push(Port {
            ty,
            users: Users::new(),
        });
        Origin::Out(n, outs.len() as u32 - 1)
    }

    pub fn add_input(&mut self, n: Node, o: Origin) -> u32 {
        debug_assert_eq!(self.origin_region(o), self.nodes[n].region);
        self.touch_node(n);
        let i = self.nodes[n].inputs.len() as u32;
        self.nodes[n].inputs.push(o);
        self.nodes[n].input_slots.push(0);
        self.link(o, User::In(n, i));
        i
    }

    // ---- rewiring ----

    /// Where user `u` is in its origin's list of users (for the verifier).
    pub(crate) fn user_slot(&self, u: User) -> u32 {
        match u {
            User::In(n, i) => self.nodes[n].input_slots[i as usize],
            User::Res(r, i) => self.regions[r].result_slots[i as usize],
        }
    }

    fn set_user_slot(&mut self, u: User, k: u32) {
        match u {
            User::In(n, i) => {
                self.changes.region(self.nodes[n].region);
                self.nodes[n].input_slots[i as usize] = k
            }
            User::Res(r, i) => {
                self.changes.region(r);
                self.regions[r].result_slots[i as usize] = k
            }
        }
    }

    /// Adds `u` (whose input or result already reads `o`) to `o`'s users.
    fn link(&mut self, o: Origin, u: User) {
        if let Origin::Arg(_, u32::MAX) = o {
            return self.set_user_slot(u, u32::MAX); // the placeholder predicate of a new θ
        }
        let users = &mut self.port_mut(o).users;
        users.push(u);
        let k = users.len() as u32 - 1;
        self.set_user_slot(u, k);
    }

    /// Takes `u` out of `o`'s users, in O(1): the last user takes its place. `u`'s
    /// input or result must still be in place (its slot is read).
    fn unlink(&mut self, o: Origin, u: User) {
        if let Origin::Arg(_, u32::MAX) = o {
            return; // the placeholder predicate of a new θ
        }
        let k = self.user_slot(u) as usize;
        let users = &mut self.port_mut(o).users;
        debug_assert_eq!(users.get(k), Some(&u), "a user is where its slot says");
        users.swap_remove(k);
        if let Some(&moved) = users.get(k) {
            self.set_user_slot(moved, k as u32);
        }
    }

    /// Renames user `from` (reading `o`) to `to` in `o`'s users, in place; the caller
    /// moves the slot along with the input or result.
    fn rename_user(&mut self, o: Origin, from: User, to: User) {
        if let Origin::Arg(_, u32::MAX) = o {
            return;
        }
        let k = self.user_slot(from) as usize;
        let users = &mut self.port_mut(o).users;
        debug_assert_eq!(users.get(k), Some(&from), "a user is where its slot says");
        users[k] = to;
    }

    /// Takes every input of `n` out of its origin's users and leaves `n` without inputs.
    fn unlink_inputs(&mut self, n: Node) {
        self.retain_edges(Reader::Node(n), |_| false);
    }

    /// Makes user `u` read `o` instead.
    pub fn set_origin(&mut self, u: User, o: Origin) {
        match u {
            User::In(n, i) => self.set_input(n, i as usize, o),
            User::Res(r, i) => self.set_result(r, i as usize, o),
        }
    }

    pub fn set_input(&mut self, n: Node, i: usize, o: Origin) {
        debug_assert_eq!(self.origin_region(o), self.nodes[n].region);
        let old = std::mem::replace(&mut self.nodes[n].inputs[i], o);
        self.unlink(old, User::In(n, i as u32));
        self.link(o, User::In(n, i as u32));
    }

    pub fn set_result(&mut self, r: Region, i: usize, o: Origin) {
        debug_assert_eq!(self.origin_region(o), r);
        let old = std::mem::replace(&mut self.regions[r].results[i], o);
        self.unlink(old, User::Res(r, i as u32));
        self.link(o, User::Res(r, i as u32));
    }

    /// Makes every user of `from` read `to` (same region). Returns how many there were.
    pub fn divert_users(&mut self, from: Origin, to: Origin) -> usize {
        if from == to {
            return 0;
        }
        let users = std::mem::take(&mut self.port_mut(from).users);
        let count = users.len();
        let base = self.port(to).users.len() as u32;
        for (k, &u) in users.iter().enumerate() {
            match u {
                User::In(n, i) => self.nodes[n].inputs[i as usize] = to,
                User::Res(r, i) => self.regions[r].results[i as usize] = to,
            }
            self.set_user_slot(u, base + k as u32);
        }
        self.port_mut(to).users.extend(users);
        count
    }

    /// Removes a node that has no users (and its subregions, recursively).
    pub fn remove_node(&mut self, n: Node) {
        assert!(self.is_alive(n), "{n} is already removed");
        debug_assert!(!self.is_used(n), "{n} still has users");
        for r in self.nodes[n].kind.subregions().to_vec() {
            self.remove_region_contents(r);
            self.regions[r].alive = false;
        }
        self.unlink_inputs(n);
        let region = self.nodes[n].region;
        self.changes.region(region);
        let slot = self.node_slots[n.index()] as usize;
        let list = &mut self.regions[region].nodes;
        list.swap_remove(slot);
        if let Some(&moved) = list.get(slot) {
            self.node_slots[moved.index()] = slot as u32;
        }
        self.node_slots[n.index()] = u32::MAX;
    }

    /// Removes every node of a region (consumers first), leaving its arguments and
    /// results (which stop reading anything only when the region itself goes).
    fn remove_region_contents(&mut self, r: Region) {
        self.retain_edges(Reader::Region(r), |_| false);
        for n in self.topological_order(r).into_iter().rev() {
            self.remove_node(n);
        }
    }

    /// Removes input `i` of a node; later inputs move down by one. (For a γ's entry
    /// variable or a θ's loop variable, use the structural helpers, which keep the
    /// subregions in step.)
    pub fn remove_input(&mut self, n: Node, i: usize) {
        self.retain_inputs(n, |j| j != i);
    }

    /// Removes result `i` of a region; later results move down by one.
    pub fn remove_result(&mut self, r: Region, i: usize) {
        self.retain_results(r, |j| j != i);
    }

    /// Removes output `i` of a node, which must be unused; later outputs move down.
    pub fn remove_output(&mut self, n: Node, i: usize) {
        assert!(
            self.nodes[n].outputs[i].users.is_empty(),
            "{n}: output {i} is used"
        );
        self.touch_node(n);
        self.nodes[n].outputs.remove(i);
        for j in i..self.nodes[n].outputs.len() {
            for u in self.nodes[n].outputs[j].users.clone() {
                let o = Origin::Out(n, j as u32);
                match u {
                    User::In(m, k) => self.nodes[m].inputs[k as usize] = o,
                    User::Res(r, k) => self.regions[r].results[k as usize] = o,
                }
            }
        }
    }

    /// Removes argument `i` of a region, which must be unused; later ones move down.
    pub fn remove_arg(&mut self, r: Region, i: usize) {
        assert!(
            self.regions[r].args[i].users.is_empty(),
            "{r}: argument {i} is used"
        );
        self.changes.region(r);
        self.regions[r].args.remove(i);
        for j in i..self.regions[r].args.len() {
            for u in self.regions[r].args[j].users.clone() {
                let o = Origin::Arg(r, j as u32);
                match u {
                    User::In(m, k) => self.nodes[m].inputs[k as usize] = o,
                    User::Res(q, k) => self.regions[q].results[k as usize] = o,
                }
            }
        }
    }

    /// Keeps the inputs of `n` whose index `keep` accepts, in order, removing the
    /// others: one pass over the inputs, each kept one renamed once at most (removing
    /// many one by one with [`Graph::remove_input`] shifts the later ones each time).
    pub fn retain_inputs(&mut self, n: Node, keep: impl Fn(usize) -> bool) {
        self.retain_edges(Reader::Node(n), keep);
    }

    /// Keeps the results of `r` whose index `keep` accepts (as [`Graph::retain_inputs`]).
    pub fn retain_results(&mut self, r: Region, keep: impl Fn(usize) -> bool) {
        self.retain_edges(Reader::Region(r), keep);
    }

    /// The edges `reader` reads, and their places in their origins' lists of users.
    fn edges_mut(&mut self, reader: Reader) -> (&mut Edges, &mut Slots) {
        match reader {
            Reader::Node(n) => {
                let d = &mut self.nodes[n];
                (&mut d.inputs, &mut d.input_slots)
            }
            Reader::Region(r) => {
                let d = &mut self.regions[r];
                (&mut d.results, &mut d.result_slots)
            }
        }
    }

    /// [`Graph::retain_inputs`] and [`Graph::retain_results`].
    fn retain_edges(&mut self, reader: Reader, keep: impl Fn(usize) -> bool) {
        // first the removed ones go from their origins' lists (their slots, and those
        // of the users moved into their places, stay right while nothing shifts)
        let len = self.edges_mut(reader).0.len();
        if (0..len).all(&keep) {
            return; // unchanged, and not marked so
        }
        let region = match reader {
            Reader::Node(n) => self.nodes[n].region,
            Reader::Region(r) => r,
        };
        self.changes.region(region);
        for i in (0..len).filter(|&i| !keep(i)) {
            let o = self.edges_mut(reader).0[i];
            self.unlink(o, reader.user(i));
        }
        // then the kept ones move down, renamed in place
        let mut j = 0;
        for i in 0..len {
            if !keep(i) {
                continue;
            }
            if j != i {
                let o = self.edges_mut(reader).0[i];
                self.rename_user(o, reader.user(i), reader.user(j));
                let (edges, slots) = self.edges_mut(reader);
                edges[j] = edges[i];
                slots[j] = slots[i];
            }
            j += 1;
        }
        let (edges, slots) = self.edges_mut(reader);
        edges.truncate(j);
        slots.truncate(j);
    }

    /// Keeps the outputs of `n` whose index `keep` accepts; the others must be unused.
    pub fn retain_outputs(&mut self, n: Node, keep: impl Fn(usize) -> bool) {
        self.retain_ports(Producer::Node(n), keep);
    }

    /// Keeps the arguments of `r` whose index `keep` accepts; the others must be unused.
    pub fn retain_args(&mut self, r: Region, keep: impl Fn(usize) -> bool) {
        self.retain_ports(Producer::Region(r), keep);
    }

    /// [`Graph::retain_outputs`] and [`Graph::retain_args`]: the kept ports move down
    /// with their users, whose edges are renumbered (their places stay).
    fn retain_ports(&mut self, producer: Producer, keep: impl Fn(usize) -> bool) {
        if (0..self.ports_mut(producer).len()).all(&keep) {
            return; // unchanged, and not marked so
        }
        match producer {
            Producer::Node(n) => self.touch_node(n),
            Producer::Region(r) => self.changes.region(r),
        }
        let old = std::mem::take(self.ports_mut(producer));
        let mut kept = Ports::with_capacity(old.len());
        for (i, port) in old.into_iter().enumerate() {
            if !keep(i) {
                assert!(port.users.is_empty(), "{producer:?}: port {i} is used");
                continue;
            }
            if kept.len() != i {
                let o = producer.origin(kept.len());
                for &u in &port.users {
                    match u {
                        User::In(m, k) => self.nodes[m].inputs[k as usize] = o,
                        User::Res(q, k) => self.regions[q].results[k as usize] = o,
                    }
                }
            }
            kept.push(port);
        }
        *self.ports_mut(producer) = kept;
    }

    fn ports_mut(&mut self, producer: Producer) -> &mut Ports<O::Type> {
        match producer {
            Producer::Node(n) => &mut self.nodes[n].outputs,
            Producer::Region(r) => &mut self.regions[r].args,
        }
    }

    /// Removes the θ's loop variables whose index `dead` accepts, all at once: their
    /// outputs and arguments must be unused; their results are dropped.
    pub fn remove_theta_vars(&mut self, theta: Node, dead: impl Fn(usize) -> bool) {
        let body = self.theta_body(theta);
        self.retain_results(body, |i| i == 0 || !dead(i - 1));
        self.retain_args(body, |i| !dead(i));
        self.retain_outputs(theta, |i| !dead(i));
        self.retain_inputs(theta, |i| !dead(i));
    }

    /// Removes the γ's exit variables whose index `dead` accepts, all at once: their
    /// outputs must be unused.
    pub fn remove_gamma_exits(&mut self, gamma: Node, dead: impl Fn(usize) -> bool) {
        self.retain_outputs(gamma, |i| !dead(i));
        for r in self.nodes[gamma].kind.subregions().to_vec() {
            self.retain_results(r, |i| !dead(i));
        }
    }

    /// Removes the γ's entry variables whose index `dead` accepts, all at once: their
    /// arguments must be unused in every arm.
    pub fn remove_gamma_entries(&mut self, gamma: Node, dead: impl Fn(usize) -> bool) {
        for r in self.nodes[gamma].kind.subregions().to_vec() {
            self.retain_args(r, |i| !dead(i));
        }
        self.retain_inputs(gamma, |i| i == 0 || !dead(i - 1));
    }

    /// Removes entry variable `k` (input `k + 1`) of a γ, whose arguments must be
    /// unused in every arm.
    pub fn remove_gamma_entry(&mut self, gamma: Node, k: usize) {
        for r in self.nodes[gamma].kind.subregions().to_vec() {
            self.remove_arg(r, k);
        }
        self.remove_input(gamma, k + 1);
    }

    /// Removes exit variable `k` of a γ, whose output must be unused.
    pub fn remove_gamma_exit(&mut self, gamma: Node, k: usize) {
        self.remove_output(gamma, k);
        for r in self.nodes[gamma].kind.subregions().to_vec() {
            self.remove_result(r, k);
        }
    }

    /// Removes loop variable `k` of a θ: its output and its argument must be unused,
    /// and its result is dropped.
    pub fn remove_theta_var(&mut self, theta: Node, k: usize) {
        let body = self.theta_body(theta);
        self.remove_result(body, k + 1);
        self.remove_arg(body, k);
        self.remove_output(theta, k);
        self.remove_input(theta, k);
    }

    /// Moves node `n` (which has no subregion reading outside values other than
    /// through its inputs) into `to`, with its inputs replaced by `inputs` (origins of
    /// `to`). Its outputs keep their users, which the caller rewires first (they must
    /// be in `to`).
    pub fn move_node(&mut self, n: Node, to: Region, inputs: &[Origin]) {
        self.unlink_inputs(n);
        let from = self.nodes[n].region;
        self.changes.region(from);
        self.changes.region(to);
        let slot = self.node_slots[n.index()] as usize;
        let list = &mut self.regions[from].nodes;
        list.swap_remove(slot);
        if let Some(&moved) = list.get(slot) {
            self.node_slots[moved.index()] = slot as u32;
        }
        self.nodes[n].region = to;
        self.node_slots[n.index()] = self.regions[to].nodes.len() as u32;
        self.regions[to].nodes.push(n);
        for &o in inputs {
            self.add_input(n, o);
        }
    }

    // ---- what changed ----

    /// Marks node `n` changed: its region; for a λ (in the root region), its data.
    fn touch_node(&mut self, n: Node) {
        let d = &self.nodes[n];
        if let NodeKind::Lambda { .. } = d.kind {
            self.changes.lambda(n);
        }
        self.changes.region(d.region);
    }

    /// What changed since the last call (or since the graph was made): the regions
    /// whose arguments, results or nodes changed (every method that changes a node, an
    /// edge or a port marks the regions it writes), the λs whose data was handed out
    /// to be changed, and whether the root's list of λs changed.
    pub fn take_changes(&mut self) -> Changes {
        let (regions, lambdas) = self.changes.take();
        let mut changes = Changes::default();
        for r in regions {
            if r == self.root {
                changes.root = true;
            } else if self.region_is_alive(r) {
                changes.regions.push(r); // else removed with its owner, whose region is marked
            }
        }
        changes.regions.sort_unstable();
        changes.lambdas = lambdas.into_iter().filter(|&l| self.is_alive(l)).collect();
        changes.lambdas.sort_unstable();
        changes.lambdas.dedup();
        changes
    }

    // ---- traversal ----

    /// The nodes of a region with every producer before its consumers. Nodes that
    /// form a cycle (an ill-formed graph) are left out; the verifier reports them.
    pub fn topological_order(&self, r: Region) -> Vec<Node> {
        let nodes = &self.regions[r].nodes;
        let len = nodes.len();
        // One pass over the nodes in the order of the region's list (mostly the order
        // they were created in, so that of their memory) gathers what the sort needs
        // into dense arrays indexed by the position in that list: how many inputs each
        // node reads from nodes of the region (`pending`), and each node's consumers
        // (`consumers[first[s]..first[s + 1]]`, a compressed adjacency list). The sort
        // then touches only those: following the graph's own edges would visit the
        // nodes' memory in the order of the dependences, a cache miss per node once a
        // function's graph outgrows the caches.
        let mut pending = vec![0u32; len];
        let mut first: Vec<u32> = Vec::with_capacity(len + 1);
        let mut consumers: Vec<u32> = Vec::with_capacity(len * 2);
        for &n in nodes {
            first.push(consumers.len() as u32);
            for p in &self.nodes[n].outputs {
                for &u in &p.users {
                    // the users of a node's outputs are nodes of its region, or results
                    if let User::In(m, _) = u {
                        let s = self.node_slots[m.index()];
                        consumers.push(s);
                        pending[s as usize] += 1;
                    }
                }
            }
        }
        first.push(consumers.len() as u32);
        // deterministic, and in creation order among the ready ones for readable
        // output: `ready` is a stack, so the lowest number goes last
        let later_first = |a: &u32, b: &u32| nodes[*b as usize].cmp(&nodes[*a as usize]);
        let mut ready: Vec<u32> = (0..len as u32)
            .filter(|&s| pending[s as usize] == 0)
            .collect();
        ready.sort_unstable_by(later_first);
        let mut order = Vec::with_capacity(len);
        while let Some(s) = ready.pop() {
            order.push(nodes[s as usize]);
            let first_new = ready.len();
            for &t in &consumers[first[s as usize] as usize..first[s as usize + 1] as usize] {
                let c = &mut pending[t as usize];
                *c -= 1;
                if *c == 0 {
                    ready.push(t);
                }
            }
            ready[first_new..].sort_unstable_by(later_first);
        }
        order
    }

    /// The nodes that read what `n` gives, directly or through other nodes of its
    /// region (not `n` itself, not nodes inside subregions).
    pub fn dependents(&self, n: Node) -> rustc_hash::FxHashSet<Node> {
        let mut seen = rustc_hash::FxHashSet::default();
        let mut work = vec![n];
        while let Some(m) = work.pop() {
            for o in self.outputs(m) {
                for &u in self.users(o) {
                    if let User::In(k, _) = u
                        && seen.insert(k)
                    {
                        work.push(k);
                    }
                }
            }
        }
        seen
    }

    /// Every region below `r` (included), parents before children.
    pub fn regions_below(&self, r: Region) -> Vec<Region> {
        let mut out = vec![r];
        let mut i = 0;
        while i < out.len() {
            let q = out[i];
            for &n in &self.regions[q].nodes {
                out.extend_from_slice(self.nodes[n].kind.subregions());
            }
            i += 1;
        }
        out
    }

    /// Number of nodes inside `n`'s subregions, nested ones included.
    pub fn count_nodes_inside(&self, n: Node) -> usize {
        self.nodes[n]
            .kind
            .subregions()
            .iter()
            .map(|&r| self.count_nodes(r))
            .sum()
    }

    /// Number of live nodes below `r` (structural nodes count once, plus their
    /// contents).
    pub fn count_nodes(&self, r: Region) -> usize {
        self.regions_below(r)
            .iter()
            .map(|&q| self.regions[q].nodes.len())
            .sum()
    }
}

/// Raw access that can break the invariants the methods above keep: for the tests of
/// the verifier, which build ill-formed graphs on purpose.
#[cfg(test)]
impl<O: Operation> Graph<O> {
    /// The users list of `o`, unchecked.
    pub(crate) fn users_mut(&mut self, o: Origin) -> &mut SmallVec<[User; 2]> {
        &mut self.port_mut(o).users
    }

    /// The list of the nodes of `r`, unchecked.
    pub(crate) fn node_list_mut(&mut self, r: Region) -> &mut Vec<Node> {
        self.changes.region(r);
        &mut self.regions[r].nodes
    }
}
