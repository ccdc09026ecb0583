//! Flag values and whole command lines: `--dim`, `--shape`, `--generate-range`, `--size`,
//! `--tol`, durations, and clap's parse of the full CLI from whitespace-separated words.
#![no_main]

use clap::Parser;
use dmlrun::cli::{self, Cli};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok((name, value)) = cli::parse_dim(text) {
        assert!(!name.is_empty() && value >= 0, "parse_dim accepted {text:?}");
    }
    if let Ok((name, _)) = cli::parse_shape(text) {
        assert!(!name.is_empty(), "parse_shape accepted {text:?}");
    }
    if let Ok((name, range)) = cli::parse_range(text) {
        assert!(name.is_none_or(|n| !n.is_empty()), "parse_range accepted {text:?}");
        assert!(
            range.low.is_finite() && range.high.is_finite() && range.low <= range.high,
            "parse_range accepted {text:?}"
        );
    }
    if let Ok((h, w)) = cli::parse_size(text) {
        assert!(h >= 1 && w >= 1, "parse_size accepted {text:?}");
    }
    if let Ok((_, rtol, atol)) = cli::parse_tol(text) {
        assert!(rtol >= 0.0 && atol >= 0.0, "parse_tol accepted {text:?}");
    }
    let _ = cli::parse_duration(text);
    let words = std::iter::once("dmlrun").chain(text.split_whitespace());
    let _ = Cli::try_parse_from(words);
});
