//! What the user asked for, after flag parsing and before any decision: the execution provider
//! request (`--ep`), the session settings, and the DirectML choices as typed.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::DML_CONFIG_PREFIX;

/// What the user asked for with `--ep` (and `--compare-ep`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EpRequest {
    /// DirectML when the loaded ONNX Runtime offers it, otherwise the CPU.
    Auto,
    /// DirectML; an error where it is not available.
    Dml,
    /// The CPU execution provider only, whatever plugin libraries are registered.
    Cpu,
    /// An execution provider reached through its EP device (a plugin library's, or one built
    /// in), named by its EP name (`WebGpuExecutionProvider`), that name without
    /// `ExecutionProvider` (`webgpu`), or the name its `--ep-library` was registered under.
    Device(String),
    /// No execution provider named: ONNX Runtime chooses among its EP devices by this policy.
    Policy(DevicePolicy),
}

impl EpRequest {
    /// The request as what it lands on, for reports and for telling two requests apart: `auto`
    /// said as `dml` where DirectML is offered here and `cpu` where not; any other as it is.
    pub fn as_chosen(&self, directml_offered: bool) -> String {
        match self {
            EpRequest::Auto if directml_offered => "dml".into(),
            EpRequest::Auto => "cpu".into(),
            other => other.to_string(),
        }
    }

    /// Whether `self` and `other` land on the same execution provider here (`auto` and `cpu` do
    /// where DirectML is not offered): what reduce refuses and fix warns of as the reference.
    pub fn lands_as(&self, other: &EpRequest, directml_offered: bool) -> bool {
        self.as_chosen(directml_offered).eq_ignore_ascii_case(&other.as_chosen(directml_offered))
    }

    /// `auto`, `dml`, `cpu`, `policy:POLICY`, or an EP name. ONNX Runtime's own names for
    /// DirectML and the CPU mean `dml` and `cpu`, which carry DirectML's rules.
    pub fn parse(text: &str) -> Result<EpRequest, String> {
        let text = text.trim();
        if let Some(policy) = text.strip_prefix("policy:") {
            return DevicePolicy::parse(policy).map(EpRequest::Policy);
        }
        if text.is_empty() {
            return Err("an execution provider is required: auto, dml, cpu, policy:POLICY or an EP name".into());
        }
        Ok(match ep_key(text).as_str() {
            "auto" => EpRequest::Auto,
            "dml" | "directml" => EpRequest::Dml,
            "cpu" => EpRequest::Cpu,
            _ => EpRequest::Device(text.to_string()),
        })
    }
}

/// An EP name as `--ep` matches it: lower case, without `ExecutionProvider`
/// (`OpenVINOExecutionProvider.AUTO` is `openvino.auto`).
pub(super) fn ep_key(name: &str) -> String {
    name.to_ascii_lowercase().replace("executionprovider", "")
}

impl fmt::Display for EpRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EpRequest::Auto => f.write_str("auto"),
            EpRequest::Dml => f.write_str("dml"),
            EpRequest::Cpu => f.write_str("cpu"),
            EpRequest::Device(name) => f.write_str(name),
            EpRequest::Policy(policy) => write!(f, "policy:{policy}"),
        }
    }
}

impl Serialize for EpRequest {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for EpRequest {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        EpRequest::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// ONNX Runtime's EP selection policies (`SessionOptionsSetEpSelectionPolicy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DevicePolicy {
    PreferCpu,
    PreferGpu,
    PreferNpu,
    /// ONNX Runtime 1.22 to 1.31 treat it as prefer-gpu.
    MaxPerformance,
    /// ONNX Runtime 1.22 to 1.31 treat it as prefer-npu.
    MaxEfficiency,
    /// ONNX Runtime 1.22 to 1.31 treat it as prefer-npu.
    MinPower,
}

impl DevicePolicy {
    pub const ALL: [DevicePolicy; 6] = [
        DevicePolicy::PreferCpu,
        DevicePolicy::PreferGpu,
        DevicePolicy::PreferNpu,
        DevicePolicy::MaxPerformance,
        DevicePolicy::MaxEfficiency,
        DevicePolicy::MinPower,
    ];

