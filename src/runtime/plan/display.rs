//! The printable plan (`--print-plan`): every setting as it will be applied.

use std::collections::BTreeMap;
use std::fmt;

use super::dims::list_or_none;
use super::{AdapterSelection, DimKey, DimSource, ProviderPlan, SessionPlan, CPU_PROVIDER, DML_PROVIDER};

impl fmt::Display for SessionPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let eps: Vec<String> = self
            .execution_providers
            .iter()
            .map(|p| match p {
                ProviderPlan::DirectML { adapter: AdapterSelection::Index { device_id } } => {
                    format!("{DML_PROVIDER} (device_id {device_id})")
                }
                ProviderPlan::DirectML {
                    adapter: AdapterSelection::Preference { performance_preference, device_filter },
                } => format!(
                    "{DML_PROVIDER} (performance_preference {performance_preference}, device_filter {device_filter})"
                ),
                ProviderPlan::Cpu => CPU_PROVIDER.to_string(),
                ProviderPlan::EpDevice { ep, device, hardware } => format!("{ep} (EP device {device}: {hardware})"),
                ProviderPlan::Policy { policy } => format!(
                    "chosen by ONNX Runtime's {policy} policy among its EP devices when the session is created (the report names them)"
                ),
            })
            .collect();
        writeln!(f, "execution providers : {}", eps.join(" -> "))?;
        writeln!(f, "execution mode      : {}", self.execution_mode)?;
        writeln!(f, "memory pattern      : {}", if self.memory_pattern { "enabled" } else { "disabled" })?;
        writeln!(f, "graph optimisation  : {}", self.optimization_level)?;
        match self.precision {
            super::Precision::Fp32 => writeln!(f, "precision           : as the model is written")?,
            super::Precision::Fp16 => {
                let kept = if self.keep_fp32.is_empty() {
                    String::new()
                } else {
                    format!(" and {}", self.keep_fp32.join(", "))
                };
                writeln!(
                    f,
                    "precision           : float16, inputs and outputs float32 (kept in float32: the defaults{kept})"
                )?
            }
            super::Precision::Int4 | super::Precision::Int8 => {
                let kept = match self.keep_fp32.is_empty() {
                    true => String::new(),
                    false => format!(", kept as written: {}", self.keep_fp32.join(", ")),
                };
                let zero_points = if self.quantization.asymmetric { "asymmetric" } else { "symmetric" };
                writeln!(
                    f,
                    "precision           : {}, weight-only: MatMul weights as MatMulNBits, block {}, {zero_points}, {}{kept}",
                    self.precision,
                    self.quantization.block_size,
                    crate::graph::describe_accuracy_level(self.quantization.accuracy_level)
                )?
            }
        }
        if !self.rewrites.is_empty() {
            let flags: Vec<String> = self.rewrites.iter().map(|r| r.flag()).collect();
            writeln!(
                f,
                "rewrites            : {} (checked against the original on the reference EP)",
                flags.join(", ")
            )?;
        }
        let threads = |t: Option<usize>| t.map_or("default".to_string(), |n| n.to_string());
        writeln!(f, "intra-op threads    : {}", threads(self.intra_op_threads))?;
        writeln!(f, "inter-op threads    : {}", threads(self.inter_op_threads))?;
        let dims: Vec<String> = self
            .dimension_overrides
            .iter()
            .map(|o| {
                let set = match o.by {
                    DimKey::Name => format!("{}={}", o.key, o.value),
                    DimKey::Denotation => format!("denotation {}={}", o.key, o.value),
                };
                match &o.source {
                    DimSource::Requested => set,
                    DimSource::Automatic { .. } | DimSource::Shape { .. } => format!("{set} ({})", o.source.describe()),
                }
            })
            .collect();
        writeln!(f, "dimension overrides : {}", if dims.is_empty() { "none".to_string() } else { dims.join(", ") })?;
        if self.uses_directml() {
            let auto = if self.auto_dims { "on (from the inputs)" } else { "off (--no-auto-dims)" };
            writeln!(f, "automatic dims      : {auto}")?;
        }
        write!(f, "unfixed dimensions  : {}", list_or_none(&self.unfixed_dims))?;
        if !self.unnamed_dims.is_empty() {
            write!(f, "\nunnamed dimensions  : {} (free; ONNX Runtime cannot fix them)", self.unnamed_dims.join(", "))?;
        }
        if !self.input_shapes.is_empty() {
            let shapes: Vec<String> = self
                .input_shapes
                .iter()
                .map(|(name, shape)| {
                    format!("{name}=[{}]", shape.iter().map(usize::to_string).collect::<Vec<_>>().join(", "))
                })
                .collect();
            write!(f, "\ninput shapes        : {}", shapes.join(", "))?;
        }
        let pairs = |m: &BTreeMap<String, String>| m.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>();
        if !self.provider_options.is_empty() {
            write!(f, "\nprovider options    : {}", pairs(&self.provider_options).join(", "))?;
        }
        if !self.session_config.is_empty() {
            write!(f, "\nsession config      : {}", pairs(&self.session_config).join(", "))?;
        }
        if self.uses_directml() {
            let io = if self.io_on_device {
                "on the device (inputs uploaded once, outputs kept in DirectML's memory)"
            } else {
                "host (each run copies inputs to the GPU and outputs back)"
            };
            write!(f, "\ninputs and outputs  : {io}")?;
        }
        Ok(())
    }
}
