//! Generated input data for inputs no file fills: seeded, so runs are repeatable.

use half::{bf16, f16};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;

use crate::tensor::{DType, HostTensor};

/// What `fix` and `reduce` (`command`) say when no --input and no --generate was given: the
/// search needs inputs, so they are generated as `run --generate random` would.
pub fn generated_by_default(command: &str) -> String {
    format!(
        "dmlrun: note: {command}: no --input given: the inputs are generated as --generate random does (seeded by --seed, 0 by default); --input or --generate choose others"
    )
}

/// What `--generate` fills missing inputs with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Fill {
    /// Uniform random: floats in [0, 1), integers 0 or 1, bools 50/50 (--generate-range
    /// changes the range).
    Random,
    Zeros,
    Ones,
}

flag_values!(Fill { Random => "random", Zeros => "zeros", Ones => "ones" });

/// The values `--generate random` draws: floats in `[low, high)`, integers in `[low, high]`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize)]
pub struct ValueRange {
    pub low: f64,
    pub high: f64,
}

impl ValueRange {
    /// The default range for `dtype`: floats in [0, 1) and integers 0 or 1, as Polygraphy
    /// draws them. Integer inputs are mostly indices, masks, token types and class ids, for
    /// which 0 and 1 are valid where larger values are not (a BERT `token_type_ids` Gather
    /// fails on 8).
    pub fn default_for(dtype: DType) -> ValueRange {
        let _ = dtype;
        ValueRange { low: 0.0, high: 1.0 }
    }

    /// `[0, 1)` for floats, `0..=1` for integers.
    pub fn describe(self, dtype: DType) -> String {
        if dtype.is_float() {
            format!("[{}, {})", self.low, self.high)
        } else {
            format!("{}..={}", self.low.ceil(), self.high.floor())
        }
    }
}

