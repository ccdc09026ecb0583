//! The domain's plain enums as clap's value enums: each value's name comes from the domain
//! (`flag_values!`), its line in `--help` from here, where the command line's words live.

use clap::builder::PossibleValue;
use clap::ValueEnum;

use crate::formats::image::{ChannelOrder, Layout, Preset, ResizeMode};
use crate::formats::resample::Filter;
use crate::generate::KvLayout;
use crate::inputs::synthetic::Fill;
use crate::isolation::Isolation;
use crate::outputs::SaveFormat;
use crate::runtime::plan::{
    DeviceFilter, ExecutionMode, OptimizationLevel, OrtLogLevel, PerformancePreference, Precision,
};

/// `impl ValueEnum` for a domain enum named by `flag_values!`, with each value's help (`""`: none).
macro_rules! value_enum {
    ($t:ident $({ $($variant:ident: $help:literal),+ $(,)? })?) => {
        impl ValueEnum for $t {
            fn value_variants<'a>() -> &'a [Self] {
                $t::ALL
            }

            fn to_possible_value(&self) -> Option<PossibleValue> {
                let value = PossibleValue::new(self.flag_name());
                $(
                    let help = match self {
                        $($t::$variant => $help,)+
                        #[allow(unreachable_patterns)]
                        _ => "",
                    };
                    let value = if help.is_empty() { value } else { value.help(help) };
                )?
                Some(value)
            }
        }
    };
}

value_enum!(Precision {
    Fp32: "As the model is written",
    Fp16: "Float32 initializers and computation converted to float16, inputs and outputs float32",
    Int4: "Weight-only: each MatMul's constant weight in 4-bit blocks (MatMulNBits)",
    Int8: "Weight-only: each MatMul's constant weight in 8-bit blocks (MatMulNBits)",
});
value_enum!(PerformancePreference);
value_enum!(DeviceFilter);
value_enum!(ExecutionMode);
value_enum!(OptimizationLevel);
value_enum!(OrtLogLevel);
value_enum!(Isolation {
    Auto: "In child processes when DirectML is in the plan or a time limit holds (by default one does), in this process otherwise",
    Process: "Always in child processes",
    None: "In this process",
});
value_enum!(ResizeMode {
    Crop: "Resize the shorter side (to `--resize-to`, default crop/0.875), then centre-crop",
    Stretch: "Resize to exactly the model's size, ignoring the aspect ratio",
    Letterbox: "Fit inside the model's size keeping the aspect ratio, pad the rest with `--pad-value`",
    CenterCrop: "No resizing: centre-crop to the model's size, padding with zeros where the picture is smaller (torchvision's `CenterCrop` alone)",
    None: "No resizing: the image must already have the model's size",
});
value_enum!(ChannelOrder);
value_enum!(Layout);
value_enum!(Preset {
    Imagenet: "torchvision ImageNet: crop mode, [0,1] then mean [0.485,0.456,0.406] / std [0.229,0.224,0.225], RGB",
    Unit: "Stretch to size, scale to [0,1], no mean/std, RGB",
    Raw: "Stretch to size, pixel values 0..255 unchanged, RGB",
});
value_enum!(Filter);
value_enum!(SaveFormat {
    Npy: "One NAME.npy per output",
    Npz: "One outputs.npz holding every output",
    Pb: "One output_K.pb (ONNX TensorProto) per output, as in ONNX test data",
});
value_enum!(Fill {
    Random: "Uniform random: floats in [0, 1), integers 0 or 1, bools 50/50 (--generate-range changes the range)",
    Zeros: "",
    Ones: "",
});
value_enum!(KvLayout {
    Shared: "One buffer of --max-length positions, bound as both past and present (static shapes)",
    Growing: "Each step's present outputs become the next step's past inputs, one position longer",
});
