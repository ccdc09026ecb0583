//! ONNX's `ModelProto` and `GraphProto` read for surgery: every field declared, so nothing is
//! lost when a model is written back, with the messages the surgery does not look into (nodes,
//! initializers, value infos, functions, ...) kept as their encoded bytes. On the wire a
//! sub-message and a `bytes` field are the same length-delimited record, so a node is copied
//! into a new graph byte for byte, attributes and subgraphs included.
//!
//! Field numbers are ONNX's (onnx/onnx.proto, IR version 11).

#![allow(clippy::derive_partial_eq_without_eq)]

use prost::Message;

#[derive(Clone, PartialEq, Message)]
pub struct RawModel {
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
    #[prost(bytes = "vec", optional, tag = "7")]
    pub graph: Option<Vec<u8>>,
    #[prost(bytes = "vec", repeated, tag = "8")]
    pub opset_import: Vec<Vec<u8>>,
    #[prost(bytes = "vec", repeated, tag = "14")]
    pub metadata_props: Vec<Vec<u8>>,
    #[prost(bytes = "vec", repeated, tag = "20")]
    pub training_info: Vec<Vec<u8>>,
    #[prost(bytes = "vec", repeated, tag = "25")]
    pub functions: Vec<Vec<u8>>,
    #[prost(bytes = "vec", repeated, tag = "26")]
    pub configuration: Vec<Vec<u8>>,
}

#[derive(Clone, PartialEq, Message)]
pub struct RawGraph {
    #[prost(bytes = "vec", repeated, tag = "1")]
    pub node: Vec<Vec<u8>>,
    #[prost(string, optional, tag = "2")]
    pub name: Option<String>,
    #[prost(bytes = "vec", repeated, tag = "5")]
    pub initializer: Vec<Vec<u8>>,
    #[prost(string, optional, tag = "10")]
    pub doc_string: Option<String>,
    #[prost(bytes = "vec", repeated, tag = "11")]
    pub input: Vec<Vec<u8>>,
    #[prost(bytes = "vec", repeated, tag = "12")]
    pub output: Vec<Vec<u8>>,
    #[prost(bytes = "vec", repeated, tag = "13")]
    pub value_info: Vec<Vec<u8>>,
    #[prost(bytes = "vec", repeated, tag = "14")]
    pub quantization_annotation: Vec<Vec<u8>>,
    #[prost(bytes = "vec", repeated, tag = "15")]
    pub sparse_initializer: Vec<Vec<u8>>,
    #[prost(bytes = "vec", repeated, tag = "16")]
    pub metadata_props: Vec<Vec<u8>>,
}

/// A subgraph (`If`'s branches, `Loop`'s and `Scan`'s bodies) read for the names it defines and
/// the names it reads, so the names it takes from the enclosing scope are known.
#[derive(Clone, PartialEq, Message)]
pub struct SubgraphView {
    #[prost(message, repeated, tag = "1")]
    pub node: Vec<EditNode>,
    #[prost(message, repeated, tag = "5")]
    pub initializer: Vec<TensorName>,
    #[prost(message, repeated, tag = "11")]
    pub input: Vec<ValueName>,
    #[prost(message, repeated, tag = "15")]
    pub sparse_initializer: Vec<SparseName>,
}

/// A `TensorProto` read for its name alone.
#[derive(Clone, PartialEq, Message)]
pub struct TensorName {
    #[prost(string, optional, tag = "8")]
    pub name: Option<String>,
}

/// A `ValueInfoProto` read for its name alone.
#[derive(Clone, PartialEq, Message)]
pub struct ValueName {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
}

/// `SparseTensorProto`: its `values` (field 1) carry the name.
#[derive(Clone, PartialEq, Message)]
pub struct SparseName {
    #[prost(message, optional, tag = "1")]
    pub values: Option<TensorName>,
}

/// `OperatorSetIdProto`, to name the opset a node's domain runs at.
#[derive(Clone, PartialEq, Message)]
pub struct OpsetView {
    #[prost(string, optional, tag = "1")]
    pub domain: Option<String>,
    #[prost(int64, optional, tag = "2")]
    pub version: Option<i64>,
}