    pub fn parse(text: &str) -> Result<DevicePolicy, String> {
        DevicePolicy::ALL.into_iter().find(|p| p.to_string() == text.to_ascii_lowercase()).ok_or_else(|| {
            let names: Vec<String> = DevicePolicy::ALL.iter().map(|p| format!("policy:{p}")).collect();
            format!("'policy:{text}' is not a policy; ONNX Runtime's are {}", names.join(", "))
        })
    }
}

impl fmt::Display for DevicePolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DevicePolicy::PreferCpu => "prefer-cpu",
            DevicePolicy::PreferGpu => "prefer-gpu",
            DevicePolicy::PreferNpu => "prefer-npu",
            DevicePolicy::MaxPerformance => "max-performance",
            DevicePolicy::MaxEfficiency => "max-efficiency",
            DevicePolicy::MinPower => "min-power",
        })
    }
}

flag_values!(Precision { Fp32 => "fp32", Fp16 => "fp16", Int4 => "int4", Int8 => "int8" });
flag_values!(PerformancePreference {
    Default => "default",
    HighPerformance => "high-performance",
    MinimumPower => "minimum-power",
});
flag_values!(DeviceFilter { Gpu => "gpu", Npu => "npu", Any => "any" });
flag_values!(ExecutionMode { Sequential => "sequential", Parallel => "parallel" });
flag_values!(OptimizationLevel { Disable => "disable", Basic => "basic", Extended => "extended", All => "all" });
flag_values!(OrtLogLevel { Verbose => "verbose", Info => "info", Warning => "warning", Error => "error", Fatal => "fatal" });
display_as_flag_value!(PerformancePreference, DeviceFilter, ExecutionMode, OptimizationLevel, OrtLogLevel, Precision);

/// What the model computes in (`--precision`): as written, or converted to float16 first.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// As the model is written.
    #[default]
    Fp32,
    /// Float32 initializers and computation converted to float16, inputs and outputs float32.
    Fp16,
    /// Weight-only: MatMul weights quantized block-wise to 4 bits (MatMulNBits).
    Int4,
    /// The same with 8 bits.
    Int8,
}

impl Precision {
    /// The bits of a weight-only precision.
    pub fn weight_bits(self) -> Option<u8> {
        match self {
            Precision::Int4 => Some(4),
            Precision::Int8 => Some(8),
            Precision::Fp32 | Precision::Fp16 => None,
        }
    }
}

/// `--block-size`, `--asymmetric` and `--accuracy-level`: how `--precision int4|int8` quantizes
/// a weight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct WeightQuantization {
    pub block_size: u32,
    pub asymmetric: bool,
    /// `MatMulNBits`' `accuracy_level`: asked with `--accuracy-level`, else chosen by the plan for
    /// its execution provider ([`WeightQuantization::accuracy_level_for`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accuracy_level: Option<u8>,
}

impl Default for WeightQuantization {
    fn default() -> Self {
        // The model builder's and genai's DirectML models: block 32, symmetric.
        WeightQuantization { block_size: 32, asymmetric: false, accuracy_level: None }
    }
}

impl WeightQuantization {
    /// The CPU EP's accuracy level where none was asked: 4, its int8 kernels (the activations
    /// quantized to int8 a block at a time). Without it ONNX Runtime's CPU kernel dequantizes
    /// every weight to float32 on every run: SmolLM2-135M int8 decoded 7x slower than its
    /// float32 form (703 against 99 ms a token), 32 ms with level 4, its perplexity within 0.2%.
    /// Other EPs get no attribute, as ONNX Runtime's quantizer writes it ("not supported by most
    /// EPs"; DirectML's kernel does not read it).
    pub const CPU_ACCURACY_LEVEL: u8 = 4;

    /// The accuracy level a model quantized for these providers is written with.
    pub fn accuracy_level_for(&self, cpu_only: bool) -> Option<u8> {
        self.accuracy_level.or(cpu_only.then_some(Self::CPU_ACCURACY_LEVEL))
    }
}

/// DirectML's `performance_preference` (DXGI GPU preference when no `device_id` is given).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PerformancePreference {
    Default,
    HighPerformance,
    MinimumPower,
}

