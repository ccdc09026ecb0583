//! Value parsers for flags: each turns one flag's text into a typed value, or a message that
//! names what is wrong with it.

use crate::inputs::synthetic::ValueRange;
use crate::inputs::InputSpec;
use crate::runtime::adapters::DeviceSelector;
use crate::runtime::ep_devices::EpLibraryRequest;
use crate::runtime::plan::EpRequest;

/// Parses `10s`, `500ms`, `2m`.
pub fn parse_duration(text: &str) -> Result<std::time::Duration, String> {
    let d = humantime::parse_duration(text).map_err(|e| format!("'{text}': {e} (e.g. 10s, 500ms)"))?;
    if d.is_zero() {
        return Err(format!("'{text}' is zero"));
    }
    Ok(d)
}

/// A count that must be at least 1, said in words when it is not.
pub fn parse_at_least_1(text: &str) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(0) => Err("must be at least 1".to_string()),
        Ok(n) => Ok(n),
        Err(e) if *e.kind() == std::num::IntErrorKind::PosOverflow => {
            Err(format!("'{text}' is too large (at most {})", u64::MAX))
        }
        Err(_) => Err(format!("'{text}' is not a whole number (at least 1)")),
    }
}

/// The most timed runs one command makes: every run's latency is kept (8 bytes each, and in
/// bench's JSON), so a billion is already 8 GB of samples.
pub const MAX_ITERATIONS: u64 = 1_000_000_000;
/// The most untimed warm-up runs: more warms nothing further, and a count nobody could wait
/// for is a typo.
pub const MAX_WARMUP: u64 = 1_000_000;
/// The most threads one ONNX Runtime pool may start: it starts every one as an OS thread.
pub const MAX_THREADS: usize = 1024;

/// A count from `low` to `high`, said with the range when it is not.
fn bounded(text: &str, low: u64, high: u64, why: &str) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(n) if (low..=high).contains(&n) => Ok(n),
        Ok(_) | Err(_) => Err(format!("'{text}' is not a whole number from {low} to {high}{why}")),
    }
}

/// `--iterations`: 1 to a billion timed runs.
pub fn parse_iterations(text: &str) -> Result<u64, String> {
    bounded(text, 1, MAX_ITERATIONS, " (every run's latency is kept: 8 bytes each)")
}

/// `--warmup`: 0 to a million untimed runs.
pub fn parse_warmup(text: &str) -> Result<u64, String> {
    bounded(text, 0, MAX_WARMUP, "")
}

/// `--intra-threads`, `--inter-threads`: 0 (ONNX Runtime's default) to 1024.
pub fn parse_threads(text: &str) -> Result<usize, String> {
    bounded(text, 0, MAX_THREADS as u64, " (0: ONNX Runtime's default; each is an OS thread)").map(|n| n as usize)
}

/// `test --jobs`: 1 to 256 cases (or children) at once.
pub fn parse_jobs(text: &str) -> Result<u64, String> {
    bounded(text, 1, 256, " (each runs its own session side by side)")
}

/// A size or count that must be at least 1 (`--resize-to`, `--top-k`).
pub fn parse_positive(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("'{text}' is not a whole number of 1 or more")),
    }
}

/// A finite number (`--mean`, `--scale`).
pub fn parse_finite(text: &str) -> Result<f32, String> {
    match text.trim().parse::<f32>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(format!("'{text}' is not a finite number")),
    }
}

/// A standard deviation: finite and not zero (`--std`), since every value is divided by it.
pub fn parse_std(text: &str) -> Result<f32, String> {
    match text.trim().parse::<f32>() {
        Ok(v) if v.is_finite() && v != 0.0 => Ok(v),
        _ => Err(format!("'{text}' is not a finite number other than 0 (each value is divided by it)")),
    }
}

/// `bench --sessions`: from 1 to 64 sessions at once.
pub fn parse_sessions(text: &str) -> Result<u32, String> {
    match text.trim().parse::<u32>() {
        Ok(n @ 1..=64) => Ok(n),
        _ => Err(format!("'{text}' is not a number of sessions from 1 to 64")),
    }
}

/// `bench --rounds`: 1 to 1000 blocks of timed runs.
pub fn parse_rounds(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(n @ 1..=1000) => Ok(n),
        _ => Err(format!("'{text}' is not a number of rounds from 1 to 1000")),
    }
}

