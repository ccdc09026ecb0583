//! Which execution provider ONNX Runtime gave each node of a session.
//!
//! The C API has no call for it; ONNX Runtime says it in its session log, at verbose level,
//! from `VerifyEachNodeIsAssignedToAnEp` (one header per provider, then one line per node, or
//! only `All nodes placed on [EP]` when one provider takes every node). dmlrun reads those lines
//! because a DirectML request whose nodes all land on the CPU must not pass for a DirectML run.

use std::collections::BTreeMap;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

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

/// The nodes a run asked for DirectML left elsewhere that do the model's work (not the shape
/// computations ONNX Runtime keeps on the CPU on purpose), by name: `MatMulNBits 'lm_head'`.
pub fn working_off_directml(placement: &[EpNodes]) -> Vec<&str> {
    placement
        .iter()
        .filter(|p| p.execution_provider != DML)
        .flat_map(|p| &p.names)
        .filter(|n| !SHAPE_OPS.iter().any(|op| n.split_once(' ').is_some_and(|(o, _)| o == *op)))
        .map(String::as_str)
        .collect()
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

/// `MatMulNBits 'a', MatMulNBits 'b' and 3 more (MatMulNBits: ...)`: at most `shown` names, then
/// the reasons known for their operators.
pub fn name_list(names: &[&str], shown: usize) -> String {
    let mut text = names.iter().take(shown).copied().collect::<Vec<_>>().join(", ");
    if names.len() > shown {
        text += &format!(" and {} more", names.len() - shown);
    }
    let mut ops: Vec<&str> = names.iter().filter_map(|n| n.split_once(' ').map(|(op, _)| op)).collect();
    ops.dedup();
    ops.sort_unstable();
    ops.dedup();
    let reasons: Vec<String> =
        ops.iter().filter_map(|op| why_off_directml(op).map(|why| format!("{op}: {why}"))).collect();
    if !reasons.is_empty() {
        text += &format!(" ({})", reasons.join("; "));
    }
    text
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
    let off: Vec<&str> = match placement.iter().any(|p| p.execution_provider == DML) {
        true => placement.iter().flat_map(|p| &p.names).map(String::as_str).collect(),
        false => Vec::new(),
    };
    match off.is_empty() {
        true => parts.join(", "),
        false => format!("{}; off DirectML: {}", parts.join(", "), name_list(&off, 6)),
    }
}

/// The warning a DirectML run needs when ONNX Runtime gave DirectML none of its nodes: the CPU
/// execution provider then ran everything, and nothing else would say so (ONNX Runtime warns only
/// about a graph split between providers). Also where DirectML ran the model but ONNX Runtime left
/// nodes that do its work on the CPU (a MatMulNBits DirectML's kernel does not take, an op it has
/// no kernel for): those are named, with the reason where it is known, since their time is the
/// CPU's.
pub fn directml_warning(execution_provider: &str, placement: &[EpNodes]) -> Option<String> {
    let (elsewhere, total) = nodes_elsewhere(placement, DML);
    if execution_provider != DML || total == 0 {
        return None;
    }
    let working = working_off_directml(placement);
    if elsewhere == total {
        let named = match working.is_empty() {
            true => String::new(),
            false => format!(": {}", name_list(&working, 8)),
        };
        return Some(format!(
            "DirectML was asked for, but ONNX Runtime placed all {total} nodes on {}: DirectML takes none of \
             this model's operators at these types, so these results and timings are the CPU's{named}",
            placement.iter().map(|p| p.execution_provider.as_str()).collect::<Vec<_>>().join(" and ")
        ));
    }
    (!working.is_empty()).then(|| {
        format!(
            "DirectML was asked for, but ONNX Runtime left {} node(s) that do the model's work on the CPU, and their time is the CPU's: {}",
            working.len(),
            name_list(&working, 8)
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
            "2 nodes on DmlExecutionProvider (DmlFusedNode_0_0 1, Relu 1), 3 on CPUExecutionProvider (Shape 2, Gather 1); \
             off DirectML: Shape 'shape', Gather 'g', Shape 'shape_2'"
        );
        assert_eq!(nodes_elsewhere(&in_one, "DmlExecutionProvider"), (3, 5));
    }

    #[test]
    fn the_nodes_off_directml_are_named_and_those_doing_the_work_told_apart() {
        let mut log = PlacementLog::default();
        log.feed(
            " Node(s) placed on [DmlExecutionProvider]. Number of nodes: 2\n  MatMulNBits (q_proj)\n  Relu (relu_1)\n",
        );
        log.feed(" Node(s) placed on [CPUExecutionProvider]. Number of nodes: 3\n  Shape (shape)\n  MatMulNBits (lm_head)\n  GatherBlockQuantized (embed)\n");
        let placement = log.finish();
        assert_eq!(placement[0].names, Vec::<String>::new(), "DirectML's own nodes are counted, not named");
        assert_eq!(placement[1].names, ["Shape 'shape'", "MatMulNBits 'lm_head'", "GatherBlockQuantized 'embed'"]);
        let working = working_off_directml(&placement);
        assert_eq!(
            working,
            ["MatMulNBits 'lm_head'", "GatherBlockQuantized 'embed'"],
            "Shape is ONNX Runtime's choice"
        );
        let listed = name_list(&working, 1);
        assert!(
            listed.starts_with("MatMulNBits 'lm_head' and 1 more (GatherBlockQuantized: DirectML has no kernel"),
            "{listed}"
        );
        assert!(listed.contains("MatMulNBits: DirectML's kernel takes whole blocks"), "{listed}");
        let line = describe(&placement);
        assert!(line.ends_with("; off DirectML: Shape 'shape', MatMulNBits 'lm_head', GatherBlockQuantized 'embed' (GatherBlockQuantized: DirectML has no kernel for it; --dequantize-gather writes it as a Gather; MatMulNBits: DirectML's kernel takes whole blocks of K and no bias or g_idx input: K not a whole number of blocks, or such an input)"), "{line}");
        // Shape computations alone: nothing doing the work.
        let mut log = PlacementLog::default();
        log.feed(" Node(s) placed on [CPUExecutionProvider]. Number of nodes: 1\n  Shape (shape)\n");
        assert!(working_off_directml(&log.finish()).is_empty());
    }

    #[test]
    fn other_lines_are_ignored() {
        let mut log = PlacementLog::default();
        log.feed("Some nodes were not assigned to the preferred execution providers (e.g. Shape)");
        log.feed("  Relu (relu_1)");
        assert_eq!(log.finish(), vec![]);
    }
}
