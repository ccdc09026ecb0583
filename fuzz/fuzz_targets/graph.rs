//! ONNX models through `dmlrun reduce`'s graph surgery: every tensor exposed, runs of nodes
//! extracted as models of their own, each edit read back.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    dmlrun::fuzzing::graph(data);
});
