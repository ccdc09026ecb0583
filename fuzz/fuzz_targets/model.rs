//! The ONNX ModelProto reader dmlrun uses to describe a model (inputs, outputs, symbolic dims,
//! denotations) before ONNX Runtime sees it.
#![no_main]

use dmlrun::formats::model::ModelInfo;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(info) = ModelInfo::from_bytes(data) {
        let _ = info.symbolic_dims();
        let _ = info.dim_denotations();
    }
});
