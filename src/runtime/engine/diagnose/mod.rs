//! When an execution provider fails a model: whose fault it is, and which node.
//!
//! A session that cannot be created or a run that fails on DirectML (or any EP but the CPU)
//! says nothing by itself about whether the model, the inputs or the EP is to blame. So the
//! same model runs on the reference EP (the CPU, or `--compare-ep`) with the same inputs: if it
//! runs there, the EP rejects the model; if it fails there too, the inputs (or the model) are
//! at fault, and only then do input flags make sense as advice. ONNX Runtime names the failing
//! node for a failed run (and for a missing kernel); its inputs' and outputs' shapes come from a
//! reference run with those tensors exposed as outputs. A compile failure names no node:
//! `dmlrun reduce` finds it by bisection.

mod exposed;

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::open::{load, SessionFailure};
use super::runs::{run_to_host_values, PreparedInputs};
use crate::formats::model::ModelInfo;
use crate::graph::Graph;
use crate::inputs::BoundInputs;
use crate::runtime::plan::{EpRequest, PlanRequest, SessionPlan, CPU_PROVIDER};
use crate::runtime::session::BuildStep;
use crate::runtime::Runtime;

use exposed::exposed_values;
pub use exposed::{reference_run, run_exposed, value_text, ReferenceRun};

/// Where the EP failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// Creating the session: ONNX Runtime's partitioning, the EP's compilation.
    SessionCreation,
    /// Running it.
    Run,
}

impl Stage {
    fn words(self) -> &'static str {
        match self {
            Stage::SessionCreation => "at session creation",
            Stage::Run => "at run",
        }
    }
}

/// Who is at fault, as the reference run decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Blame {
    /// The reference EP runs the same model on the same inputs: the EP rejects the model.
    Ep,
    /// The reference EP opens the model but its run fails too: the inputs do not fit.
    Inputs,
    /// The reference EP cannot open the model either.
    Model,
}

/// One tensor a node reads or writes, as a reference run saw it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TensorSeen {
    pub name: String,
    /// `float32 [6, 3, 48, 192]`, or what could be said of a value that is not a tensor.
    pub value: String,
}

/// The node a failure is about.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct NodeDetail {
    pub name: String,
    pub op_type: String,
    pub domain: String,
    pub opset: Option<i64>,
    pub attributes: Vec<String>,
    /// Its inputs and outputs with their types and shapes from the reference run (empty when
    /// the node is inside a subgraph, which a reference run cannot expose).
    pub inputs: Vec<TensorSeen>,
    pub outputs: Vec<TensorSeen>,
    /// The node is not in the main graph (inside an `If`, `Loop` or `Scan` body).
    pub in_subgraph: bool,
    /// For a node in a subgraph: the main graph's node that holds it (`If 'If_0'`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub enclosing: Option<String>,
}

impl NodeDetail {
    /// A main-graph node as the graph has it, its tensors each said by `value_of`.
    pub fn of(graph: &Graph, node: &crate::graph::Node, value_of: impl Fn(&str) -> String) -> NodeDetail {
        let seen = |names: &[String]| -> Vec<TensorSeen> {
            names.iter().filter(|n| !n.is_empty()).map(|n| TensorSeen { name: n.clone(), value: value_of(n) }).collect()
        };
        NodeDetail {
            name: node.name.clone(),
            op_type: node.op_type.clone(),
            domain: node.domain.clone(),
            opset: graph.opset(node),
            attributes: node.attributes.clone(),
            inputs: seen(&node.inputs),
            outputs: seen(&node.outputs),
            in_subgraph: false,
            enclosing: None,
        }
    }

    /// `'Mul@0' (Mul, opset 11; in: x float32 [6, 3, 48, 192], ...; out: ...)`.
    pub fn describe(&self) -> String {
        let mut parts = vec![match self.opset {
            Some(v) if self.domain == "ai.onnx" => format!("{}, opset {v}", self.op_type),
            Some(v) => format!("{}, {} opset {v}", self.op_type, self.domain),
            None => self.op_type.clone(),
        }];
        let list =
            |t: &[TensorSeen]| t.iter().map(|t| format!("{} {}", t.name, t.value)).collect::<Vec<_>>().join(", ");
        if !self.inputs.is_empty() {
            parts.push(format!("in: {}", list(&self.inputs)));
        }
        if !self.outputs.is_empty() {
            parts.push(format!("out: {}", list(&self.outputs)));
        }
        if !self.attributes.is_empty() {
            parts.push(format!("attributes: {}", self.attributes.join(" ")));
        }
        if self.in_subgraph {
            parts.push(match &self.enclosing {
                Some(outer) => format!("inside a subgraph of {outer}"),
                None => "inside a subgraph".to_string(),
            });
        }
        format!("'{}' ({})", self.name, parts.join("; "))
    }
}

