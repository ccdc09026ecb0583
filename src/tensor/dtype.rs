//! The element types a tensor can hold: their names as numpy and ONNX spell them, their sizes,
//! and how the ones Rust has no type for (float8, float4, packed 4- and 2-bit integers) decode.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Element types dmlrun can carry. Names follow numpy (`float32`, `int64`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DType {
    Float32,
    Float64,
    Float16,
    Bfloat16,
    Int8,
    Int16,
    Int32,
    Int64,
    Uint8,
    Uint16,
    Uint32,
    Uint64,
    Bool,
    String,
    Float8E4M3FN,
    Float8E4M3FNUZ,
    Float8E5M2,
    Float8E5M2FNUZ,
    /// 4-bit integers, packed two per byte (low nibble first), as ONNX and ONNX Runtime store them.
    Uint4,
    Int4,
    /// 2-bit integers, packed four per byte (lowest bits first).
    Uint2,
    Int2,
    /// Exponent-only 8-bit float (value 2^(bits-127)); 0xFF is NaN.
    Float8E8M0,
    /// 4-bit float (1 sign, 2 exponent, 1 mantissa bits), packed two per byte.
    Float4E2M1,
}

impl DType {
    pub const ALL: [DType; 24] = [
        DType::Float32,
        DType::Float64,
        DType::Float16,
        DType::Bfloat16,
        DType::Int8,
        DType::Int16,
        DType::Int32,
        DType::Int64,
        DType::Uint8,
        DType::Uint16,
        DType::Uint32,
        DType::Uint64,
        DType::Bool,
        DType::String,
        DType::Float8E4M3FN,
        DType::Float8E4M3FNUZ,
        DType::Float8E5M2,
        DType::Float8E5M2FNUZ,
        DType::Uint4,
        DType::Int4,
        DType::Uint2,
        DType::Int2,
        DType::Float8E8M0,
        DType::Float4E2M1,
    ];

    /// Bytes per element; `None` for strings and the packed 4-bit types.
    pub fn size(self) -> Option<usize> {
        Some(match self {
            DType::Int8
            | DType::Uint8
            | DType::Bool
            | DType::Float8E4M3FN
            | DType::Float8E4M3FNUZ
            | DType::Float8E5M2
            | DType::Float8E5M2FNUZ
            | DType::Float8E8M0 => 1,
            DType::Uint4 | DType::Int4 | DType::Uint2 | DType::Int2 | DType::Float4E2M1 => return None,
            DType::Float16 | DType::Bfloat16 | DType::Int16 | DType::Uint16 => 2,
            DType::Float32 | DType::Int32 | DType::Uint32 => 4,
            DType::Float64 | DType::Int64 | DType::Uint64 => 8,
            DType::String => return None,
        })
    }

    /// Bytes that `count` elements occupy; `None` for strings or on overflow.
    pub fn byte_len(self, count: usize) -> Option<usize> {
        match self {
            DType::Uint4 | DType::Int4 | DType::Float4E2M1 => Some(count.div_ceil(2)),
            DType::Uint2 | DType::Int2 => Some(count.div_ceil(4)),
            _ => count.checked_mul(self.size()?),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            DType::Float8E4M3FN => "float8e4m3fn",
            DType::Float8E4M3FNUZ => "float8e4m3fnuz",
            DType::Float8E5M2 => "float8e5m2",
            DType::Float8E5M2FNUZ => "float8e5m2fnuz",
            DType::Uint4 => "uint4",
            DType::Int4 => "int4",
            DType::Uint2 => "uint2",
            DType::Int2 => "int2",
            DType::Float8E8M0 => "float8e8m0",
            DType::Float4E2M1 => "float4e2m1",
            DType::Float32 => "float32",
            DType::Float64 => "float64",
            DType::Float16 => "float16",
            DType::Bfloat16 => "bfloat16",
            DType::Int8 => "int8",
            DType::Int16 => "int16",
            DType::Int32 => "int32",
            DType::Int64 => "int64",
            DType::Uint8 => "uint8",
            DType::Uint16 => "uint16",
            DType::Uint32 => "uint32",
            DType::Uint64 => "uint64",
            DType::Bool => "bool",
            DType::String => "string",
        }
    }

    pub fn is_float(self) -> bool {
        matches!(
            self,
            DType::Float32
                | DType::Float64
                | DType::Float16
                | DType::Bfloat16
                | DType::Float8E4M3FN
                | DType::Float8E4M3FNUZ
                | DType::Float8E5M2
                | DType::Float8E5M2FNUZ
                | DType::Float8E8M0
                | DType::Float4E2M1
        )
    }

    /// Parses numpy-style names and the short forms people type (`f32`, `i64`, `fp16`).
    pub fn parse(text: &str) -> Option<DType> {
        let t = text.to_ascii_lowercase();
        Some(match t.as_str() {
            "float32" | "f32" | "float" | "fp32" => DType::Float32,
            "float64" | "f64" | "double" | "fp64" => DType::Float64,
            "float16" | "f16" | "half" | "fp16" => DType::Float16,
            "bfloat16" | "bf16" => DType::Bfloat16,
            "int8" | "i8" => DType::Int8,
            "int16" | "i16" => DType::Int16,
            "int32" | "i32" => DType::Int32,
            "int64" | "i64" => DType::Int64,
            "uint8" | "u8" => DType::Uint8,
            "uint16" | "u16" => DType::Uint16,
            "uint32" | "u32" => DType::Uint32,
            "uint64" | "u64" => DType::Uint64,
            "bool" => DType::Bool,
            "string" | "str" => DType::String,
            "float8e4m3fn" => DType::Float8E4M3FN,
            "float8e4m3fnuz" => DType::Float8E4M3FNUZ,
            "float8e5m2" => DType::Float8E5M2,
            "float8e5m2fnuz" => DType::Float8E5M2FNUZ,
            "uint4" => DType::Uint4,
            "int4" => DType::Int4,
            "uint2" => DType::Uint2,
            "int2" => DType::Int2,
            "float8e8m0" => DType::Float8E8M0,
            "float4e2m1" => DType::Float4E2M1,
            _ => return None,
        })
    }

