//! One model's weights quantized as `--precision int4|int8` quantizes them, and nothing else:
//! the pass scripts/bench-quantize times, and whose peak memory it reads, beside ONNX Runtime's
//! Python quantizer on the same model.
//!
//!     cargo bench --bench quantize -- SRC DST [BITS] [BLOCK]

use std::path::PathBuf;
use std::time::Instant;

use dmlrun::quantize::{quantize_model, Blockwise, WeightOnly};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let [source, dest, rest @ ..] = args.as_slice() else {
        anyhow::bail!("usage: cargo bench --bench quantize -- SRC DST [BITS] [BLOCK]");
    };
    let bits = rest.first().map_or(Ok(4), |b| b.parse())?;
    let block_size = rest.get(1).map_or(Ok(32), |b| b.parse())?;
    let options = WeightOnly {
        blockwise: Blockwise { bits, block_size, symmetric: true },
        keep: Vec::new(),
        whole_blocks_only: false,
        accuracy_level: None,
    };
    let started = Instant::now();
    let (files, quantization) = quantize_model(&PathBuf::from(source), &PathBuf::from(dest), &options)?;
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "{}",
        serde_json::json!({
            "seconds": seconds,
            "files": files,
            "converted": quantization.converted,
            "bytes_before": quantization.bytes_before,
            "bytes_after": quantization.bytes_after,
        })
    );
    Ok(())
}
