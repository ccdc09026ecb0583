//! A model folder's genai_config.json and tokenizer.json, as `dmlrun generate` reads them: the
//! bytes before the first NUL are the config, the rest the tokenizer.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let at = data.iter().position(|&b| b == 0).unwrap_or(data.len());
    let Ok(config) = std::str::from_utf8(&data[..at]) else { return };
    dmlrun::fuzzing::genai(config, data.get(at + 1..).unwrap_or_default());
});