/// An execution provider's failure on a model, with the reference run's verdict.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EpFailure {
    pub model: PathBuf,
    /// The EP that failed (`DmlExecutionProvider`).
    pub ep: String,
    /// The EP the same model and inputs ran on to decide the blame.
    pub reference: String,
    pub stage: Stage,
    pub blame: Blame,
    /// ONNX Runtime's message, its source paths shortened to file names.
    pub message: String,
    /// The HRESULT in the message, named (`E_INVALIDARG (0x80070057)`).
    pub hresult: Option<String>,
    pub node: Option<NodeDetail>,
    /// What dmlrun did to the model before this run (`rewritten by --decompose ...`): the
    /// session ran that, and `model` is the user's file it was made from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub made: Option<String>,
    /// The other nodes of the model the EP fused with `node` into the node that failed
    /// (DirectML's `DmlFusedGemm` of a Gemm and its activation).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fused_with: Vec<String>,
    /// The reference's own error, when it failed too.
    pub reference_error: Option<String>,
    /// For `Blame::Inputs`: what dmlrun chose for generated inputs and how to change it.
    pub input_advice: Option<String>,
}

impl EpFailure {
    /// The node the failure is pinned on, with those fused with it: `node_Gemm_26 + node_tanh`.
    pub fn node_names(&self) -> Option<String> {
        let node = self.node.as_ref()?;
        Some(std::iter::once(&node.name).chain(&self.fused_with).cloned().collect::<Vec<_>>().join(" + "))
    }
}

impl fmt::Display for EpFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ep = friendly_ep(&self.ep);
        // The engine names the HRESULT of a failed run already.
        let hresult = self
            .hresult
            .as_ref()
            .filter(|h| !self.message.contains(h.as_str()))
            .map(|h| format!(" [{h}]"))
            .unwrap_or_default();
        let reference = friendly_ep(&self.reference);
        let made = self.made.as_ref().map(|m| format!(" ({m})")).unwrap_or_default();
        match self.blame {
            Blame::Ep => {
                write!(
                    f,
                    "model {}{made}: {ep} rejects this model ({reference} runs it with the same inputs): ",
                    self.model.display()
                )?;
                match &self.node {
                    Some(node) if !self.fused_with.is_empty() => write!(
                        f,
                        "node {} fused with '{}' fails {}",
                        node.describe(),
                        self.fused_with.join("', '"),
                        self.stage.words()
                    )?,
                    Some(node) => write!(f, "node {} fails {}", node.describe(), self.stage.words())?,
                    None => write!(f, "{} fails, naming no node", self.stage.words().trim_start_matches("at "))?,
                }
                write!(f, ": {}{hresult}", self.message)?;
                if self.node.is_none() || self.node.as_ref().is_some_and(|n| n.in_subgraph) {
                    write!(f, ". `dmlrun reduce {}` with the same flags finds the node and writes a minimal model that shows it", self.model.display())?;
                }
                Ok(())
            }
            Blame::Inputs => write!(
                f,
                "model {}{made}: the inputs do not fit the model ({reference} fails on them too: {}){}",
                self.model.display(),
                self.reference_error.as_deref().unwrap_or("?"),
                self.input_advice.as_ref().map(|a| format!("; {a}")).unwrap_or_default()
            ),
            Blame::Model => write!(
                f,
                "model {}{made}: {reference} cannot open this model either ({}), so it is not {ep}'s: {}{hresult}",
                self.model.display(),
                self.reference_error.as_deref().unwrap_or("?"),
                self.message
            ),
        }
    }
}

impl std::error::Error for EpFailure {}

