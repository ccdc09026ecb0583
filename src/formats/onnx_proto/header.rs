//! The parts of ONNX's `onnx.proto` (proto2) that dmlrun reads, as `prost` messages.
//!
//! Field numbers are ONNX's. Fields we do not declare (initializer payloads, ...) are skipped by
//! the decoder without being allocated, so reading a large model's header stays cheap. A node is
//! the lossless view's `EditNode` here too (its attributes' tensors and subgraphs as bytes, small
//! beside the weights), so that a node has one decoding, read and edited alike.

#![allow(clippy::derive_partial_eq_without_eq)]

use prost::Message;

#[derive(Clone, PartialEq, Message)]
pub struct StringStringEntryProto {
    #[prost(string, optional, tag = "1")]
    pub key: Option<String>,
    #[prost(string, optional, tag = "2")]
    pub value: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
pub struct TensorProto {
    #[prost(int64, repeated, packed = "false", tag = "1")]
    pub dims: Vec<i64>,
    #[prost(int32, optional, tag = "2")]
    pub data_type: Option<i32>,
    #[prost(float, repeated, tag = "4")]
    pub float_data: Vec<f32>,
    #[prost(int32, repeated, tag = "5")]
    pub int32_data: Vec<i32>,
    #[prost(bytes = "vec", repeated, tag = "6")]
    pub string_data: Vec<Vec<u8>>,
    #[prost(int64, repeated, tag = "7")]
    pub int64_data: Vec<i64>,
    #[prost(string, optional, tag = "8")]
    pub name: Option<String>,
    #[prost(bytes = "vec", optional, tag = "9")]
    pub raw_data: Option<Vec<u8>>,
    #[prost(double, repeated, tag = "10")]
    pub double_data: Vec<f64>,
    #[prost(uint64, repeated, tag = "11")]
    pub uint64_data: Vec<u64>,
    #[prost(message, repeated, tag = "13")]
    pub external_data: Vec<StringStringEntryProto>,
    /// 0 = DEFAULT, 1 = EXTERNAL.
    #[prost(int32, optional, tag = "14")]
    pub data_location: Option<i32>,
}

#[derive(Clone, PartialEq, Message)]
pub struct OperatorSetIdProto {
    #[prost(string, optional, tag = "1")]
    pub domain: Option<String>,
    #[prost(int64, optional, tag = "2")]
    pub version: Option<i64>,
}

#[derive(Clone, PartialEq, Message)]
pub struct Dimension {
    #[prost(int64, optional, tag = "1")]
    pub dim_value: Option<i64>,
    #[prost(string, optional, tag = "2")]
    pub dim_param: Option<String>,
    #[prost(string, optional, tag = "3")]
    pub denotation: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
pub struct TensorShapeProto {
    #[prost(message, repeated, tag = "1")]
    pub dim: Vec<Dimension>,
}

#[derive(Clone, PartialEq, Message)]
pub struct TensorTypeProto {
    #[prost(int32, optional, tag = "1")]
    pub elem_type: Option<i32>,
    #[prost(message, optional, tag = "2")]
    pub shape: Option<TensorShapeProto>,
}

#[derive(Clone, PartialEq, Message)]
pub struct TypeProto {
    #[prost(message, optional, tag = "1")]
    pub tensor_type: Option<TensorTypeProto>,
    #[prost(message, optional, boxed, tag = "4")]
    pub sequence_type: Option<Box<ContainerTypeProto>>,
    #[prost(message, optional, boxed, tag = "5")]
    pub map_type: Option<Box<MapTypeProto>>,
    #[prost(string, optional, tag = "6")]
    pub denotation: Option<String>,
    #[prost(message, optional, boxed, tag = "9")]
    pub optional_type: Option<Box<ContainerTypeProto>>,
}

/// `TypeProto.Sequence` and `TypeProto.Optional`: both hold just the element type.
#[derive(Clone, PartialEq, Message)]
pub struct ContainerTypeProto {
    #[prost(message, optional, boxed, tag = "1")]
    pub elem_type: Option<Box<TypeProto>>,
}

/// `TypeProto.Map`: a key element type and a value type.
#[derive(Clone, PartialEq, Message)]
pub struct MapTypeProto {
    #[prost(int32, optional, tag = "1")]
    pub key_type: Option<i32>,
    #[prost(message, optional, boxed, tag = "2")]
    pub value_type: Option<Box<TypeProto>>,
}

/// ONNX `SequenceProto` (of tensors, or of maps).
#[derive(Clone, PartialEq, Message)]
pub struct SequenceProto {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    /// 1 = tensor, 3 = sequence, 4 = map, 5 = optional.
    #[prost(int32, optional, tag = "2")]
    pub elem_type: Option<i32>,
    #[prost(message, repeated, tag = "3")]
    pub tensor_values: Vec<TensorProto>,
    #[prost(message, repeated, tag = "6")]
    pub map_values: Vec<MapProto>,
}

/// ONNX `MapProto`: keys (integers or strings) and a sequence holding one value per key.
#[derive(Clone, PartialEq, Message)]
pub struct MapProto {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    /// A `TensorProto.DataType` code: an integer type or 8 (string).
    #[prost(int32, optional, tag = "2")]
    pub key_type: Option<i32>,
    #[prost(int64, repeated, tag = "3")]
    pub keys: Vec<i64>,
    #[prost(bytes = "vec", repeated, tag = "4")]
    pub string_keys: Vec<Vec<u8>>,
    #[prost(message, optional, tag = "5")]
    pub values: Option<SequenceProto>,
}

/// ONNX `OptionalProto` (of a tensor or a tensor sequence).
#[derive(Clone, PartialEq, Message)]
pub struct OptionalProto {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    /// 0 = undefined (empty), 1 = tensor, 3 = sequence.
    #[prost(int32, optional, tag = "2")]
    pub elem_type: Option<i32>,
    #[prost(message, optional, tag = "3")]
    pub tensor_value: Option<TensorProto>,
    #[prost(message, optional, tag = "5")]
    pub sequence_value: Option<SequenceProto>,
}

#[derive(Clone, PartialEq, Message)]
pub struct ValueInfoProto {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    #[prost(message, optional, tag = "2")]
    pub r#type: Option<TypeProto>,
    #[prost(string, optional, tag = "3")]
    pub doc_string: Option<String>,
}

impl ValueInfoProto {
    /// A tensor value of `dtype`, with `shape`'s fixed dimensions where given (rank unknown where not).
    pub fn tensor(name: &str, dtype: crate::tensor::DType, shape: Option<&[usize]>) -> ValueInfoProto {
        let dim = |shape: &[usize]| {
            shape.iter().map(|&d| Dimension { dim_value: Some(d as i64), ..Dimension::default() }).collect()
        };
        ValueInfoProto {
            name: Some(name.to_string()),
            r#type: Some(TypeProto {
                tensor_type: Some(TensorTypeProto {
                    elem_type: Some(dtype.onnx_code()),
                    shape: shape.map(|s| TensorShapeProto { dim: dim(s) }),
                }),
                ..TypeProto::default()
            }),
            doc_string: None,
        }
    }
}

