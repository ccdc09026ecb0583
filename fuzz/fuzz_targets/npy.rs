//! The .npy and .npz readers: any bytes give a tensor or an error, never a panic, and never an
//! allocation the file's own size does not justify (libFuzzer's -rss_limit_mb catches those).
#![no_main]

use dmlrun::formats::npy;
use libfuzzer_sys::fuzz_target;

const MAX_TENSOR_BYTES: u64 = 64 << 20;

fuzz_target!(|data: &[u8]| {
    if let Ok(tensor) = npy::read_npy(data, MAX_TENSOR_BYTES) {
        // What was read must be writable and read back to the same tensor.
        let bytes = npy::write_npy(&tensor).expect("a tensor read from .npy writes back");
        let again = npy::read_npy(&bytes, MAX_TENSOR_BYTES).expect("written .npy reads back");
        assert_eq!(again.shape, tensor.shape);
        assert_eq!(again.dtype, tensor.dtype);
    }
    let _ = npy::read_npz(data, MAX_TENSOR_BYTES);
});