/// `DirectML` for `DmlExecutionProvider`, `the CPU EP` for the CPU's; other names as they are.
fn friendly_ep(name: &str) -> String {
    match name {
        super::super::plan::DML_PROVIDER => "DirectML".to_string(),
        CPU_PROVIDER => "the CPU EP".to_string(),
        other => other.to_string(),
    }
}

/// What failed: which model, on which plan, where.
#[derive(Clone, Copy)]
pub struct Failed<'a> {
    pub model_path: &'a Path,
    pub info: &'a ModelInfo,
    pub plan: &'a SessionPlan,
    pub stage: Stage,
}

/// What a failed session creation or run on `plan` means, decided by a reference run: an
/// [`EpFailure`] (to downcast) when the plan is not the CPU EP's and the inputs are known, the
/// error as it was otherwise (with the generated-input advice, the one place it applies).
pub fn explain(
    runtime: &Runtime,
    failed: &Failed,
    reference: Option<&PlanRequest>,
    main_request: &PlanRequest,
    prepared: &PreparedInputs,
    bound: Option<&BoundInputs>,
    error: anyhow::Error,
) -> anyhow::Error {
    let Failed { model_path, info, plan, stage } = *failed;
    // A run Ctrl-C stopped is nobody's failure, and the reference would be stopped too.
    if crate::interrupt::interrupted() {
        return error;
    }
    let ep = main_ep(plan);
    if ep == CPU_PROVIDER {
        // No other EP to ask: a failed run on generated data gets the advice on its sizes, as
        // before; a model that cannot be loaded is said as it is.
        return match (stage, bound.and_then(BoundInputs::generated_advice)) {
            (Stage::Run, Some(advice)) => error.context(advice),
            _ => error,
        };
    }
    // Only a model the EP could not load is the model's business: an EP that could not start,
    // an option ONNX Runtime refused, graph capture (an option too) or a plugin given options
    // (which it reads at load, where a bad one fails like a model it rejects) are said as they are.
    let message = match (stage, error.downcast_ref::<SessionFailure>()) {
        (Stage::Run, _) => crate::exit::one_line(&error),
        (Stage::SessionCreation, Some(f))
            if f.step == BuildStep::Load && !plan.graph_capture() && !plan.plugin_options_read_at_load() =>
        {
            f.ort_message.clone()
        }
        (Stage::SessionCreation, _) => return error,
    };
    let message = shorten_source_paths(message.trim());
    let reference_request = reference.cloned().unwrap_or_else(|| main_request.reference(EpRequest::Cpu, None));
    let hresult = crate::runtime::adapters::named_hresult_in(&message);
    let (blame, reference_name, reference_error) = match load(runtime, model_path, info, &reference_request) {
        Err(e) => {
            (Blame::Model, requested_ep(&reference_request.ep), Some(shorten_source_paths(&crate::exit::one_line(&e))))
        }
        Ok(mut session) => {
            let name = session.device.execution_provider.clone();
            match run_to_host_values(&mut session.session, prepared) {
                Ok(_) => (Blame::Ep, name, None),
                Err(e) => (Blame::Inputs, name, Some(shorten_source_paths(&crate::exit::one_line(&e)))),
            }
        }
    };
    if reference_name == ep {
        return error;
    }
    let mut named = named_nodes(&message);
    // A node ONNX Runtime made by fusing (DirectML's DmlFusedGemm): the model's own nodes.
    let fused = fused_nodes(&message, model_path);
    if named.is_empty() {
        named.extend(fused.first().map(|name| (None, name.clone())));
    }
    let node = (blame == Blame::Ep && !named.is_empty())
        .then(|| node_detail(runtime, model_path, &reference_request, prepared, &named));
    let input_advice = (blame == Blame::Inputs).then(|| bound.and_then(BoundInputs::generated_advice)).flatten();
    anyhow::Error::new(EpFailure {
        model: model_path.to_path_buf(),
        ep,
        reference: reference_name,
        stage,
        blame,
        message: strip_run_prefix(&message),
        hresult,
        node,
        fused_with: fused.into_iter().skip(1).collect(),
        made: None,
        reference_error,
        input_advice,
    })
}

