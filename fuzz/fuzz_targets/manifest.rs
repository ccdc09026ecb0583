//! Bench manifests, TOML and JSON: the first byte picks the format.
#![no_main]

use std::path::Path;

use dmlrun::suites::manifest;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, bytes)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(bytes) else { return };
    let path = if selector % 2 == 0 { Path::new("/m/bench.toml") } else { Path::new("/m/bench.json") };
    if let Ok(models) = manifest::parse_manifest(text, path) {
        assert!(!models.is_empty());
        // A size of 0 is allowed (empty batches are a real test case); a negative one never is.
        assert!(models.iter().all(|m| m.dims.iter().all(|(_, v)| *v >= 0)));
        assert!(models
            .iter()
            .all(|m| m.generate_ranges.iter().all(|(_, r)| r.low.is_finite() && r.high.is_finite() && r.low <= r.high)));
    }
});
