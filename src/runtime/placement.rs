//! Which execution provider ONNX Runtime gave each node of a session.
//!
//! The C API has no call for it; ONNX Runtime says it in its session log, at verbose level,
//! from `VerifyEachNodeIsAssignedToAnEp` (one header per provider, then one line per node, or
//! only `All nodes placed on [EP]` when one provider takes every node). dmlrun reads those lines
//! because a DirectML request whose nodes all land on the CPU must not pass for a DirectML run.

use std::collections::BTreeMap;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::formats::outline::NodeOutline;

/// Placement lines from each session's log, by the session's log id, until the session's
/// builder takes them ([`take_placement`]).
static PLACEMENTS: Mutex<BTreeMap<String, PlacementLog>> = Mutex::new(BTreeMap::new());

/// One line of the session with `log_id`'s log, kept where it says the placement.
pub(crate) fn feed_log(log_id: &str, message: &str) {
    PLACEMENTS.lock().unwrap_or_else(|e| e.into_inner()).entry(log_id.to_string()).or_default().feed(message);
}

/// The node placement ONNX Runtime logged for the session with `log_id`.
pub(crate) fn take_placement(log_id: &str) -> Vec<EpNodes> {
    let log = PLACEMENTS.lock().unwrap_or_else(|e| e.into_inner()).remove(log_id);
    log.map(PlacementLog::finish).unwrap_or_default()
}

/// The function whose log lines carry the placement.
pub const LOG_LOCATION: &str = "VerifyEachNodeIsAssignedToAnEp";

/// The nodes ONNX Runtime placed on one execution provider.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EpNodes {
    pub execution_provider: String,
    pub nodes: usize,
    /// Operator types of the listed nodes, most frequent first (ONNX Runtime lists none when one
    /// provider takes every node).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub op_types: Vec<OpCount>,
    /// The listed nodes by name, `OpType 'name'`, on every provider but DirectML (where a run
    /// asked for DirectML, these are what fell off it), the first [`NAMES_KEPT`].
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub names: Vec<String>,
}

const DML: &str = crate::runtime::plan::DML_PROVIDER;

/// How many nodes of a provider other than DirectML are kept by name.
pub const NAMES_KEPT: usize = 50;

/// Operators ONNX Runtime keeps on the CPU on purpose where they compute shapes (its
/// `GetCpuPreferredNodes`): their place says nothing of DirectML's kernels.
const SHAPE_OPS: &[&str] = &[
    "Shape",
    "Gather",
    "Cast",
    "Unsqueeze",
    "Squeeze",
    "Concat",
    "Slice",
    "Reshape",
    "ConstantOfShape",
    "Range",
    "Equal",
    "Where",
    "Expand",
    "Add",
    "Sub",
    "Mul",
    "Div",
    "Size",
    "ReduceSum",
];

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpCount {
    pub op_type: String,
    pub count: usize,
}

/// Collects one session's placement lines as ONNX Runtime logs them.
#[derive(Debug, Default)]
pub struct PlacementLog {
    providers: Vec<(String, usize, Vec<ListedNode>)>,
}

/// A node as the placement log lists it: its operator type and name.
type ListedNode = (String, String);

impl PlacementLog {
    /// Takes one log message from [`LOG_LOCATION`] (which may hold several lines).
    pub fn feed(&mut self, message: &str) {
        for line in message.lines() {
            if let Some((provider, count)) = parse_header(line) {
                self.providers.push((provider, count, Vec::new()));
            } else if let (Some(node), Some((_, _, ops))) = (parse_node(line), self.providers.last_mut()) {
                ops.push(node);
            }
        }
    }

    /// The placement, in the order ONNX Runtime reported the providers.
    pub fn finish(self) -> Vec<EpNodes> {
        self.providers
            .into_iter()
            .map(|(execution_provider, nodes, listed)| {
                let mut counts: Vec<OpCount> = Vec::new();
                for (op, _) in &listed {
                    match counts.iter_mut().find(|c| &c.op_type == op) {
                        Some(c) => c.count += 1,
                        None => counts.push(OpCount { op_type: op.clone(), count: 1 }),
                    }
                }
                counts.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.op_type.cmp(&b.op_type)));
                let names = match execution_provider == DML {
                    true => Vec::new(),
                    false => listed.iter().take(NAMES_KEPT).map(|(op, name)| format!("{op} '{name}'")).collect(),
                };
                EpNodes { execution_provider, nodes, op_types: counts, names }
            })
            .collect()
    }
}