#[derive(Clone, PartialEq, Message)]
pub struct GraphProto {
    /// The lossless view's node: one decoding of a node, read and edited alike.
    #[prost(message, repeated, tag = "1")]
    pub node: Vec<super::lossless::EditNode>,
    #[prost(string, optional, tag = "2")]
    pub name: Option<String>,
    /// Only the names: IR 3 models list their initializers among the graph inputs, and ONNX
    /// Runtime does not count those as inputs to feed.
    #[prost(message, repeated, tag = "5")]
    pub initializer: Vec<InitializerName>,
    #[prost(message, repeated, tag = "11")]
    pub input: Vec<ValueInfoProto>,
    #[prost(message, repeated, tag = "12")]
    pub output: Vec<ValueInfoProto>,
}

/// A `TensorProto` read for its name and where its data lives; its payload is skipped, not
/// allocated.
#[derive(Clone, PartialEq, Message)]
pub struct InitializerName {
    #[prost(int64, repeated, packed = "false", tag = "1")]
    pub dims: Vec<i64>,
    #[prost(int32, optional, tag = "2")]
    pub data_type: Option<i32>,
    #[prost(string, optional, tag = "8")]
    pub name: Option<String>,
    /// `location`, `offset`, `length` when the data is in an external file.
    #[prost(message, repeated, tag = "13")]
    pub external_data: Vec<StringStringEntryProto>,
}

#[derive(Clone, PartialEq, Message)]
pub struct ModelProto {
    #[prost(int64, optional, tag = "1")]
    pub ir_version: Option<i64>,
    #[prost(string, optional, tag = "2")]
    pub producer_name: Option<String>,
    #[prost(string, optional, tag = "3")]
    pub producer_version: Option<String>,
    #[prost(string, optional, tag = "4")]
    pub domain: Option<String>,
    #[prost(int64, optional, tag = "5")]
    pub model_version: Option<i64>,
    #[prost(string, optional, tag = "6")]
    pub doc_string: Option<String>,
    #[prost(message, optional, tag = "7")]
    pub graph: Option<GraphProto>,
    #[prost(message, repeated, tag = "8")]
    pub opset_import: Vec<OperatorSetIdProto>,
    #[prost(message, repeated, tag = "14")]
    pub metadata_props: Vec<StringStringEntryProto>,
}

/// A `TensorProto` read for its header: the data (`raw_data`, `float_data`) skipped.
#[derive(Clone, PartialEq, Message)]
pub struct TensorHeader {
    #[prost(int64, repeated, packed = "false", tag = "1")]
    pub dims: Vec<i64>,
    #[prost(int32, optional, tag = "2")]
    pub data_type: Option<i32>,
    #[prost(string, optional, tag = "8")]
    pub name: Option<String>,
    #[prost(message, repeated, tag = "13")]
    pub external_data: Vec<StringStringEntryProto>,
    #[prost(int32, optional, tag = "14")]
    pub data_location: Option<i32>,
}
