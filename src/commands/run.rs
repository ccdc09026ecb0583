//! `dmlrun run MODEL` (and plain `dmlrun MODEL`): load, bind inputs, run, time, report.

use std::path::Path;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use crate::exit::ExitStatus;

use crate::cli::RunArgs;
use crate::interrupt::interrupted_in;
use crate::outputs::{self, TensorRole};
use crate::report::run::{self, Iterations, MapOutput, ModelReport, RunReport, Timings};
use crate::report::{self, ms};
use crate::runtime::engine::{self, Preflight, Scope};
use crate::settings::RunSettings;
use crate::stage::Deadline;
use crate::stats;
use crate::suites::testdata::NamedTensor;
use crate::tensor::{flatten, HostValue};

pub fn execute(args: &RunArgs) -> Result<ExitStatus> {
    run(&RunSettings::resolve(args)?)
}

fn run(settings: &RunSettings) -> Result<ExitStatus> {
    let model_path = settings.model.as_path();
    crate::stage::step("loading ONNX Runtime");
    let _deadline = (!settings.timeout.is_zero())
        .then(|| Deadline::start(settings.timeout, format!("model {}", model_path.display())));
    let started = Instant::now();
    let runtime = settings.ort.load()?;
    let runtime_load = started.elapsed();
    if !settings.print_plan {
        // What the flags ask of any model (DirectML, an adapter) is said before the model is read.
        engine::check_request(&runtime, &settings.request)?;
    }
    let preflight = Preflight::read(&runtime, model_path, &settings.request, Scope::Alone)?;
    let Some(measured) = measure(&runtime, settings, &preflight)? else {
        return Ok(ExitStatus::Interrupted);
    };
    let report = run_report(settings, &runtime, &preflight, measured, runtime_load)?;
    emit(&report, settings.json.as_deref(), settings.quiet)?;
    let differs = report.comparison.as_ref().is_some_and(|c| !c.mismatches.is_empty())
        || report.device_io.as_ref().is_some_and(|io| !io.outputs_match());
    Ok(ExitStatus::of_checks(differs, crate::interrupt::interrupted()))
}