/// `Node(s) placed on [EP]. Number of nodes: N` or `All nodes placed on [EP]. Number of nodes: N`.
fn parse_header(line: &str) -> Option<(String, usize)> {
    let rest = line.split_once(" placed on [")?.1;
    let (provider, rest) = rest.split_once(']')?;
    let count = rest.split_once("Number of nodes:")?.1.trim().parse().ok()?;
    Some((provider.to_string(), count))
}

/// `  OpType (node name)`: one listed node's operator type and name.
fn parse_node(line: &str) -> Option<(String, String)> {
    let line = line.trim();
    let (op_type, name) = line.split_once(" (")?;
    let valid = !op_type.is_empty() && op_type.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
    let name = name.strip_suffix(')')?;
    valid.then(|| (op_type.to_string(), name.to_string()))
}

/// A node a run asked DirectML for that ran elsewhere: its name and operator, where it ran, and
/// why, wherever that can be known (dmlrun's reading of the node against what DirectML's kernels
/// take; ONNX Runtime's log says where, never why).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OffNode {
    pub node: String,
    pub op_type: String,
    pub execution_provider: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub reason: Option<String>,
    /// A shape computation ONNX Runtime keeps on the CPU on purpose: no loss.
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub harmless: bool,
}

impl OffNode {
    /// Does the model's work (not a shape computation), so its time is the CPU's.
    pub fn works(&self) -> bool {
        !self.harmless
    }
}

/// Every node a DirectML run did not get, in the model's order where ONNX Runtime names them and
/// every node of `model` where it placed them all elsewhere without a list, each with its
/// reason. Empty where DirectML was not asked for (`placement` has no DirectML provider and
/// `directml_asked` is false) or took every node.
pub fn nodes_off_directml(placement: &[EpNodes], model: &[NodeOutline], directml_asked: bool) -> Vec<OffNode> {
    if !directml_asked || placement.is_empty() {
        return Vec::new();
    }
    let by_name: BTreeMap<&str, &NodeOutline> = model.iter().map(|n| (n.name.as_str(), n)).collect();
    let mut off = Vec::new();
    for p in placement.iter().filter(|p| p.execution_provider != DML) {
        // "All nodes placed on [CPU]" lists none: the model's own nodes are those it placed.
        let all_of_them = p.names.is_empty() && !placement.iter().any(|q| q.execution_provider == DML);
        let listed: Vec<(String, String)> = match all_of_them {
            true => model.iter().map(|n| (n.op_type.clone(), n.name.clone())).collect(),
            false => p.names.iter().filter_map(|n| split_name(n)).collect(),
        };
        for (op_type, node) in listed {
            // A node of ONNX Runtime's own making (a fusion) is read by its operator alone.
            let (reason, harmless) = match by_name.get(node.as_str()) {
                Some(outline) => why_node_off_directml(outline),
                None => why_node_off_directml(&NodeOutline { op_type: op_type.clone(), ..NodeOutline::default() }),
            };
            off.push(OffNode { node, op_type, execution_provider: p.execution_provider.clone(), reason, harmless });
        }
    }
    off
}

/// `MatMulNBits 'lm_head'` back to its operator and name.
fn split_name(listed: &str) -> Option<(String, String)> {
    let (op, name) = listed.split_once(" '")?;
    Some((op.to_string(), name.strip_suffix('\'')?.to_string()))
}

/// Why DirectML did not take this node, read from the node against what its kernels take; and
/// whether its place is harmless (a shape computation ONNX Runtime keeps on the CPU on purpose).
pub fn why_node_off_directml(node: &NodeOutline) -> (Option<String>, bool) {
    let given = |i: usize| node.inputs.get(i).is_some_and(|n| !n.is_empty());
    if node.op_type == "MatMulNBits" {
        let (k, block) = (node.int("K"), node.int("block_size"));
        if let (Some(k), Some(block)) = (k, block) {
            if block > 0 && k % block != 0 {
                return (
                    Some(format!(
                        "its K, {k}, is not a whole number of {block}-blocks: DirectML's MatMulNBits takes whole blocks only, so the last block is partial (--dequantize-matmulnbits writes it as a MatMul DirectML runs)"
                    )),
                    false,
                );
            }
        }
        if given(4) {
            return (
                Some("it has a g_idx input, which DirectML's MatMulNBits does not take (--matmulnbits-drop-g-idx where it reorders nothing)".into()),
                false,
            );
        }
        if given(5) {
            return (
                Some("it has a bias input, which DirectML's MatMulNBits does not take (--matmulnbits-bias-add)".into()),
                false,
            );
        }
        // Whole blocks, no g_idx, no bias: what DirectML refused in it is not known here.
        return (None, false);
    }
    if SHAPE_OPS.contains(&node.op_type.as_str()) {
        return (Some("a shape computation ONNX Runtime keeps on the CPU on purpose: harmless".into()), true);
    }
    (why_off_directml(&node.op_type).map(str::to_string), false)
}