/// DirectML's `device_filter`: which kinds of adapter it may pick when no `device_id` is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DeviceFilter {
    Gpu,
    Npu,
    Any,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ExecutionMode {
    Sequential,
    Parallel,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OptimizationLevel {
    Disable,
    Basic,
    Extended,
    All,
}

/// How ONNX Runtime's logging is filtered (`--ort-log-level`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OrtLogLevel {
    Verbose,
    Info,
    Warning,
    Error,
    Fatal,
}

/// What the user asked for, after flag parsing and before any decision. Serialised in a
/// model's preflight for isolation children.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanRequest {
    pub ep: EpRequest,
    pub device: Option<u32>,
    pub performance_preference: Option<PerformancePreference>,
    pub device_filter: Option<DeviceFilter>,
    pub execution_mode: Option<ExecutionMode>,
    pub memory_pattern: Option<bool>,
    pub optimization_level: OptimizationLevel,
    pub intra_op_threads: Option<usize>,
    pub inter_op_threads: Option<usize>,
    pub dims: Vec<(String, i64)>,
    pub dim_denotations: Vec<(String, i64)>,
    /// `--shape NAME=D0,D1,...`: one input's whole shape, which also fixes its named free
    /// dimensions and sizes its unnamed ones.
    pub shapes: Vec<(String, Vec<usize>)>,
    pub log_level: OrtLogLevel,
    /// Write ONNX Runtime's per-operator profile with this file prefix.
    #[serde(with = "crate::fsutil::any_path::option")]
    pub profile_prefix: Option<std::path::PathBuf>,
    /// Save the optimised model ONNX Runtime produces to this file.
    #[serde(with = "crate::fsutil::any_path::option")]
    pub optimized_model_path: Option<std::path::PathBuf>,
    /// With DirectML, fix the free dimensions no override fixes from the inputs about to be
    /// bound (`--no-auto-dims` turns this off).
    pub auto_dims: bool,
    /// `--dml-disable-metacommands`: DirectML's `disable_metacommands` provider option.
    pub dml_disable_metacommands: bool,
    /// `--dml-graph-capture`: the session config entry `ep.dml.enable_graph_capture`.
    pub dml_graph_capture: bool,
    /// `--ep-option KEY=VALUE`: DirectML provider options passed through as given.
    pub ep_options: Vec<(String, String)>,
    /// `--session-config KEY=VALUE`: session config entries passed through as given.
    pub session_config: Vec<(String, String)>,
    /// `--io-on-device`: inputs uploaded once to DirectML's memory and outputs left there.
    pub io_on_device: bool,
    /// `--precision`.
    #[serde(default)]
    pub precision: Precision,
    /// `--keep-fp32 OP|NODE`: left in float32 under `--precision fp16`, beside the defaults.
    #[serde(default)]
    pub keep_fp32: Vec<String>,
    /// `--block-size`, `--asymmetric` under `--precision int4|int8`.
    #[serde(default)]
    pub quantization: WeightQuantization,
    /// `--decompose OP`, `--gemm-zero-bias`: the model rewritten before its session.
    #[serde(default)]
    pub rewrites: Vec<crate::graph::Rewrite>,
    /// `generate --decode-rewrite RULE`: a decoder's one-token step runs in a session of its own
    /// whose model is rewritten by these too; the prompt's run keeps the model as `rewrites` make it.
    #[serde(default)]
    pub decode_rewrites: Vec<crate::graph::Rewrite>,
}

impl PlanRequest {
    /// The execution provider and adapter asked for, as they were typed: `--ep dml --device 0`.
    pub fn describe_ep(&self) -> String {
        match self.device {
            Some(device) => format!("--ep {} --device {device}", self.ep),
            None => format!("--ep {}", self.ep),
        }
    }

    /// Where a run held to `reference` (its `--compare-ep` request) compares the EP with itself
    /// here: the same EP (`auto` said as what it chooses), the same options and optimisation
    /// level, and nothing rewritten or converted. Every comparison then passes by construction:
    /// what run, generate and fix warn of once, and reduce refuses. `None` where the comparison
    /// means something; else the sentence to say.
    pub fn compared_with_itself(&self, reference: &PlanRequest, directml_offered: bool) -> Option<String> {
        let same = self.ep.lands_as(&reference.ep, directml_offered)
            && self.session_config == reference.session_config
            && self.ep_options == reference.ep_options
            && self.optimization_level == reference.optimization_level
            && self.precision == Precision::Fp32
            && self.rewrites.is_empty()
            && self.decode_rewrites.is_empty();
        same.then(|| {
            format!(
                "--ep {} and --compare-ep {} are the same execution provider here ({}), with the same options: the comparison checks it against itself and cannot fail; compare with another EP (--compare-ep cpu where DirectML runs) or another --compare-opt-level",
                self.ep,
                reference.ep,
                self.ep.as_chosen(directml_offered)
            )
        })
    }

