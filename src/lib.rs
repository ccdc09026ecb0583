//! dmlrun: run, validate and benchmark ONNX models on ONNX Runtime, DirectML first.
//!
//! The binary is a thin shell over this library (see `main.rs`); the library is what tests and
//! fuzz targets exercise.

/// Names a plain enum's values as the command line spells them (`bilinear`, `high-performance`,
/// `all`), in the order the help lists them: `ALL` and `flag_name`. The domain keeps no clap;
/// `cli::values` maps these to clap's value enums at the edge.
macro_rules! flag_values {
    ($t:ident { $($variant:ident => $name:literal),+ $(,)? }) => {
        impl $t {
            /// Every value, in the order the help lists them.
            pub const ALL: &'static [$t] = &[$($t::$variant),+];

            /// The value as the command line spells it.
            pub fn flag_name(self) -> &'static str {
                match self {
                    $($t::$variant => $name),+
                }
            }
        }
    };
}

/// Displays a flag value type as the command line spells it: the words people read in reports
/// are the words they type.
macro_rules! display_as_flag_value {
    ($($t:ty),+ $(,)?) => {$(
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.flag_name())
            }
        }
    )+};
}

pub(crate) mod batch;
pub(crate) mod cases;
pub mod cli;
pub mod commands;
pub(crate) mod compare;
pub mod exit;
pub mod formats;
pub(crate) mod fsutil;
pub mod fuzzing;
pub mod generate;
pub(crate) mod graph;
/// Weight-only quantization (`--precision int4|int8`), for the quantizing benchmark
/// (benches/quantize.rs).
pub use graph::quantize;
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