/// The model's nodes an execution provider fused into the node its message names:
/// `("fused op (#92 'node_Gemm_26') + (#93 'node_tanh')", DmlFusedGemm, ...)` names them, by
/// name where they have one, else by ONNX Runtime's index, which is the node's place in the
/// model's own list when it was read (the fusion runs before ONNX Runtime adds nodes of its own
/// in front of them) and is said as `#N (OP)` from the model, as dmlrun names unnamed nodes.
pub fn fused_nodes(message: &str, model_path: &Path) -> Vec<String> {
    let Some(at) = message.find("fused op (") else { return Vec::new() };
    let mut rest = &message[at + "fused op ".len()..];
    let mut found = Vec::new();
    while let Some(inner) = rest.strip_prefix('(') {
        let Some(end) = inner.find(')') else { break };
        let part = &inner[..end];
        let named = part.split_once('\'').and_then(|(_, n)| n.strip_suffix('\''));
        let index = part
            .strip_prefix('#')
            .and_then(|p| p.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|n| n.parse::<usize>().ok());
        match (named, index) {
            (Some(name), _) if !name.is_empty() => found.push(name.to_string()),
            (_, Some(index)) => found.push(unnamed_node(model_path, index)),
            _ => {}
        }
        rest = inner[end + 1..].trim_start();
        match rest.strip_prefix('+') {
            Some(next) => rest = next.trim_start(),
            None => break,
        }
    }
    found
}

/// `#3 (Tanh)`: the model's node at `index` as dmlrun names an unnamed node.
fn unnamed_node(model_path: &Path, index: usize) -> String {
    Graph::read(model_path)
        .ok()
        .and_then(|g| g.nodes().iter().find(|n| n.index == index).map(|n| n.name.clone()))
        .unwrap_or_else(|| format!("#{index}"))
}

/// The EP a request names, before any session exists.
fn requested_ep(ep: &EpRequest) -> String {
    match ep {
        EpRequest::Cpu | EpRequest::Auto => CPU_PROVIDER.to_string(),
        EpRequest::Dml => super::super::plan::DML_PROVIDER.to_string(),
        other => other.to_string(),
    }
}

/// The EP the plan puts first (a policy's choice is unknown until a session exists: named by the
/// policy).
fn main_ep(plan: &SessionPlan) -> String {
    use crate::runtime::plan::ProviderPlan;
    match plan.execution_providers.first() {
        Some(ProviderPlan::DirectML { .. }) => super::super::plan::DML_PROVIDER.to_string(),
        Some(ProviderPlan::EpDevice { ep, .. }) => ep.clone(),
        Some(ProviderPlan::Policy { policy }) => format!("the EP chosen by policy {policy}"),
        Some(ProviderPlan::Cpu) | None => CPU_PROVIDER.to_string(),
    }
}

/// The nodes ONNX Runtime's message names, outermost first, with their op types where it says
/// them: `... while running If node. Name:'If_0' Status Message: ... while running LSTM node.
/// Name:'.../LSTM' ...` (a failed run, nested in control flow) or `... for Add(14) node with
/// name 'add1'` (no kernel). The last is the node that failed.
pub fn named_nodes(message: &str) -> Vec<(Option<String>, String)> {
    let mut found = Vec::new();
    let mut rest = message;
    while let Some(at) = rest.find(" node. Name:'") {
        let op = rest[..at].rsplit(' ').next().filter(|w| !w.is_empty()).map(str::to_string);
        let start = at + " node. Name:'".len();
        let Some(end) = rest[start..].find('\'') else { break };
        found.push((op, rest[start..start + end].to_string()));
        rest = &rest[start + end..];
    }
    if found.is_empty() {
        if let Some(start) = message.find("node with name '").map(|i| i + "node with name '".len()) {
            if let Some(end) = message[start..].find('\'') {
                let op = message[..start].split(" for ").last().and_then(|s| s.split('(').next()).map(str::to_string);
                found.push((op.filter(|o| !o.contains(' ')), message[start..start + end].to_string()));
            }
        }
    }
    found
}