    /// The request for a `--compare-ep` reference run: the same model settings on `ep`, with
    /// the device choice, profiling and cache writing left to the main run.
    pub fn reference(&self, ep: EpRequest, optimization_level: Option<OptimizationLevel>) -> PlanRequest {
        PlanRequest {
            ep,
            device: None,
            performance_preference: None,
            device_filter: None,
            optimization_level: optimization_level.unwrap_or(self.optimization_level),
            profile_prefix: None,
            optimized_model_path: None,
            dml_disable_metacommands: false,
            dml_graph_capture: false,
            ep_options: Vec::new(),
            // DirectML's own entries do not apply to the reference; ONNX Runtime's do.
            session_config: self
                .session_config
                .iter()
                .filter(|(k, _)| !k.starts_with(DML_CONFIG_PREFIX))
                .cloned()
                .collect(),
            io_on_device: false,
            // The reference runs the model as written: what a float16 or rewritten model is held to.
            precision: Precision::Fp32,
            keep_fp32: Vec::new(),
            quantization: WeightQuantization::default(),
            rewrites: Vec::new(),
            decode_rewrites: Vec::new(),
            ..self.clone()
        }
    }
}

/// `--compare-ep` and what it says of the reference run: its EP, optimisation level, threads.
#[derive(Debug, Clone)]
pub struct ReferenceRequest {
    pub ep: EpRequest,
    pub optimization_level: Option<OptimizationLevel>,
    pub intra_op_threads: Option<usize>,
}

impl ReferenceRequest {
    /// The reference run's request for a model whose own request is `request`.
    pub fn for_request(&self, request: &PlanRequest) -> PlanRequest {
        PlanRequest {
            intra_op_threads: self.intra_op_threads.or(request.intra_op_threads),
            ..request.reference(self.ep.clone(), self.optimization_level)
        }
    }
}

impl Default for PlanRequest {
    fn default() -> Self {
        PlanRequest {
            ep: EpRequest::Auto,
            device: None,
            performance_preference: None,
            device_filter: None,
            execution_mode: None,
            memory_pattern: None,
            optimization_level: OptimizationLevel::All,
            intra_op_threads: None,
            inter_op_threads: None,
            dims: Vec::new(),
            dim_denotations: Vec::new(),
            shapes: Vec::new(),
            log_level: OrtLogLevel::Warning,
            profile_prefix: None,
            optimized_model_path: None,
            auto_dims: true,
            dml_disable_metacommands: false,
            dml_graph_capture: false,
            ep_options: Vec::new(),
            session_config: Vec::new(),
            io_on_device: false,
            precision: Precision::Fp32,
            keep_fp32: Vec::new(),
            quantization: WeightQuantization::default(),
            rewrites: Vec::new(),
            decode_rewrites: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ep_names_parse_to_what_they_mean() {
        assert_eq!(EpRequest::parse("CPUExecutionProvider"), Ok(EpRequest::Cpu));
        assert_eq!(EpRequest::parse("DmlExecutionProvider"), Ok(EpRequest::Dml));
        assert_eq!(EpRequest::parse("webgpu"), Ok(EpRequest::Device("webgpu".into())));
        assert_eq!(EpRequest::parse("policy:max-performance"), Ok(EpRequest::Policy(DevicePolicy::MaxPerformance)));
        assert!(EpRequest::parse("policy:fastest").unwrap_err().contains("policy:prefer-gpu"));
        assert!(EpRequest::parse(" ").is_err());
        for text in ["auto", "dml", "cpu", "policy:min-power", "WebGpuExecutionProvider"] {
            assert_eq!(EpRequest::parse(text).unwrap().to_string(), text);
        }
    }
}
