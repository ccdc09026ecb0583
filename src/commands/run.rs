//! `dmlrun run MODEL` (and plain `dmlrun MODEL`): load, bind inputs, run, time, report.

use std::path::Path;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use crate::cli::{PreprocessArgs, RunArgs, SessionArgs};
use crate::compare::{self, Tolerance};
use crate::inputs::image::PreprocessRequest;
use crate::inputs::{self, InputArg, LoadOptions};
use crate::outputs::{self, TensorRole};
use crate::report::{self, ms, Comparison, Iterations, ModelReport, RunReport, Timings};
use crate::runner::{self, PreparedInputs};
use crate::runtime::plan::{PlanRequest, SessionPlan};
use crate::runtime::Runtime;
use crate::stats;

/// Turns the session flags into a plan request.
pub fn plan_request(args: &SessionArgs, log_level: crate::runtime::OrtLogLevel) -> PlanRequest {
    PlanRequest {
        ep: args.ep,
        device: args.device,
        performance_preference: args.dml_performance_preference,
        device_filter: args.dml_device_filter,
        execution_mode: args.execution_mode,
        memory_pattern: args.memory_pattern,
        optimization_level: args.opt_level,
        intra_op_threads: args.intra_threads.filter(|n| *n > 0),
        inter_op_threads: args.inter_threads.filter(|n| *n > 0),
        dims: args.dims.clone(),
        dim_denotations: args.dim_denotations.clone(),
        log_level,
        profile_prefix: None,
        optimized_model_path: None,
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

/// The warning DirectML users need when a free dimension stays free.
pub fn dynamic_shape_warning(plan: &SessionPlan) -> Option<String> {
    if !plan.uses_directml() || plan.unfixed_dims.is_empty() {
        return None;
    }
    let flags: Vec<String> = plan.unfixed_dims.iter().map(|d| format!("--dim {d}=<size>")).collect();
    Some(format!(
        "DirectML is slow with dynamic shapes: free dimension(s) {} are not fixed; add {}",
        plan.unfixed_dims.join(", "),
        flags.join(" ")
    ))
}

pub fn execute(args: &RunArgs) -> Result<i32> {
    let Some(model_path) = args.model.as_deref() else {
        bail!("no model given: dmlrun MODEL [--input FILE]... (see dmlrun --help)");
    };
    if !model_path.is_file() {
        bail!("model {}: no such file", model_path.display());
    }
    // Validate output destinations before any work, so a typo costs nothing.
    if let Some(dir) = &args.save_outputs {
        if dir.exists() && !dir.is_dir() {
            bail!("--save-outputs {}: exists and is not a directory", dir.display());
        }
    }
    let labels = match &args.labels {
        Some(path) => Some((path.clone(), outputs::read_labels(path)?)),
        None => None,
    };

    let started = Instant::now();
    let runtime = Runtime::load(args.ort.ort_lib.as_deref(), args.ort.ort_log_level)?;
    let runtime_load = started.elapsed();

    let request = plan_request(&args.session, args.ort.ort_log_level);
    let mut warnings = Vec::new();
    let mut model = runner::load(&runtime, model_path, &request, args.session.print_plan, |plan| {
        if let Some(w) = dynamic_shape_warning(plan) {
            // Said before the (possibly long) session creation, once.
            eprintln!("warning: {w}");
            warnings.push(w);
        }
    })?;

    if let Some(w) = model.device.placement_warning() {
        eprintln!("warning: {w}");
        warnings.push(w);
    }

    let started = Instant::now();
    let options = LoadOptions {
        preprocess: preprocess_request(&args.preprocess, args.max_image_pixels),
        generate: args.generate,
        seed: args.seed,
        max_tensor_bytes: args.max_tensor_bytes,
    };
    let input_args: Vec<InputArg> = args.inputs.iter().cloned().map(InputArg).collect();
    let bound = inputs::bind(&input_args, &model.inputs, &options)?;
    let prepared = PreparedInputs::new(&bound.tensors)?;
    let input_prepare = started.elapsed();

    let started = Instant::now();
    let results = runner::run_to_host(&mut model.session, &prepared)?;
    let first_run = started.elapsed();

    runner::warm_up(&mut model.session, &prepared, args.warmup)?;
    let bar = crate::progress::iterations(args.iterations, "iterations", args.quiet);
    let budget = runner::RunBudget { max: args.iterations, time_box: None, min: 0 };
    let samples = runner::timed_runs(&mut model.session, &prepared, budget, &bar)?;
    bar.finish_and_clear();
    let latency = stats::summarize(&samples);
    let batch_size = runner::batch_size(&model, &bound);
    let items_per_s = match (&latency, batch_size) {
        (Some(l), Some(b)) if b > 1 => Some(l.throughput_per_s * b as f64),
        _ => None,
    };

    let comparison = match args.compare.compare_ep {
        Some(ep) => {
            let reference_request = request.reference(ep, args.compare.compare_opt_level);
            let mut reference = runner::load(&runtime, model_path, &reference_request, false, |_| {})
                .context("--compare-ep reference session")?;
            let expected =
                runner::run_to_host(&mut reference.session, &prepared).context("--compare-ep reference run")?;
            let tolerance = Tolerance { atol: args.compare.atol, rtol: args.compare.rtol };
            let mismatches = compare::compare_outputs(&expected, &results, tolerance);
            Some(Comparison {
                reference: reference.device.clone(),
                reference_optimization_level: reference_request.optimization_level,
                tolerance,
                outputs_compared: expected.len(),
                mismatches,
                differences: compare::differences(&expected, &results),
            })
        }
        None => None,
    };
    let summaries = results.iter().map(|(n, t)| outputs::summarize(n, t)).collect();
    let top_k = match args.top_k {
        Some(k) => Some(outputs::top_k(&results, k, labels.as_ref().map(|(p, l)| (p.as_path(), l.as_slice())))?),
        None => None,
    };
    let mut saved_outputs = match &args.save_outputs {
        Some(dir) if args.as_test_data => crate::testdata::write_case(dir, model_path, &bound.tensors, &results)?,
        Some(dir) => outputs::save(dir, &results, args.save_format, TensorRole::Output)?,
        None => Vec::new(),
    };
    if let Some(dir) = &args.save_inputs {
        saved_outputs.extend(outputs::save(dir, &bound.tensors, args.save_format, TensorRole::Input)?);
    }

    let report = RunReport {
        schema: report::json::RUN_SCHEMA,
        dmlrun_version: env!("CARGO_PKG_VERSION"),
        model: ModelReport {
            path: model_path.to_path_buf(),
            size_bytes: std::fs::metadata(model_path).map(|m| m.len()).unwrap_or(0),
        },
        onnxruntime: runtime.library.clone(),
        device: model.device.clone(),
        plan: model.plan.clone(),
        inputs: bound.sources,
        timings_ms: Timings {
            runtime_load: ms(runtime_load),
            model_load: ms(model.load_time),
            session_create: ms(model.session_time),
            input_prepare: ms(input_prepare),
            first_run: ms(first_run),
        },
        iterations: Iterations {
            warmup: args.warmup,
            timed: args.iterations,
            latency_ms: latency,
            items_per_s,
            batch_size,
        },
        outputs: summaries,
        top_k,
        saved_outputs,
        warnings,
        comparison,
    };
    emit(&report, args.json.as_deref(), args.quiet)?;
    let differs = report.comparison.as_ref().is_some_and(|c| !c.mismatches.is_empty());
    Ok(if crate::interrupt::interrupted() {
        crate::interrupt::EXIT_INTERRUPTED
    } else if differs {
        super::test::EXIT_FAILED
    } else {
        0
    })
}

fn emit(report: &RunReport, json: Option<&Path>, quiet: bool) -> Result<()> {
    let json_on_stdout = match json {
        Some(path) => report::write_json(path, report, "--json")?,
        None => false,
    };
    if !json_on_stdout {
        print!("{}", report::human::render(report, quiet));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::plan::{resolve, EpRequest, CPU_PROVIDER, DML_PROVIDER};

    #[test]
    fn warns_about_unfixed_dims_only_with_directml() {
        let model = crate::model::ModelInfo {
            inputs: vec![crate::model::IoInfo {
                kind: Default::default(),
                name: "x".into(),
                dtype: Some("float32".into()),
                dims: vec![crate::model::DimInfo { param: Some("batch".into()), ..Default::default() }],
            }],
            ..Default::default()
        };
        let available = vec![DML_PROVIDER.to_string(), CPU_PROVIDER.to_string()];
        let dml = resolve(&PlanRequest { ep: EpRequest::Dml, ..PlanRequest::default() }, &available, &model).unwrap();
        let warning = dynamic_shape_warning(&dml).unwrap();
        assert!(warning.contains("DirectML is slow with dynamic shapes") && warning.contains("--dim batch=<size>"));
        let cpu = resolve(&PlanRequest { ep: EpRequest::Cpu, ..PlanRequest::default() }, &available, &model).unwrap();
        assert_eq!(dynamic_shape_warning(&cpu), None);
        let fixed = PlanRequest { ep: EpRequest::Dml, dims: vec![("batch".into(), 1)], ..PlanRequest::default() };
        assert_eq!(dynamic_shape_warning(&resolve(&fixed, &available, &model).unwrap()), None);
    }
}