/// Why DirectML leaves an operator to the CPU, where that is known.
pub fn why_off_directml(op_type: &str) -> Option<&'static str> {
    match op_type {
        "GatherBlockQuantized" => Some("DirectML has no kernel for it; --dequantize-gather writes it as a Gather"),
        "MatMulNBits" => Some(
            "DirectML's kernel takes whole blocks of K and no bias or g_idx input: K not a whole number of blocks, or such an input",
        ),
        op if op.starts_with("QLinear") || op == "QGemm" || op == "QAttention" => {
            Some("a quantized operator DirectML has no kernel for at these types")
        }
        _ => None,
    }
}

/// Nodes on providers other than `provider`, and the total.
pub fn nodes_elsewhere(placement: &[EpNodes], provider: &str) -> (usize, usize) {
    let total = placement.iter().map(|p| p.nodes).sum();
    let elsewhere = placement.iter().filter(|p| p.execution_provider != provider).map(|p| p.nodes).sum();
    (elsewhere, total)
}

/// What ONNX Runtime placed off DirectML, by operator, and what to do of an operator DirectML is
/// known to have no kernel for: `on CPUExecutionProvider: GatherBlockQuantized 1, Shape 4 (...)`.
/// `None` where every node is on DirectML.
pub fn off_directml(placement: &[EpNodes]) -> Option<String> {
    let off: Vec<&EpNodes> = placement.iter().filter(|p| p.execution_provider != DML).collect();
    if off.is_empty() || off.iter().all(|p| p.nodes == 0) {
        return None;
    }
    let parts: Vec<String> = off
        .iter()
        .map(|p| {
            let ops: Vec<String> = p.op_types.iter().map(|o| format!("{} {}", o.op_type, o.count)).collect();
            match ops.is_empty() {
                true => format!("{} nodes on {}", p.nodes, p.execution_provider),
                false => format!("on {}: {}", p.execution_provider, ops.join(", ")),
            }
        })
        .collect();
    let mut text = parts.join("; ");
    let has = |op: &str| off.iter().any(|p| p.op_types.iter().any(|o| o.op_type == op));
    if has("GatherBlockQuantized") {
        text += " (GatherBlockQuantized, the model builder's quantized embedding, has no DirectML kernel: \
                 --dequantize-gather writes it as a Gather over its float16 table, and dmlrun fix finds that)";
    }
    Some(text)
}

/// One line: `66 nodes on DmlExecutionProvider` or
/// `60 nodes on DmlExecutionProvider, 6 on CPUExecutionProvider (Shape 3, Gather 2, Unsqueeze 1)`.
pub fn describe(placement: &[EpNodes]) -> String {
    let parts: Vec<String> = placement
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let ops: Vec<String> = p.op_types.iter().take(6).map(|o| format!("{} {}", o.op_type, o.count)).collect();
            let more = if p.op_types.len() > 6 { ", …" } else { "" };
            let ops = if ops.is_empty() { String::new() } else { format!(" ({}{more})", ops.join(", ")) };
            let noun = if i == 0 {
                if p.nodes == 1 {
                    " node"
                } else {
                    " nodes"
                }
            } else {
                ""
            };
            format!("{}{noun} on {}{ops}", p.nodes, p.execution_provider)
        })
        .collect();
    parts.join(", ")
}

/// The line a report gives the nodes off DirectML: those doing the model's work grouped by
/// operator and reason, then how many shape computations ONNX Runtime kept on the CPU on purpose.
/// `None` where there are none.
pub fn describe_off_directml(off: &[OffNode]) -> Option<String> {
    let working: Vec<&OffNode> = off.iter().filter(|n| n.works()).collect();
    let harmless = off.len() - working.len();
    let shapes = match harmless {
        0 => String::new(),
        1 => "1 shape computation ONNX Runtime keeps on the CPU on purpose (harmless)".into(),
        n => format!("{n} shape computations ONNX Runtime keeps on the CPU on purpose (harmless)"),
    };
    match (working.is_empty(), shapes.is_empty()) {
        (true, true) => None,
        (true, false) => Some(shapes),
        (false, true) => Some(describe_off(&working, 3)),
        (false, false) => Some(format!("{}; and {shapes}", describe_off(&working, 3))),
    }
}

