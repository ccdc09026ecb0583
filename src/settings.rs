//! Flags resolved once into the values the engine takes: the session plan request and the
//! image preprocessing request, shared by run, test and bench.

use anyhow::Result;

use crate::cli::{DeviceIoArgs, InputArgs, PreprocessArgs, SessionArgs};
use crate::formats::image::PreprocessRequest;
use crate::inputs::generate::Fill;
use crate::inputs::LoadOptions;
use crate::runtime::plan::PlanRequest;
use crate::runtime::OrtLogLevel;

/// Turns the session flags into a plan request; a `--device` given by name or LUID is looked up
/// among the DXGI adapters here, once.
pub fn plan_request(args: &SessionArgs, log_level: OrtLogLevel) -> Result<PlanRequest> {
    let device = args.device.as_ref().map(|d| d.resolve()).transpose()?;
    Ok(PlanRequest {
        ep: args.ep.clone(),
        device,
        performance_preference: args.dml_performance_preference,
        device_filter: args.dml_device_filter,
        execution_mode: args.execution_mode,
        memory_pattern: args.memory_pattern,
        optimization_level: args.opt_level,
        intra_op_threads: args.intra_threads.filter(|n| *n > 0),
        inter_op_threads: args.inter_threads.filter(|n| *n > 0),
        dims: args.dims.clone(),
        dim_denotations: args.dim_denotations.clone(),
        shapes: args.shapes.clone(),
        log_level,
        profile_prefix: None,
        optimized_model_path: None,
        auto_dims: !args.no_auto_dims,
        dml_disable_metacommands: args.dml_disable_metacommands,
        dml_graph_capture: false,
        ep_options: args.ep_options.clone(),
        session_config: args.session_config.clone(),
        io_on_device: false,
        precision: args.precision,
        keep_fp32: args.keep_fp32.clone(),
    })
}

/// The plan request of `run` and `bench`, whose timed runs may keep their inputs and outputs on
/// the device.
pub fn run_plan_request(args: &SessionArgs, device_io: &DeviceIoArgs, log_level: OrtLogLevel) -> Result<PlanRequest> {
    Ok(PlanRequest {
        io_on_device: device_io.io_on_device || device_io.dml_graph_capture,
        dml_graph_capture: device_io.dml_graph_capture,
        ..plan_request(args, log_level)?
    })
}

/// How `run` and `reduce` load, preprocess and generate a model's inputs.
pub fn load_options(input: &InputArgs, preprocess: &PreprocessArgs) -> LoadOptions {
    LoadOptions {
        preprocess: preprocess_request(preprocess, input.max_image_pixels),
        // A range asks for random data.
        generate: input.generate.or((!input.generate_ranges.is_empty()).then_some(Fill::Random)),
        seed: input.seed,
        max_tensor_bytes: input.max_tensor_bytes,
        free_dim_size: usize::try_from(input.free_dim_size).unwrap_or(usize::MAX),
        ranges: input.generate_ranges.clone(),
    }
}

pub fn preprocess_request(args: &PreprocessArgs, max_pixels: u64) -> PreprocessRequest {
    PreprocessRequest {
        preset: args.preset,
        resize: args.resize,
        resize_to: args.resize_to,
        filter: args.filter,
        scale: args.scale,
        mean: args.mean.clone(),
        std: args.std.clone(),
        channel_order: args.channel_order,
        layout: args.layout,
        pad_value: args.pad_value,
        size: args.image_size,
        max_pixels,
    }
}
