//! Reports as `dmlrun merge` reads them (test and bench JSON), up to three separated by NULs:
//! read, merged as shards, compared, every export rendered.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let texts: Vec<&str> = data.split(|&b| b == 0).take(3).filter_map(|t| std::str::from_utf8(t).ok()).collect();
    dmlrun::fuzzing::merge(&texts);
});
