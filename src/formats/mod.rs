//! File formats dmlrun reads and writes: images (decode, resize, crop, normalise, lay out; JPEG
//! through libjpeg-turbo's decoder, as Pillow), numpy `.npy`/`.npz`, ONNX `TensorProto` tensors,
//! and the ONNX model header (inputs, outputs, opsets), each a codec with no knowledge of
//! commands or ONNX Runtime.

pub mod image;
pub mod jpeg;
pub mod model;
pub mod npy;
pub mod onnx_proto;
pub mod outline;
pub mod quantized;
pub mod resample;
pub mod tensor_proto;
pub mod weights;
