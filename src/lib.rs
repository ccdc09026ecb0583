//! dmlrun: run, validate and benchmark ONNX models on ONNX Runtime, DirectML first.
//!
//! The binary is a thin shell over this library (see `main.rs`); the library is what tests and
//! fuzz targets exercise.

pub mod cli;
pub mod commands;
pub mod compare;
pub mod exit;
pub mod fsutil;
pub mod inputs;
pub mod interrupt;
pub mod manifest;
pub mod model;
pub mod onnx_proto;
pub mod outputs;
pub mod profile;
pub mod progress;
pub mod report;
pub mod runtime;
pub mod settings;
pub mod stats;
pub mod stdio;
pub mod sysinfo;
pub mod tensor;
pub mod testdata;