/// `--sweep DIM=1,2,4`: a free dimension and its sizes (each at least 1, none twice).
pub fn parse_sweep(text: &str) -> Result<crate::suites::manifest::Sweep, String> {
    let (name, list) = text.split_once('=').ok_or_else(|| format!("'{text}' is not DIM=N,N,..."))?;
    if name.is_empty() {
        return Err(format!("'{text}' has no dimension name before '='"));
    }
    let values: Vec<i64> = list
        .split(',')
        .map(|v| match v.trim().parse::<i64>() {
            Ok(n) if n >= 1 => Ok(n),
            _ => Err(format!("'{v}' in '{text}' is not a size of at least 1")),
        })
        .collect::<Result<_, _>>()?;
    let mut seen = values.clone();
    seen.sort_unstable();
    seen.dedup();
    if seen.len() != values.len() {
        return Err(format!("'{text}' gives a size twice"));
    }
    Ok(crate::suites::manifest::Sweep::Dim { name: name.to_string(), values })
}

/// `--sweep-shape NAME=D0,D1,...:D0,D1,...`: one input's whole shapes.
pub fn parse_sweep_shape(text: &str) -> Result<crate::suites::manifest::Sweep, String> {
    let (input, list) = text.split_once('=').ok_or_else(|| format!("'{text}' is not NAME=SHAPE:SHAPE..."))?;
    let shapes: Vec<Vec<usize>> = list
        .split(':')
        .map(|shape| parse_shape(&format!("{input}={shape}")).map(|(_, s)| s))
        .collect::<Result<_, _>>()?;
    if shapes.len() < 2 {
        return Err(format!("'{text}' gives one shape: a sweep needs two or more, separated by ':'"));
    }
    Ok(crate::suites::manifest::Sweep::Shape { input: input.to_string(), shapes })
}

/// Parses a time limit: a duration as --timeout takes it, or 0 (or `none`) for no limit.
pub fn parse_limit(text: &str) -> Result<std::time::Duration, String> {
    match text.trim() {
        "0" | "none" => Ok(std::time::Duration::ZERO),
        other => humantime::parse_duration(other).map_err(|e| format!("'{text}': {e} (e.g. 10m, 90s; 0 for no limit)")),
    }
}

/// `--repetition-penalty`: a finite factor above 0.
pub fn parse_repetition_penalty(text: &str) -> Result<f32, String> {
    match text.trim().parse::<f32>() {
        Ok(f) if f.is_finite() && f > 0.0 => Ok(f),
        _ => Err(format!("'{text}' is not a factor above 0 (1 is off; 1.1 to 1.3 is usual)")),
    }
}

/// Parses `NAME=N` with N a size (0 is a size: ONNX allows empty dimensions).
pub fn parse_dim(text: &str) -> Result<(String, i64), String> {
    let (name, value) = text.split_once('=').ok_or_else(|| format!("'{text}' is not NAME=N"))?;
    if name.is_empty() {
        return Err(format!("'{text}' has no name before '='"));
    }
    let n: i64 = value.trim().parse().map_err(|e: std::num::ParseIntError| match e.kind() {
        std::num::IntErrorKind::PosOverflow => format!("'{value}' in '{text}' is too large (at most {})", i64::MAX),
        _ => format!("'{value}' in '{text}' is not a whole number"),
    })?;
    if n < 0 {
        return Err(format!("'{text}': a dimension cannot be negative"));
    }
    Ok((name.to_string(), n))
}

/// Parses `[NAME=]LO,HI` (`--generate-range`).
pub fn parse_range(text: &str) -> Result<(Option<String>, ValueRange), String> {
    let (name, range) = match text.rsplit_once('=') {
        Some((name, range)) if !name.is_empty() => (Some(name.to_string()), range),
        Some((_, _)) => return Err(format!("'{text}' has no input name before '='")),
        None => (None, text),
    };
    let (low, high) = range.split_once(',').ok_or_else(|| format!("'{text}' is not [NAME=]LO,HI"))?;
    let number = |v: &str| {
        v.trim()
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .ok_or_else(|| format!("'{v}' in '{text}' is not a number"))
    };
    let (low, high) = (number(low)?, number(high)?);
    if low > high {
        return Err(format!("'{text}': LO is above HI"));
    }
    Ok((name, ValueRange { low, high }))
}