/// A node of the lossless view, as the surgery reads it and the float16 conversion and the
/// quantizer edit it: every field of `NodeProto`, its attributes decoded (their tensors and
/// subgraphs kept as bytes until looked into: `EditAttribute::subgraphs`).
#[derive(Clone, PartialEq, Message)]
pub struct EditNode {
    #[prost(string, repeated, tag = "1")]
    pub input: Vec<String>,
    #[prost(string, repeated, tag = "2")]
    pub output: Vec<String>,
    #[prost(string, optional, tag = "3")]
    pub name: Option<String>,
    #[prost(string, optional, tag = "4")]
    pub op_type: Option<String>,
    #[prost(message, repeated, tag = "5")]
    pub attribute: Vec<EditAttribute>,
    #[prost(string, optional, tag = "6")]
    pub doc_string: Option<String>,
    #[prost(string, optional, tag = "7")]
    pub domain: Option<String>,
    #[prost(string, optional, tag = "8")]
    pub overload: Option<String>,
    #[prost(bytes = "vec", repeated, tag = "9")]
    pub metadata_props: Vec<Vec<u8>>,
    #[prost(bytes = "vec", repeated, tag = "10")]
    pub device_configurations: Vec<Vec<u8>>,
}

/// Every field of `AttributeProto`; tensors, graphs and types as their bytes. Repeated numbers
/// are written unpacked, as ONNX's own writers write proto2 fields.
#[derive(Clone, PartialEq, Message)]
pub struct EditAttribute {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    #[prost(float, optional, tag = "2")]
    pub f: Option<f32>,
    #[prost(int64, optional, tag = "3")]
    pub i: Option<i64>,
    #[prost(bytes = "vec", optional, tag = "4")]
    pub s: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "5")]
    pub t: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "6")]
    pub g: Option<Vec<u8>>,
    #[prost(float, repeated, packed = "false", tag = "7")]
    pub floats: Vec<f32>,
    #[prost(int64, repeated, packed = "false", tag = "8")]
    pub ints: Vec<i64>,
    #[prost(bytes = "vec", repeated, tag = "9")]
    pub strings: Vec<Vec<u8>>,
    #[prost(bytes = "vec", repeated, tag = "10")]
    pub tensors: Vec<Vec<u8>>,
    #[prost(bytes = "vec", repeated, tag = "11")]
    pub graphs: Vec<Vec<u8>>,
    #[prost(string, optional, tag = "13")]
    pub doc_string: Option<String>,
    #[prost(bytes = "vec", optional, tag = "14")]
    pub tp: Option<Vec<u8>>,
    #[prost(bytes = "vec", repeated, tag = "15")]
    pub type_protos: Vec<Vec<u8>>,
    /// AttributeProto.AttributeType: 1 FLOAT, 2 INT, 3 STRING, 4 TENSOR, 5 GRAPH, 6 FLOATS,
    /// 7 INTS, 8 STRINGS, 9 TENSORS, 10 GRAPHS, 11 SPARSE_TENSOR, 13 TYPE_PROTO.
    #[prost(int32, optional, tag = "20")]
    pub r#type: Option<i32>,
    #[prost(string, optional, tag = "21")]
    pub ref_attr_name: Option<String>,
    #[prost(bytes = "vec", optional, tag = "22")]
    pub sparse_tensor: Option<Vec<u8>>,
    #[prost(bytes = "vec", repeated, tag = "23")]
    pub sparse_tensors: Vec<Vec<u8>>,
}

impl EditAttribute {
    /// Its subgraphs (`g`, then `graphs`), decoded for the names they define and read.
    pub fn subgraphs(&self) -> Result<Vec<SubgraphView>, prost::DecodeError> {
        self.g.iter().chain(&self.graphs).map(|g| SubgraphView::decode(g.as_slice())).collect()
    }
}

/// Every field of `TensorProto`, for the float16 conversion to rewrite a tensor's data.
#[derive(Clone, PartialEq, Message)]
pub struct EditTensor {
    #[prost(int64, repeated, packed = "false", tag = "1")]
    pub dims: Vec<i64>,
    #[prost(int32, optional, tag = "2")]
    pub data_type: Option<i32>,
    #[prost(bytes = "vec", optional, tag = "3")]
    pub segment: Option<Vec<u8>>,
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
    #[prost(string, optional, tag = "12")]
    pub doc_string: Option<String>,
    #[prost(bytes = "vec", repeated, tag = "13")]
    pub external_data: Vec<Vec<u8>>,
    #[prost(int32, optional, tag = "14")]
    pub data_location: Option<i32>,
    #[prost(bytes = "vec", repeated, tag = "16")]
    pub metadata_props: Vec<Vec<u8>>,
}

/// An initializer's name and element type, read without its data.
#[derive(Clone, PartialEq, Message)]
pub struct InitializerType {
    #[prost(int32, optional, tag = "2")]
    pub data_type: Option<i32>,
    #[prost(string, optional, tag = "8")]
    pub name: Option<String>,
}
