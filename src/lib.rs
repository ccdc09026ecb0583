//! dmlrun: run, validate and benchmark ONNX models on ONNX Runtime, DirectML first.
//!
//! The binary is a thin shell over this library (see `main.rs`); the library is what tests and
//! fuzz targets exercise.

pub mod cli;
pub mod commands;
pub(crate) mod compare;
pub mod exit;
pub mod formats;
pub(crate) mod fsutil;
pub mod generate;
pub(crate) mod graph;
pub(crate) mod inputs;
pub mod interrupt;
pub(crate) mod isolation;
pub(crate) mod outputs;
pub(crate) mod progress;
pub(crate) mod reduce;
pub(crate) mod report;
pub(crate) mod runtime;
pub(crate) mod settings;
pub(crate) mod stage;
pub(crate) mod stats;
pub mod stdio;
pub mod suites;
pub(crate) mod sysinfo;
pub mod tensor;