/// The model's runs as the flags ask, through the engine; `None` where Ctrl-C came before any
/// timed run (nobody's failure, and nothing measured to report).
fn measure(
    runtime: &crate::runtime::Runtime,
    settings: &RunSettings,
    preflight: &Preflight,
) -> Result<Option<engine::Measurement>> {
    let reference = settings
        .reference
        .as_ref()
        .map(|r| (preflight.request.reference(r.ep.clone(), r.optimization_level), r.tolerance));
    let compare = settings.reference.as_ref().map(|r| (&r.ep, r.optimization_level));
    engine::warn_if_compared_with_itself(runtime, &preflight.request, compare);
    let measure = engine::MeasureRequest {
        preflight,
        label: None,
        print_plan: settings.print_plan,
        inputs: &settings.inputs,
        load: &settings.load,
        warmup: settings.warmup,
        budget: engine::RunBudget::runs(settings.iterations),
        reference,
        time_reference: false,
        time_float32: false,
        rounds: 1,
        paired: None,
        keep_made_model: settings.save_model.is_some() || settings.as_test_data,
    };
    let bar = crate::progress::iterations(settings.iterations, "iterations", settings.quiet);
    match engine::measure(runtime, &measure, &bar) {
        Ok(measured) => Ok(Some(measured)),
        Err(_) if crate::interrupt::interrupted() => {
            let step = crate::stage::current().step;
            let model = settings.model.display();
            crate::errln!("dmlrun: model {model}: {}; nothing was measured", interrupted_in(&step));
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// What run reports of a measurement: the outputs summarised (and their top-k), the timings, and
/// the files it saved.
fn run_report(
    settings: &RunSettings,
    runtime: &crate::runtime::Runtime,
    preflight: &Preflight,
    measured: engine::Measurement,
    runtime_load: std::time::Duration,
) -> Result<RunReport> {
    let engine::Measurement {
        model,
        bound,
        input_prepare,
        first_run,
        outputs,
        samples,
        comparison,
        device_io,
        warnings,
        precision,
        rewrite,
        made_model,
        ..
    } = measured;
    // Maps are reported and saved whole, as JSON. Summaries, top-k and saved files take
    // tensors: a sequence output's items count as tensors named `output[i]`.
    let (maps, tensor_outputs): (Vec<_>, Vec<_>) =
        outputs.into_iter().partition(|(_, v)| matches!(v, HostValue::Map(_) | HostValue::Maps(_)));
    let map_outputs: Vec<MapOutput> = maps.iter().map(|(name, value)| map_output(name, value)).collect();
    let results = flatten(&tensor_outputs);
    let latency = stats::summarize(&samples);
    let batch_size = engine::batch_size(&model, &bound);
    let items_per_s = match (&latency, batch_size) {
        (Some(l), Some(b)) if b > 1 => Some(l.throughput_per_s * b as f64),
        _ => None,
    };
    let labels = settings.labels.as_ref().map(|(p, l)| (p.as_path(), l.as_slice()));
    let top_k = match settings.top_k {
        Some(k) => Some(outputs::top_k(&results, k, labels)?),
        None => None,
    };
    let made = (made_model.as_deref(), rewrite.as_ref(), precision.as_ref());
    let saved_outputs = save_files(settings, preflight, made, &bound.tensors, &results, &map_outputs)?;
    Ok(RunReport {
        schema: run::RUN_SCHEMA,
        dmlrun_version: env!("CARGO_PKG_VERSION"),
        model: ModelReport { path: settings.model.clone(), size_bytes: preflight.model.size_bytes },
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
            warmup: settings.warmup,
            timed: settings.iterations,
            latency_ms: latency,
            items_per_s,
            batch_size,
        },
        outputs: results.iter().map(|(n, t)| outputs::summarize(n, t)).collect(),
        map_outputs,
        top_k,
        saved_outputs,
        gpu_memory: model.memory.as_ref().map(|m| m.memory.clone()),
        warnings,
        comparison,
        device_io,
        precision,
        rewrite,
        interrupted: crate::interrupt::interrupted(),
    })
}

type Made<'a> = (Option<&'a [u8]>, Option<&'a engine::RewriteReport>, Option<&'a engine::PrecisionReport>);

/// --save-outputs (as tensors, or with --as-test-data as an ONNX test case), --save-inputs and
/// --save-model: the files written, in that order.
fn save_files(
    settings: &RunSettings,
    preflight: &Preflight,
    made: Made<'_>,
    inputs: &[NamedTensor],
    results: &[NamedTensor],
    map_outputs: &[MapOutput],
) -> Result<Vec<std::path::PathBuf>> {
    let mut saved = match &settings.save_outputs {
        Some(_) if settings.as_test_data && !map_outputs.is_empty() => bail!(
            "--as-test-data: output '{}' is a {}, which dmlrun cannot write as ONNX test data; save it without --as-test-data (as JSON)",
            map_outputs[0].name,
            map_outputs[0].kind
        ),
        // The model that made the outputs, as --save-model writes it: never the original where
        // dmlrun rewrote or converted it.
        Some(dir) if settings.as_test_data => write_test_case(dir, preflight, made, inputs, results)?,
        Some(dir) => {
            let mut saved = outputs::save(dir, results, settings.save_format, TensorRole::Output)?;
            saved.extend(outputs::save_json(dir, map_outputs.iter().map(|m| (m.name.as_str(), &m.value)))?);
            saved
        }
        None => Vec::new(),
    };
    if let Some(dir) = &settings.save_inputs {
        saved.extend(outputs::save(dir, inputs, settings.save_format, TensorRole::Input)?);
    }
    if let Some(path) = &settings.save_model {
        let (made, rewrite, precision) = made;
        let model = engine::saved_model(&settings.model, preflight, made, rewrite, precision, settings.save_fixed_dims)
            .context("--save-model")?;
        let source_folder = crate::fsutil::folder_of(&settings.model);
        let written = crate::formats::onnx_proto::write_model_from(path, &model, source_folder)
            .with_context(|| format!("--save-model {}", path.display()))?;
        saved.extend(written);
    }
    Ok(saved)
}

fn write_test_case(
    dir: &Path,
    preflight: &Preflight,
    (made, rewrite, precision): Made<'_>,
    inputs: &[NamedTensor],
    outputs: &[NamedTensor],
) -> Result<Vec<std::path::PathBuf>> {
    let model_path = preflight.model_path.as_path();
    let external = &preflight.model.info.external_data;
    if made.is_some() || external.is_empty() {
        // The test case's model keeps its free dimensions: its data sizes them.
        let model =
            engine::saved_model(model_path, preflight, made, rewrite, precision, false).context("--as-test-data")?;
        return crate::suites::testdata::write_case(dir, &model, inputs, outputs);
    }
    // A model dmlrun did not change, its weights in external data files: the case holds it as it
    // is, its data files beside it under the names it gives them.
    let model = std::fs::read(model_path).with_context(|| format!("reading {}", model_path.display()))?;
    let mut written = crate::suites::testdata::write_case(dir, &model, inputs, outputs)?;
    let folder = model_path.parent().unwrap_or(Path::new("."));
    for file in external {
        let inside = Path::new(file).components().all(|c| matches!(c, std::path::Component::Normal(_)));
        if !inside {
            bail!("--as-test-data: {} names its external data '{file}', outside its folder", model_path.display());
        }
        let (from, to) = (folder.join(file), dir.join(file));
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
        }
        std::fs::copy(&from, &to)
            .with_context(|| format!("--as-test-data: copying {} to {}", from.display(), to.display()))?;
        written.push(to);
    }
    Ok(written)
}

fn map_output(name: &str, value: &HostValue) -> MapOutput {
    let json = match value {
        HostValue::Map(map) => map.to_json(),
        HostValue::Maps(maps) => serde_json::Value::Array(maps.iter().map(|m| m.to_json()).collect()),
        _ => serde_json::Value::Null,
    };
    MapOutput { name: name.to_string(), kind: value.kind(), value: json }
}

fn emit(report: &RunReport, json: Option<&Path>, quiet: bool) -> Result<()> {
    let json_on_stdout = match json {
        Some(path) => report::write_json(path, report, "--json")?,
        None => false,
    };
    if !json_on_stdout {
        crate::out!("{}", run::human::render(report, quiet));
    }
    Ok(())
}
