//! The ONNX TensorProto/SequenceProto/OptionalProto reader used for `.pb` inputs and test data.
#![no_main]

use dmlrun::formats::tensor_proto;
use dmlrun::formats::model::ValueKind;
use libfuzzer_sys::fuzz_target;

const MAX_TENSOR_BYTES: u64 = 64 << 20;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, bytes)) = data.split_first() else { return };
    let kind = match selector % 3 {
        0 => ValueKind::Tensor,
        1 => ValueKind::Sequence,
        _ => ValueKind::Optional,
    };
    let _ = tensor_proto::read_value(bytes, kind, MAX_TENSOR_BYTES);
    if let Ok((name, tensor)) = tensor_proto::read(bytes, MAX_TENSOR_BYTES) {
        let written = tensor_proto::write(&name, &tensor);
        let (_, again) = tensor_proto::read(&written, MAX_TENSOR_BYTES).expect("written TensorProto reads back");
        assert_eq!(again.shape, tensor.shape);
        assert_eq!(again.dtype, tensor.dtype);
    }
});
