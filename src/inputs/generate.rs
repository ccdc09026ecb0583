//! Generated input data for inputs no file fills: seeded, so runs are repeatable.

use half::{bf16, f16};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;

use crate::tensor::{DType, HostTensor};

/// What `--generate` fills missing inputs with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Fill {
    /// Uniform random: floats in [0, 1), integers in [0, 100), bools 50/50.
    Random,
    Zeros,
    Ones,
}

/// Makes a tensor of `dtype` and `shape` filled as `fill` says; `seed` makes random data repeatable.
/// Refuses, before allocating, a tensor larger than `max_bytes` (`--dim batch=100000000000`).
pub fn generate(dtype: DType, shape: &[usize], fill: Fill, seed: u64, max_bytes: u64) -> anyhow::Result<HostTensor> {
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
    let mut value = |i: usize| -> f64 {
        let _ = i;
        match fill {
            Fill::Zeros => 0.0,
            Fill::Ones => 1.0,
            Fill::Random if dtype.is_float() => rng.random::<f64>(),
            Fill::Random if dtype == DType::Bool => rng.random_range(0..2) as f64,
            Fill::Random => rng.random_range(0..100) as f64,
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
        let a = generate(DType::Float32, &[64], Fill::Random, 7, u64::MAX).unwrap();
        let b = generate(DType::Float32, &[64], Fill::Random, 7, u64::MAX).unwrap();
        let c = generate(DType::Float32, &[64], Fill::Random, 8, u64::MAX).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
        let v = a.to_f64().unwrap();
        assert!(v.iter().all(|x| (0.0..1.0).contains(x)));
        assert!(v.iter().any(|x| *x != v[0]), "random data is not constant");
        let ints = generate(DType::Int64, &[64], Fill::Random, 1, u64::MAX).unwrap().to_i128().unwrap();
        assert!(ints.iter().all(|x| (0..100).contains(x)));
    }

    #[test]
    fn ones_and_zeros() {
        assert_eq!(generate(DType::Int32, &[2], Fill::Ones, 0, u64::MAX).unwrap().to_i128().unwrap(), vec![1, 1]);
        assert_eq!(generate(DType::Float16, &[2], Fill::Zeros, 0, u64::MAX).unwrap().to_f64().unwrap(), vec![0.0, 0.0]);
    }
}
