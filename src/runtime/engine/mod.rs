//! The steps run, test, bench, reduce and generate share, one file per step, each building on
//! those before it and none on those after:
//!
//! - `preflight`: a model read once and the flags resolved against it into a session plan
//!   (the value every command takes), what a whole run is checked for, and the plan's
//!   completion from the inputs about to be bound;
//! - `open`: a session from a plan, and its errors named;
//! - `runs`: one run and the timed loop;
//! - `diagnose`: a failure explained by a reference run, and the node named;
//! - `device_io`: `--io-on-device` and graph capture; `sessions`: `bench --sessions`;
//! - `precision`: `--precision fp16`'s conversion, typed by a float32 run, and its accuracy;
//! - `rewrite`: `--decompose` and `--gemm-zero-bias`, checked against the original on the
//!   reference EP;
//! - `measure`: the open, bind, run, time and compare sequence of run and bench; `paired`:
//!   `bench --baseline-model`, old and new timed in alternating rounds;
//! - `decoder`: a decoder LLM's session with its KV cache, for generate; a genai folder checked
//!   by what it generates, two forms timed in alternating rounds, and written back (fix, tune);
//! - `gpu_memory`: DXGI's readings, taken by all of them;
//! - `saved`: the model a session ran, written with what dmlrun did to it.
//!
//! This file only declares them and names what the commands use.

mod decoder;
mod device_io;
pub mod diagnose;
mod gpu_memory;
mod made;
mod measure;
mod open;
mod opened;
mod paired;
mod precision;
mod preflight;
mod rewrite;
mod runs;
mod saved;
mod sessions;
mod shapes;
mod steps;

pub use decoder::{
    check_output_folder, decoder_file, greedy_tokens, open_generating, time_paired, write_decoder_folder, Against,
    DecodeTimes, DecoderOptions, DecoderRun, DecoderSession, Generated, PairedDecode, PairedTimes,
};
pub use device_io::DeviceIo;
pub use gpu_memory::GpuMemory;
pub use made::{made_for_session, made_label, Check, MadeModel};
pub use measure::{batch_size, measure, Comparison, MeasureRequest, Measurement};
pub use open::{load, DeviceReport, LoadedModel};
pub use opened::{open_made, Explaining};
pub use paired::{PairedRuns, Pairing};
pub use precision::PrecisionReport;
pub use preflight::{
    check_flags, check_request, finish_plan, plans_directml, warn_if_compared_with_itself, BoundForSession, Preflight,
    Scope,
};
pub use rewrite::decided_conditions;
pub use rewrite::RewriteReport;
pub use runs::{run_to_host_values, stop_runs, PreparedInputs, RunBudget, EMPTY_OUTPUT};
pub use saved::{save_decoder, saved_model, SavedModels};
pub use sessions::{measure_sessions, ConcurrentSessions};
pub use shapes::inferred_shapes;
