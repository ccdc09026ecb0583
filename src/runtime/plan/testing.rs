//! Models and offers the plan's tests share.

use super::*;
use crate::formats::model::{DimInfo, IoInfo};
use crate::runtime::ep_devices::EpDevice;

pub(super) fn model_with_batch() -> ModelInfo {
    ModelInfo {
        inputs: vec![IoInfo {
            kind: Default::default(),
            type_name: None,
            name: "input".into(),
            dtype: Some("float32".into()),
            dims: vec![
                DimInfo { value: None, param: Some("batch".into()), denotation: Some("DATA_BATCH".into()) },
                DimInfo { value: Some(3), param: None, denotation: None },
            ],
        }],
        ..ModelInfo::default()
    }
}

/// An ONNX Runtime offering `names` and no EP devices (the strings live as long as the test).
pub(super) fn providers(names: &[&str]) -> Offered<'static> {
    Offered::providers(Box::leak(names.iter().map(|s| s.to_string()).collect::<Vec<_>>().into_boxed_slice()))
}

pub(super) fn bound(input: &str, shape: &[usize], from: &str) -> BoundShape {
    BoundShape { input: input.into(), shape: shape.to_vec(), from: from.into() }
}

pub(super) fn two_inputs_sharing_batch() -> ModelInfo {
    let dim = |param: &str| DimInfo { param: Some(param.into()), ..DimInfo::default() };
    let io = |name: &str, dims: Vec<DimInfo>| IoInfo {
        kind: Default::default(),
        type_name: None,
        name: name.into(),
        dtype: Some("float32".into()),
        dims,
    };
    ModelInfo {
        inputs: vec![
            io("image", vec![dim("N"), DimInfo { value: Some(3), ..DimInfo::default() }, dim("H"), dim("W")]),
            io("scale", vec![dim("N")]),
        ],
        ..ModelInfo::default()
    }
}

pub(super) fn device(index: usize, ep: &str, library: Option<&str>) -> EpDevice {
    EpDevice {
        index,
        ep_name: ep.into(),
        ep_vendor: "Microsoft".into(),
        hardware_type: crate::runtime::ep_devices::HardwareType::Gpu,
        vendor: "NVIDIA".into(),
        vendor_id: 0x10de,
        device_id: 0x2330,
        metadata: BTreeMap::new(),
        ep_metadata: BTreeMap::new(),
        ep_options: BTreeMap::new(),
        library: library.map(str::to_string),
    }
}