/// The failing node (the innermost `named`): when it is in the main graph, its op, opset and
/// attributes from the graph and its inputs' and outputs' types and shapes from a reference run
/// with them exposed as outputs; inside a subgraph, what the message says of it and the main
/// graph node that holds it.
fn node_detail(
    runtime: &Runtime,
    model_path: &Path,
    reference: &PlanRequest,
    prepared: &PreparedInputs,
    named: &[(Option<String>, String)],
) -> NodeDetail {
    let graph = Graph::read(model_path).ok();
    let (op, name) = named.last().cloned().unwrap_or_default();
    let Some((graph, node)) = graph.as_ref().and_then(|g| Some((g, g.node_named(&name)?))) else {
        let enclosing = graph.as_ref().and_then(|g| named.iter().find_map(|(_, n)| g.node_named(n)));
        return NodeDetail {
            name,
            op_type: op.unwrap_or_default(),
            domain: String::new(),
            opset: None,
            attributes: Vec::new(),
            inputs: Vec::new(),
            outputs: Vec::new(),
            in_subgraph: true,
            enclosing: enclosing.map(|n| n.label()),
        };
    };
    let tensors: Vec<String> = node.inputs.iter().chain(&node.outputs).filter(|n| !n.is_empty()).cloned().collect();
    let seen: HashMap<String, String> =
        exposed_values(runtime, graph, reference, prepared, &tensors).unwrap_or_default().into_iter().collect();
    NodeDetail::of(graph, node, |name| {
        let value = seen.get(name).map_or("?", String::as_str);
        if graph.is_initializer(name) {
            format!("{value} (initializer)")
        } else {
            value.to_string()
        }
    })
}

/// An error about a model dmlrun made in a temporary folder (a float16 conversion, a rewrite, a
/// copy with its tensors exposed) in the user's terms: every mention of the made file becomes
/// `label`, the user's model and what was done to it. A diagnosis stays one, for its blame.
pub fn say_made_as(error: anyhow::Error, made: &Path, original: &Path, what: &str) -> anyhow::Error {
    let label = format!("{} ({what})", original.display());
    let label = label.as_str();
    let path = made.display().to_string();
    // The made model's own temporary folder is named for it too; a model made beside the original
    // (in the original's folder) leaves the folder's name alone.
    let folder = made.parent().filter(|f| Some(*f) != original.parent()).map(|f| f.display().to_string());
    let rename = |text: &str| {
        let text = text.replace(&path, label);
        match &folder {
            Some(folder) if !folder.is_empty() => text.replace(folder.as_str(), label),
            _ => text,
        }
    };
    if let Some(failure) = error.downcast_ref::<EpFailure>() {
        let mut failure = failure.clone();
        if failure.model == made {
            failure.model = original.to_path_buf();
            failure.made = Some(what.to_string());
        }
        failure.message = rename(&failure.message);
        failure.reference_error = failure.reference_error.as_deref().map(rename);
        return anyhow::Error::new(failure);
    }
    let text = crate::exit::one_line(&error);
    if text.contains(&path) || folder.as_deref().is_some_and(|f| !f.is_empty() && text.contains(f)) {
        return anyhow::anyhow!("{}", rename(&text));
    }
    error
}

