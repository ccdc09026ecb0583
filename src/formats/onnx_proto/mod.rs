//! ONNX's protobuf messages (onnx/onnx.proto, field numbers ONNX's), in one home, as two views
//! of the same bytes:
//!
//! - [`header`]: what dmlrun reads of a model without its weights (inputs, outputs, opsets,
//!   node op types, initializer names): the fields it does not declare are skipped unallocated,
//!   so reading a large model's header stays cheap;
//! - [`lossless`]: a model read for rewriting (reduce's extraction, the float16 conversion, the
//!   verified rewrites): every field declared, the messages not looked into kept as their
//!   encoded bytes, so nothing is lost when a model is written back.

pub mod header;
pub mod lossless;

pub use header::*;