    /// The `TensorProto.DataType` code ONNX uses for this type.
    pub fn onnx_code(self) -> i32 {
        match self {
            DType::Float32 => 1,
            DType::Uint8 => 2,
            DType::Int8 => 3,
            DType::Uint16 => 4,
            DType::Int16 => 5,
            DType::Int32 => 6,
            DType::Int64 => 7,
            DType::String => 8,
            DType::Bool => 9,
            DType::Float16 => 10,
            DType::Float64 => 11,
            DType::Uint32 => 12,
            DType::Uint64 => 13,
            DType::Bfloat16 => 16,
            DType::Float8E4M3FN => 17,
            DType::Float8E4M3FNUZ => 18,
            DType::Float8E5M2 => 19,
            DType::Float8E5M2FNUZ => 20,
            DType::Uint4 => 21,
            DType::Int4 => 22,
            DType::Float4E2M1 => 23,
            DType::Float8E8M0 => 24,
            DType::Uint2 => 25,
            DType::Int2 => 26,
        }
    }

    pub fn from_onnx_code(code: i32) -> Option<DType> {
        DType::ALL.into_iter().find(|d| d.onnx_code() == code)
    }
}

/// Decodes an 8-bit float with `exp_bits` exponent bits. `fnuz`: no negative zero, bias one
/// higher, 0x80 is the only NaN. `e4m3fn`: no infinities, 0x7F/0xFF are NaN (ONNX's definitions).
pub(super) fn float8_to_f64(bits: u8, exp_bits: u32, fnuz: bool) -> f64 {
    let man_bits = 7 - exp_bits;
    let bias = (1i32 << (exp_bits - 1)) - 1 + fnuz as i32;
    let sign = if bits & 0x80 != 0 { -1.0 } else { 1.0 };
    let exp = ((bits >> man_bits) & ((1 << exp_bits) - 1)) as i32;
    let man = (bits & ((1 << man_bits) - 1)) as f64;
    if fnuz {
        if bits == 0x80 {
            return f64::NAN;
        }
    } else if exp_bits == 4 {
        if bits & 0x7F == 0x7F {
            return f64::NAN;
        }
    } else if exp == 0x1F {
        return if man == 0.0 { sign * f64::INFINITY } else { f64::NAN };
    }
    let scale = (1u32 << man_bits) as f64;
    if exp == 0 {
        sign * (man / scale) * 2f64.powi(1 - bias)
    } else {
        sign * (1.0 + man / scale) * 2f64.powi(exp - bias)
    }
}

/// Unpacks `count` values of `bits` bits each (2 or 4), lowest bits first.
pub(super) fn unpack_bits(bytes: &[u8], count: usize, bits: usize, signed: bool) -> Vec<i128> {
    let per_byte = 8 / bits;
    let mask = (1u8 << bits) - 1;
    (0..count)
        .map(|i| {
            let v = (bytes[i / per_byte] >> ((i % per_byte) * bits)) & mask;
            if signed && v & (1 << (bits - 1)) != 0 {
                v as i128 - (1 << bits)
            } else {
                v as i128
            }
        })
        .collect()
}

/// ONNX's FLOAT4E2M1: sign, 2 exponent bits (bias 1), 1 mantissa bit; no infinities or NaN.
pub(super) fn float4_to_f64(nibble: u8) -> f64 {
    let sign = if nibble & 0x8 != 0 { -1.0 } else { 1.0 };
    let exp = ((nibble >> 1) & 0x3) as i32;
    let man = (nibble & 0x1) as f64;
    sign * if exp == 0 { man * 0.5 } else { (1.0 + man / 2.0) * 2f64.powi(exp - 1) }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_float8_as_onnx_defines_it() {
        // Values from onnx.numpy_helper / ml_dtypes.
        assert_eq!(float8_to_f64(0x38, 4, false), 1.0); // e4m3fn
        assert_eq!(float8_to_f64(0x7E, 4, false), 448.0);
        assert!(float8_to_f64(0x7F, 4, false).is_nan());
        assert_eq!(float8_to_f64(0x01, 4, false), 2f64.powi(-9));
        assert_eq!(float8_to_f64(0x40, 4, true), 1.0); // e4m3fnuz
        assert!(float8_to_f64(0x80, 4, true).is_nan());
        assert_eq!(float8_to_f64(0x3C, 5, false), 1.0); // e5m2
        assert_eq!(float8_to_f64(0x7C, 5, false), f64::INFINITY);
        assert_eq!(float8_to_f64(0xFB, 5, false), -57344.0);
        assert_eq!(float8_to_f64(0x40, 5, true), 1.0); // e5m2fnuz
    }

    #[test]
    fn onnx_codes_round_trip() {
        for d in DType::ALL {
            assert_eq!(DType::from_onnx_code(d.onnx_code()), Some(d));
            assert_eq!(DType::parse(d.name()), Some(d));
        }
    }
}
