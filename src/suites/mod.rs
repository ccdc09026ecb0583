//! Collections of work: ONNX test-data folders (`dmlrun test`) and bench manifests and folders
//! (`dmlrun bench`).

pub mod manifest;
pub mod shard;
mod status;
pub mod testdata;

pub use status::Status;