/// ONNX Runtime's messages on Windows carry the build machine's source paths and addresses
/// (`D:\a\_work\1\s\onnxruntime\core\providers\dml\...\DmlGraphFusionHelper.cpp(588)\onnxruntime.dll!00007FFB...:`):
/// kept to the file and line (`DmlGraphFusionHelper.cpp(588)`).
pub fn shorten_source_paths(message: &str) -> String {
    message
        .split(' ')
        .map(|word| {
            for ext in [".cpp(", ".cc(", ".h("] {
                let Some(at) = word.find(ext) else { continue };
                let Some(close) = word[at..].find(')').map(|c| at + c + 1) else { continue };
                let start = word[..at].rfind(['\\', '/']).map_or(0, |i| i + 1);
                return word[start..close].to_string();
            }
            word.to_string()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `ONNX Runtime Run failed: ` is the engine's own prefix; the failure says where already.
fn strip_run_prefix(message: &str) -> String {
    message.trim_start_matches("ONNX Runtime Run failed: ").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_nodes_onnx_runtime_names_innermost_last() {
        let some = |s: &str| Some(s.to_string());
        let run = "Non-zero status code returned while running Mul node. Name:'Mul@0' Status Message: bad";
        assert_eq!(named_nodes(run), vec![(some("Mul"), "Mul@0".to_string())]);
        // Silero VAD on DirectML under vkd3d: an LSTM two If's deep.
        let nested = "Non-zero status code returned while running If node. Name:'If_0' Status Message: Non-zero status code returned while running If node. Name:'If_0_then_branch__Inline_0__/decoder/If_1' Status Message: Non-zero status code returned while running LSTM node. Name:'If_0_then_branch__Inline_0__/decoder/rnn/LSTM' Status Message: MLOperatorAuthorImpl.cpp(2508) 80070057";
        let names: Vec<_> = named_nodes(nested).into_iter().map(|(op, n)| (op.unwrap_or_default(), n)).collect();
        assert_eq!(names.len(), 3);
        assert_eq!(names[0], ("If".to_string(), "If_0".to_string()));
        assert_eq!(names[2], ("LSTM".to_string(), "If_0_then_branch__Inline_0__/decoder/rnn/LSTM".to_string()));
        let kernel = "Could not find an implementation for Add(14) node with name 'add_i8'";
        assert_eq!(named_nodes(kernel), vec![(some("Add"), "add_i8".to_string())]);
        assert!(named_nodes("80070057 The parameter is incorrect.").is_empty());
        let fused = "Load model failed: (\"fused op (#92 'node_Gemm_26') + (#93 'node_tanh')\", DmlFusedGemm, \"com.microsoft.dml\", -1) : Node () has input size 2 not in range [min=3, max=3].";
        assert_eq!(fused_nodes(fused, Path::new("none.onnx")), ["node_Gemm_26", "node_tanh"]);
        let unnamed = "(\"fused op (#0) + (#1)\", DmlFusedGemm, \"com.microsoft.dml\", -1)";
        assert_eq!(fused_nodes(unnamed, Path::new("none.onnx")), ["#0", "#1"]);
        assert!(fused_nodes("fused nothing", Path::new("none.onnx")).is_empty());
    }

    #[test]
    fn source_paths_are_cut_to_file_and_line() {
        let m = r"D:\a\_work\1\s\onnxruntime\core\providers\dml\DmlExecutionProvider\src\DmlGraphFusionHelper.cpp(588)\onnxruntime.dll!00007FFBA9B1F3E5: (caller: 00007FFB) Exception(1) tid(1c) 80070057 The parameter is incorrect.";
        assert_eq!(
            shorten_source_paths(m),
            "DmlGraphFusionHelper.cpp(588) (caller: 00007FFB) Exception(1) tid(1c) 80070057 The parameter is incorrect."
        );
        assert_eq!(
            shorten_source_paths("/onnxruntime/core/session/inference_session.cc(123) x"),
            "inference_session.cc(123) x"
        );
    }

    fn failure(blame: Blame, node: Option<NodeDetail>) -> EpFailure {
        EpFailure {
            model: PathBuf::from("m.onnx"),
            ep: "DmlExecutionProvider".into(),
            reference: CPU_PROVIDER.into(),
            stage: Stage::Run,
            blame,
            message: "bad [x]".into(),
            hresult: Some("E_INVALIDARG (0x80070057)".into()),
            node,
            fused_with: Vec::new(),
            made: None,
            reference_error: (blame != Blame::Ep).then(|| "it failed".to_string()),
            input_advice: None,
        }
    }

    #[test]
    fn an_ep_failure_blames_the_ep_and_never_suggests_input_flags() {
        let node = NodeDetail {
            name: "Mul@0".into(),
            op_type: "Mul".into(),
            domain: "ai.onnx".into(),
            opset: Some(11),
            attributes: vec![],
            inputs: vec![TensorSeen { name: "x".into(), value: "float32 [6, 3]".into() }],
            outputs: vec![],
            in_subgraph: false,
            enclosing: None,
        };
        let text = failure(Blame::Ep, Some(node)).to_string();
        assert!(text.starts_with("model m.onnx: DirectML rejects this model (the CPU EP runs it with the same inputs): node 'Mul@0' (Mul, opset 11; in: x float32 [6, 3]) fails at run"), "{text}");
        assert!(text.contains("E_INVALIDARG") && !text.contains("--shape") && !text.contains("reduce"), "{text}");
        let unnamed = failure(Blame::Ep, None).to_string();
        assert!(unnamed.contains("naming no node") && unnamed.contains("dmlrun reduce m.onnx"), "{unnamed}");
        let inputs = failure(Blame::Inputs, None).to_string();
        assert!(
            inputs.contains("the inputs do not fit the model (the CPU EP fails on them too: it failed)"),
            "{inputs}"
        );
    }
}