/// `MatMulNBits 'a', 'b' and 3 more (its K, 48, is not ...); Erf 'e'`: the nodes grouped by
/// operator and reason, at most `shown` names a group.
pub fn describe_off(nodes: &[&OffNode], shown: usize) -> String {
    // (operator, reason) and the names under it, in the order first met.
    type Group<'a> = ((&'a str, Option<&'a str>), Vec<&'a str>);
    let mut groups: Vec<Group<'_>> = Vec::new();
    for node in nodes {
        let key = (node.op_type.as_str(), node.reason.as_deref());
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, names)) => names.push(&node.node),
            None => groups.push((key, vec![&node.node])),
        }
    }
    let parts: Vec<String> = groups
        .iter()
        .map(|((op, why), names)| {
            let mut listed = names.iter().take(shown).map(|n| format!("'{n}'")).collect::<Vec<_>>().join(", ");
            if names.len() > shown {
                listed += &format!(" and {} more", names.len() - shown);
            }
            match why {
                Some(why) => format!("{op} {listed} ({why})"),
                None => format!("{op} {listed} (no reason known: ONNX Runtime's log gives none)"),
            }
        })
        .collect();
    parts.join("; ")
}

/// The warning a DirectML run needs when ONNX Runtime gave DirectML none of its nodes: the CPU
/// execution provider then ran everything, and nothing else would say so (ONNX Runtime warns only
/// about a graph split between providers). Also where DirectML ran the model but ONNX Runtime left
/// nodes that do its work elsewhere (a MatMulNBits with a partial block, an op it has no kernel
/// for): those are named, with the reason where it is known, since their time is the CPU's.
/// `off` is [`nodes_off_directml`]'s list.
pub fn directml_warning(execution_provider: &str, placement: &[EpNodes], off: &[OffNode]) -> Option<String> {
    let (elsewhere, total) = nodes_elsewhere(placement, DML);
    if execution_provider != DML || total == 0 {
        return None;
    }
    let working: Vec<&OffNode> = off.iter().filter(|n| n.works()).collect();
    if elsewhere == total {
        let named = match working.is_empty() {
            true => String::new(),
            false => format!(": {}", describe_off(&working, 3)),
        };
        return Some(format!(
            "DirectML was asked for, but ONNX Runtime placed all {total} nodes on {}, so these results and timings are the CPU's{named}",
            placement.iter().map(|p| p.execution_provider.as_str()).collect::<Vec<_>>().join(" and ")
        ));
    }
    (!working.is_empty()).then(|| {
        format!(
            "DirectML was asked for, but ONNX Runtime left {} node(s) that do the model's work on the CPU, and their time is the CPU's: {}",
            working.len(),
            describe_off(&working, 3)
        )
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn what_is_off_directml_is_named_by_operator_with_the_remedy_for_the_builders_embedding() {
        use super::{off_directml, EpNodes, OpCount};
        let nodes = |ep: &str, ops: &[(&str, usize)]| EpNodes {
            execution_provider: ep.into(),
            nodes: ops.iter().map(|o| o.1).sum(),
            op_types: ops.iter().map(|(op, count)| OpCount { op_type: op.to_string(), count: *count }).collect(),
            names: Vec::new(),
        };
        let all_on_dml = [nodes("DmlExecutionProvider", &[])];
        assert_eq!(off_directml(&all_on_dml), None);
        let builder = [
            nodes("DmlExecutionProvider", &[("MatMulNBits", 169)]),
            nodes("CPUExecutionProvider", &[("GatherBlockQuantized", 1), ("Shape", 4)]),
        ];
        let text = off_directml(&builder).unwrap();
        assert!(
            text.starts_with(
                "on CPUExecutionProvider: GatherBlockQuantized 1, Shape 4 (GatherBlockQuantized, the model builder's"
            ),
            "{text}"
        );
        assert!(text.contains("--dequantize-gather"), "{text}");
        let shapes = [nodes("DmlExecutionProvider", &[]), nodes("CPUExecutionProvider", &[("Shape", 2)])];
        assert_eq!(off_directml(&shapes).unwrap(), "on CPUExecutionProvider: Shape 2");
    }

    use super::*;

    #[test]
    fn one_provider_taking_every_node() {
        let mut log = PlacementLog::default();
        log.feed("Node placements");
        log.feed(" All nodes placed on [CPUExecutionProvider]. Number of nodes: 1");
        let placement = log.finish();
        let want =
            EpNodes { execution_provider: "CPUExecutionProvider".into(), nodes: 1, op_types: vec![], names: vec![] };
        assert_eq!(placement, vec![want]);
        assert_eq!(describe(&placement), "1 node on CPUExecutionProvider");
    }

    #[test]
    fn several_providers_with_their_nodes_in_one_message_or_many() {
        // As ONNX Runtime 1.2x logs it: the node list inside the header's message...
        let mut log = PlacementLog::default();
        log.feed("Node placements");
        log.feed(" Node(s) placed on [DmlExecutionProvider]. Number of nodes: 2\n  DmlFusedNode_0_0 (DmlFusedNode_0_0)\n  Relu (relu_1)\n");
        log.feed(" Node(s) placed on [CPUExecutionProvider]. Number of nodes: 3\n  Shape (shape)\n  Gather (g)\n  Shape (shape_2)\n");
        let in_one = log.finish();
        // ...or one message a line.
        let mut log = PlacementLog::default();
        for line in [
            " Node(s) placed on [DmlExecutionProvider]. Number of nodes: 2",
            "  DmlFusedNode_0_0 (DmlFusedNode_0_0)",
            "  Relu (relu_1)",
            " Node(s) placed on [CPUExecutionProvider]. Number of nodes: 3",
            "  Shape (shape)",
            "  Gather (g)",
            "  Shape (shape_2)",
        ] {
            log.feed(line);
        }
        assert_eq!(log.finish(), in_one);
        assert_eq!(in_one[1].op_types[0], OpCount { op_type: "Shape".into(), count: 2 });
        assert_eq!(
            describe(&in_one),
            "2 nodes on DmlExecutionProvider (DmlFusedNode_0_0 1, Relu 1), 3 on CPUExecutionProvider (Shape 2, Gather 1)"
        );
        let off = nodes_off_directml(&in_one, &[], true);
        assert_eq!(
            describe_off_directml(&off).unwrap(),
            "3 shape computations ONNX Runtime keeps on the CPU on purpose (harmless)"
        );
        assert_eq!(nodes_elsewhere(&in_one, "DmlExecutionProvider"), (3, 5));
    }

    #[test]
    fn the_nodes_off_directml_are_named_with_their_reasons_and_the_shape_ones_told_apart() {
        let mut log = PlacementLog::default();
        log.feed(
            " Node(s) placed on [DmlExecutionProvider]. Number of nodes: 2\n  MatMulNBits (q_proj)\n  Relu (relu_1)\n",
        );
        log.feed(" Node(s) placed on [CPUExecutionProvider]. Number of nodes: 5\n  Shape (shape)\n  MatMulNBits (lm_head)\n  MatMulNBits (gptq)\n  GatherBlockQuantized (embed)\n  Erf (erf)\n");
        let placement = log.finish();
        assert_eq!(placement[0].names, Vec::<String>::new(), "DirectML's own nodes are counted, not named");
        let named = |name: &str, op: &str, inputs: &[&str], ints: &[(&str, i64)]| {
            let mut n = NodeOutline::made(op, inputs, ints);
            n.name = name.into();
            n
        };
        let model = [
            named("lm_head", "MatMulNBits", &["x", "w", "s"], &[("K", 72), ("block_size", 32), ("bits", 4)]),
            named("gptq", "MatMulNBits", &["x", "w", "s", "", "g_idx"], &[("K", 64), ("block_size", 32)]),
            named("erf", "Erf", &["x"], &[]),
        ];
        let off = nodes_off_directml(&placement, &model, true);
        let reasons: Vec<(&str, bool, Option<&str>)> =
            off.iter().map(|n| (n.node.as_str(), n.harmless, n.reason.as_deref())).collect();
        assert_eq!(
            reasons[0],
            ("shape", true, Some("a shape computation ONNX Runtime keeps on the CPU on purpose: harmless"))
        );
        assert!(reasons[1].2.unwrap().starts_with("its K, 72, is not a whole number of 32-blocks"), "{reasons:?}");
        assert!(reasons[2].2.unwrap().starts_with("it has a g_idx input"), "{reasons:?}");
        assert!(reasons[3].2.unwrap().starts_with("DirectML has no kernel for it"), "{reasons:?}");
        assert_eq!(reasons[4], ("erf", false, None));
        let line = describe_off_directml(&off).unwrap();
        assert!(line.contains("Erf 'erf' (no reason known: ONNX Runtime's log gives none)"), "{line}");
        assert!(
            line.ends_with("; and 1 shape computation ONNX Runtime keeps on the CPU on purpose (harmless)"),
            "{line}"
        );
        // A CPU run asked nothing of DirectML: nothing is off it.
        assert!(nodes_off_directml(&placement, &model, false).is_empty());
    }

    #[test]
    fn other_lines_are_ignored() {
        let mut log = PlacementLog::default();
        log.feed("Some nodes were not assigned to the preferred execution providers (e.g. Shape)");
        log.feed("  Relu (relu_1)");
        assert_eq!(log.finish(), vec![]);
    }
}