/// Makes a tensor of `dtype` and `shape` filled as `fill` says; `seed` makes random data repeatable.
/// Refuses, before allocating, a tensor larger than `max_bytes` (`--dim batch=100000000000`).
pub fn generate(
    dtype: DType,
    shape: &[usize],
    fill: Fill,
    range: ValueRange,
    seed: u64,
    max_bytes: u64,
) -> anyhow::Result<HostTensor> {
    let count = crate::tensor::element_count(shape)?;
    // A generated string is a short decimal; count its String header as its size.
    let bytes = dtype.byte_len(count).or_else(|| count.checked_mul(std::mem::size_of::<String>()));
    match bytes {
        Some(b) if b as u64 <= max_bytes => {}
        _ => anyhow::bail!(
            "shape {} of {dtype} is {} bytes, over the limit of {max_bytes} bytes (--max-tensor-bytes; check --dim)",
            crate::tensor::format_shape(shape),
            bytes.map_or_else(|| "more than 2^64".to_string(), |b| b.to_string())
        ),
    }
    let mut rng = StdRng::seed_from_u64(seed);
    let (int_low, int_high) = (range.low.ceil() as i64, range.high.floor() as i64);
    if fill == Fill::Random && !dtype.is_float() && dtype != DType::Bool && int_low > int_high {
        anyhow::bail!("the range [{}, {}] holds no integer for a {dtype} input", range.low, range.high);
    }
    let mut value = |i: usize| -> f64 {
        let _ = i;
        match fill {
            Fill::Zeros => 0.0,
            Fill::Ones => 1.0,
            Fill::Random if dtype.is_float() => range.low + rng.random::<f64>() * (range.high - range.low),
            Fill::Random if dtype == DType::Bool => rng.random_range(0..2) as f64,
            Fill::Random => rng.random_range(int_low..=int_high) as f64,
        }
    };
    if dtype == DType::String {
        let strings = (0..count).map(|i| format!("{}", value(i))).collect();
        return HostTensor::from_strings(shape.to_vec(), strings);
    }
    if matches!(
        dtype,
        DType::Float8E4M3FN
            | DType::Float8E4M3FNUZ
            | DType::Float8E5M2
            | DType::Float8E5M2FNUZ
            | DType::Float8E8M0
            | DType::Float4E2M1
            | DType::Uint4
            | DType::Int4
            | DType::Uint2
            | DType::Int2
    ) {
        // All-zero bits are zero in every one of these formats; other fills would need an encoder.
        if fill != Fill::Zeros {
            anyhow::bail!("dmlrun can generate {dtype} data only with --generate zeros");
        }
        let len = dtype.byte_len(count).ok_or_else(|| anyhow::anyhow!("tensor too large"))?;
        return HostTensor::from_bytes(dtype, shape.to_vec(), vec![0; len]);
    }
    let size = dtype.size().expect("numeric");
    let mut bytes = Vec::with_capacity(count * size);
    for i in 0..count {
        let v = value(i);
        match dtype {
            DType::Float32 => bytes.extend((v as f32).to_le_bytes()),
            DType::Float64 => bytes.extend(v.to_le_bytes()),
            DType::Float16 => bytes.extend(f16::from_f64(v).to_le_bytes()),
            DType::Bfloat16 => bytes.extend(bf16::from_f64(v).to_le_bytes()),
            DType::Int8 => bytes.extend((v as i8).to_le_bytes()),
            DType::Int16 => bytes.extend((v as i16).to_le_bytes()),
            DType::Int32 => bytes.extend((v as i32).to_le_bytes()),
            DType::Int64 => bytes.extend((v as i64).to_le_bytes()),
            DType::Uint8 | DType::Bool => bytes.push(v as u8),
            DType::Uint16 => bytes.extend((v as u16).to_le_bytes()),
            DType::Uint32 => bytes.extend((v as u32).to_le_bytes()),
            DType::Uint64 => bytes.extend((v as u64).to_le_bytes()),
            _ => unreachable!("handled above"),
        }
    }
    HostTensor::from_bytes(dtype, shape.to_vec(), bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_is_seeded_and_in_range() {
        let unit = ValueRange::default_for(DType::Float32);
        let a = generate(DType::Float32, &[64], Fill::Random, unit, 7, u64::MAX).unwrap();
        let b = generate(DType::Float32, &[64], Fill::Random, unit, 7, u64::MAX).unwrap();
        let c = generate(DType::Float32, &[64], Fill::Random, unit, 8, u64::MAX).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
        let v = a.to_f64().unwrap();
        assert!(v.iter().all(|x| (0.0..1.0).contains(x)));
        assert!(v.iter().any(|x| *x != v[0]), "random data is not constant");
        let ints = generate(DType::Int64, &[64], Fill::Random, ValueRange::default_for(DType::Int64), 1, u64::MAX)
            .unwrap()
            .to_i128()
            .unwrap();
        assert!(ints.iter().all(|x| (0..=1).contains(x)) && ints.contains(&0) && ints.contains(&1), "{ints:?}");
    }

    #[test]
    fn ranges_are_honoured_and_inclusive_for_integers() {
        let range = ValueRange { low: -3.0, high: 2.0 };
        let ints = generate(DType::Int32, &[400], Fill::Random, range, 1, u64::MAX).unwrap().to_i128().unwrap();
        assert!(ints.iter().all(|x| (-3..=2).contains(x)));
        assert!(ints.contains(&-3) && ints.contains(&2), "both ends drawn: {ints:?}");
        let floats = generate(DType::Float64, &[400], Fill::Random, range, 1, u64::MAX).unwrap().to_f64().unwrap();
        assert!(floats.iter().all(|x| (-3.0..2.0).contains(x)));
        assert!(floats.iter().any(|x| *x < -2.0) && floats.iter().any(|x| *x > 1.0));
        let err = generate(DType::Int8, &[1], Fill::Random, ValueRange { low: 0.2, high: 0.8 }, 1, u64::MAX);
        assert!(err.unwrap_err().to_string().contains("holds no integer"));
    }

    #[test]
    fn ones_and_zeros() {
        let range = ValueRange::default_for(DType::Int32);
        assert_eq!(
            generate(DType::Int32, &[2], Fill::Ones, range, 0, u64::MAX).unwrap().to_i128().unwrap(),
            vec![1, 1]
        );
        let zeros = generate(DType::Float16, &[2], Fill::Zeros, range, 0, u64::MAX).unwrap();
        assert_eq!(zeros.to_f64().unwrap(), vec![0.0, 0.0]);
    }
}
