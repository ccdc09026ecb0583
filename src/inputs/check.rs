//! A tensor checked against the input it is fed to: its element type and rank, its fixed sizes,
//! and the sizes its symbolic dimensions take, consistent across the inputs given so far.

use super::*;

/// The size each symbolic dimension took in the inputs checked so far, which input (and axis)
/// gave it, and the warnings about names given two sizes.
#[derive(Debug, Default)]
pub struct Symbols {
    pub(super) sizes: BTreeMap<String, (usize, String, usize)>,
    pub warnings: Vec<String>,
}

/// Checks dtype, rank and every dimension of `tensor` against `sig`.
pub fn check_tensor(sig: &InputSignature, tensor: &HostTensor, files: &[PathBuf], symbols: &mut Symbols) -> Result<()> {
    let from = files.first().map(|f| format!(" ({})", f.display())).unwrap_or_default();
    if Some(tensor.dtype) != sig.dtype {
        bail!("input '{}' expects {}, got {}{from}", sig.name, sig.type_name, tensor.dtype);
    }
    if tensor.shape.len() != sig.dims.len() {
        bail!(
            "input '{}' expects rank {} {}, got shape {}{from}",
            sig.name,
            sig.dims.len(),
            sig.describe(),
            format_shape(&tensor.shape)
        );
    }
    for (axis, (dim, &got)) in sig.dims.iter().zip(&tensor.shape).enumerate() {
        if let Some(want) = dim.size {
            if want != got {
                let why = match &dim.symbol {
                    Some(sym) => format!(" (fixed by --dim {sym}={want})"),
                    None => String::new(),
                };
                bail!(
                    "input '{}' expects {} but got shape {}{from}: axis {axis} must be {want}{why}",
                    sig.name,
                    sig.describe(),
                    format_shape(&tensor.shape)
                );
            }
        }
        if let Some(sym) = &dim.symbol {
            match symbols.sizes.get(sym) {
                Some((seen, input, seen_axis)) if *seen != got => {
                    // ONNX Runtime runs this: a dimension's name is a hint, not a constraint.
                    let other = if *input == sig.name { "this input".to_string() } else { format!("input '{input}'") };
                    symbols.warnings.push(format!(
                        "input '{}' has {sym}={got} on axis {axis}{from}, but {other} has {sym}={seen} on axis {seen_axis} (the model names both '{sym}'; ONNX Runtime accepts it)",
                        sig.name
                    ));
                }
                Some(_) => {}
                None => {
                    symbols.sizes.insert(sym.clone(), (got, sig.name.clone(), axis));
                }
            }
        }
    }
    Ok(())
}

impl Symbols {
    pub fn new() -> Symbols {
        Symbols::default()
    }
}
