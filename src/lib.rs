//! dmlrun: run, validate and benchmark ONNX models on ONNX Runtime, DirectML first.
//!
//! The binary is a thin shell over this library (see `main.rs`); the library is what tests and
//! fuzz targets exercise.

/// Displays a flag value type as the command line spells it (`bilinear`, `high-performance`,
/// `all`): the words people read in reports are the words they type.
macro_rules! display_as_flag_value {
    ($($t:ty),+ $(,)?) => {$(
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                use clap::ValueEnum;
                let value = self.to_possible_value().expect("no value is skipped");
                f.write_str(value.get_name())
            }
        }
    )+};
}

pub(crate) mod batch;
pub mod cli;
pub mod commands;
pub(crate) mod compare;
pub mod exit;
pub mod formats;
pub(crate) mod fsutil;
pub mod fuzzing;
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
pub(crate) mod suggest;
pub mod suites;
pub(crate) mod sysinfo;
pub mod tensor;