/// Parses `NAME=D0,D1,...` (`--shape`); `NAME=` alone is a scalar's empty shape.
pub fn parse_shape(text: &str) -> Result<(String, Vec<usize>), String> {
    let (name, dims) = text.rsplit_once('=').ok_or_else(|| format!("'{text}' is not NAME=D0,D1,..."))?;
    if name.is_empty() {
        return Err(format!("'{text}' has no input name before '='"));
    }
    let dims = dims.trim().trim_start_matches('[').trim_end_matches(']');
    if dims.is_empty() {
        return Ok((name.to_string(), Vec::new()));
    }
    let shape = dims
        .split([',', 'x'])
        .map(|d| {
            d.trim().parse::<usize>().map_err(|e| match e.kind() {
                std::num::IntErrorKind::PosOverflow => {
                    format!("'{d}' in '{text}' is too large (at most {})", usize::MAX)
                }
                _ => format!("'{d}' in '{text}' is not a size (a whole number, 0 or more)"),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((name.to_string(), shape))
}

/// Parses `KEY=VALUE` (`--ep-option`, `--session-config`); the value may hold '='.
pub fn parse_key_value(text: &str) -> Result<(String, String), String> {
    let (key, value) = text.split_once('=').ok_or_else(|| format!("'{text}' is not KEY=VALUE"))?;
    if key.trim().is_empty() || value.is_empty() {
        return Err(format!("'{text}' needs a key and a value"));
    }
    Ok((key.trim().to_string(), value.to_string()))
}

/// Parses `--input [NAME=]FILE`.
pub fn parse_input(text: &str) -> Result<InputSpec, String> {
    InputSpec::parse(text)
}

/// Parses `--shard K/N`, `count:K/N`, `hash:K/N`.
pub fn parse_shard(text: &str) -> Result<crate::suites::shard::ShardRequest, String> {
    crate::suites::shard::ShardRequest::parse(text)
}

/// Parses `--ep` and `--compare-ep`.
pub fn parse_ep(text: &str) -> Result<EpRequest, String> {
    EpRequest::parse(text)
}

/// Parses `--ep-library [NAME=]PATH`.
pub fn parse_ep_library(text: &str) -> Result<EpLibraryRequest, String> {
    EpLibraryRequest::parse(text)
}

/// Parses `--device`: an index, `luid:HIGH-LOW`, or part of an adapter's name.
pub fn parse_device(text: &str) -> Result<DeviceSelector, String> {
    DeviceSelector::parse(text)
}

/// Parses `HxW`.
pub fn parse_size(text: &str) -> Result<(usize, usize), String> {
    let (h, w) = text.split_once(['x', 'X']).ok_or_else(|| format!("'{text}' is not HEIGHTxWIDTH"))?;
    let parse = |s: &str| s.trim().parse::<usize>().ok().filter(|v| *v > 0);
    match (parse(h), parse(w)) {
        (Some(h), Some(w)) => Ok((h, w)),
        _ => Err(format!("'{text}' is not HEIGHTxWIDTH with positive numbers")),
    }
}

/// Parses `NAME=ATOL,RTOL`.
pub fn parse_tol(text: &str) -> Result<(String, f64, f64), String> {
    let (name, tols) = text.split_once('=').ok_or_else(|| format!("'{text}' is not OUTPUT=ATOL,RTOL"))?;
    let (atol, rtol) = tols.split_once(',').ok_or_else(|| format!("'{text}' is not OUTPUT=ATOL,RTOL"))?;
    let num = |s: &str| s.trim().parse::<f64>().ok().filter(|v| *v >= 0.0 && v.is_finite());
    match (num(atol), num(rtol)) {
        (Some(a), Some(r)) if !name.is_empty() => Ok((name.to_string(), a, r)),
        _ => Err(format!("'{text}' is not OUTPUT=ATOL,RTOL with non-negative numbers")),
    }
}

pub(super) fn parse_block_size(text: &str) -> Result<u32, String> {
    match text.parse::<u32>() {
        Ok(n) if [16, 32, 64, 128, 256].contains(&n) => Ok(n),
        _ => Err(format!("'{text}' is not a block size ONNX Runtime's quantizer takes: 16, 32, 64, 128 or 256")),
    }
}

pub(super) fn parse_on_off(text: &str) -> Result<bool, String> {
    match text {
        "on" | "true" | "1" => Ok(true),
        "off" | "false" | "0" => Ok(false),
        _ => Err(format!("'{text}' is not on or off")),
    }
}

/// Parses `5%` or `0.05`.
pub fn parse_fraction(text: &str) -> Result<f64, String> {
    let bare = text.trim().strip_suffix('%').is_none();
    let value = match text.trim().strip_suffix('%') {
        Some(p) => p.trim().parse::<f64>().map(|v| v / 100.0),
        None => text.trim().parse::<f64>(),
    }
    .map_err(|_| format!("'{text}' is not a percentage like 5% or a fraction like 0.05"))?;
    // A bare 5 is 500% read as a fraction, but 5% as people mean it: ambiguous, so refused, as a
    // gate silently off is the worst reading of it.
    if bare && value >= 1.0 {
        return Err(format!(
            "'{text}' is ambiguous: write a percentage ({text}%) or a fraction below 1 ({})",
            value / 100.0
        ));
    }
    if !(0.0..=10.0).contains(&value) {
        return Err(format!("'{text}' is out of range"));
    }
    Ok(value)
}

/// `--decompose OP`: an operator dmlrun can write as primitive ops.
pub fn parse_decompose(text: &str) -> Result<crate::graph::Decomposable, String> {
    crate::graph::Decomposable::parse(text.trim())
}

/// `--decode-rewrite RULE`: a rewrite rule by its flag, with or without the dashes.
pub fn parse_rule(text: &str) -> Result<crate::graph::Rewrite, String> {
    let flag = text.trim().trim_start_matches("--");
    crate::graph::RuleId::of_flag(flag).map(crate::graph::Rewrite::Rule).ok_or_else(|| {
        let rules: Vec<&str> = crate::graph::RULES.iter().map(|r| r.flag()).collect();
        format!("'{text}' is no rewrite rule; the rules: {}", rules.join(", "))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dim_values_must_be_sizes() {
        assert_eq!(parse_dim("batch=4"), Ok(("batch".to_string(), 4)));
        // ONNX allows empty dimensions.
        assert_eq!(parse_dim("batch=0"), Ok(("batch".to_string(), 0)));
        assert!(parse_dim("batch=-1").is_err());
        assert!(parse_dim("batch=x").is_err());
        assert!(parse_dim("batch").is_err());
        assert!(parse_dim("=3").is_err());
    }

    #[test]
    fn shapes_and_ranges_parse() {
        assert_eq!(parse_shape("x=1,3,48,192"), Ok(("x".to_string(), vec![1, 3, 48, 192])));
        assert_eq!(parse_shape("x=[2, 0]"), Ok(("x".to_string(), vec![2, 0])));
        assert_eq!(parse_shape("sr="), Ok(("sr".to_string(), vec![])));
        assert!(parse_shape("x=1,-3").unwrap_err().contains("'-3'"));
        assert!(parse_shape("1,3").is_err());
        let range = |low, high| ValueRange { low, high };
        assert_eq!(parse_range("ids=0,30521"), Ok((Some("ids".to_string()), range(0.0, 30521.0))));
        assert_eq!(parse_range("-1,1"), Ok((None, range(-1.0, 1.0))));
        assert!(parse_range("x=2,1").unwrap_err().contains("LO is above HI"));
        assert!(parse_range("x=nan,1").is_err());
    }

    #[test]
    fn sweeps_parse_and_refuse_what_cannot_be_swept() {
        use crate::suites::manifest::Sweep;
        assert_eq!(parse_sweep("N=1,2,4"), Ok(Sweep::Dim { name: "N".into(), values: vec![1, 2, 4] }));
        assert!(parse_sweep("N=1,0").unwrap_err().contains("at least 1"));
        assert!(parse_sweep("N=2,2").unwrap_err().contains("twice"));
        assert_eq!(
            parse_sweep_shape("x=1,3,8,8:1,3,16,16"),
            Ok(Sweep::Shape { input: "x".into(), shapes: vec![vec![1, 3, 8, 8], vec![1, 3, 16, 16]] })
        );
        assert!(parse_sweep_shape("x=1,3").unwrap_err().contains("two or more"));
    }

    #[test]
    fn counts_out_of_range_are_said_in_words() {
        assert_eq!(parse_at_least_1("0"), Err("must be at least 1".to_string()));
        assert_eq!(parse_at_least_1("7"), Ok(7));
        assert!(parse_at_least_1("-1").unwrap_err().contains("at least 1"));
        assert!(parse_sessions("65").unwrap_err().contains("from 1 to 64"));
    }

    #[test]
    fn limits_parse_with_zero_for_none() {
        assert_eq!(parse_limit("0"), Ok(std::time::Duration::ZERO));
        assert_eq!(parse_limit("none"), Ok(std::time::Duration::ZERO));
        assert_eq!(parse_limit("90s"), Ok(std::time::Duration::from_secs(90)));
        assert!(parse_limit("soon").unwrap_err().contains("0 for no limit"));
    }

    #[test]
    fn fractions_parse() {
        assert_eq!(parse_fraction("5%"), Ok(0.05));
        assert_eq!(parse_fraction("0.1"), Ok(0.1));
        assert!(parse_fraction("five").is_err());
        // A bare number of 1 or more is a percentage without its sign, never 100 times it.
        let e = parse_fraction("5").unwrap_err();
        assert!(e.contains("ambiguous") && e.contains("5%") && e.contains("0.05"), "{e}");
        assert!(parse_fraction("1").is_err());
        assert_eq!(parse_fraction("150%"), Ok(1.5));
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("480x640"), Ok((480, 640)));
        assert!(parse_size("0x5").is_err());
    }
}
