//! `fix`'s attempts: the reference run and each set of remedies tried as a whole run against it
//! (each an item of the one batch runner: in a child dmlrun where DirectML is in the plan or a
//! limit holds), and the node `reduce` pins a failure on.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use super::{decoder, Remedy};
use crate::batch::{self, Batch, Ended};
use crate::compare::Tolerance;
use crate::graph::Graph;
use crate::isolation::Placement;
use crate::progress::Counting;
use crate::report::fix::{Attempt, AttemptOutcome, Located};
use crate::runtime::engine::{self, Preflight, Scope};
use crate::runtime::plan::{PlanRequest, Precision};
use crate::runtime::Runtime;
use crate::settings::FixSettings;

/// One attempt as an item of the batch runner (what a child is handed): the reference's run of
/// the original, or the model with `remedies`; a decoder's attempt is held to the reference's
/// tokens. A model that passes is written into `staging`.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct AttemptSpec {
    pub(super) reference: bool,
    pub(super) remedies: Vec<Remedy>,
    pub(super) reference_tokens: Option<Vec<i64>>,
    #[serde(with = "crate::fsutil::any_path")]
    pub(super) staging: PathBuf,
}

/// One attempt's record, and the model to write where it passed (or why there is none): a file
/// in the staging folder, written by whichever process ran the attempt.
#[derive(Serialize, Deserialize)]
pub(super) struct Tried {
    pub(super) attempt: Attempt,
    pub(super) model: Option<std::result::Result<PathBuf, String>>,
    /// A decoder's greedy tokens (the reference's run, which later attempts are held to).
    #[serde(default)]
    pub(super) tokens: Option<Vec<i64>>,
    /// An output is NaN or infinite where the reference's is finite (or the other way round): in
    /// float16, a value that left its range.
    #[serde(default)]
    pub(super) overflowed: bool,
}

/// What every attempt shares.
pub(super) struct Attempts<'a> {
    pub(super) runtime: &'a Runtime,
    /// The model, the user's request every attempt starts from, its inputs, the reference and
    /// the tolerance.
    pub(super) settings: &'a FixSettings,
    pub(super) placement: Placement,
    /// DirectML is in the plan: the runner takes one attempt at a time.
    pub(super) directml: bool,
    /// Where attempts write their models.
    pub(super) staging: &'a Path,
    /// The reference's greedy tokens, once its run has given them.
    pub(super) reference_tokens: std::sync::OnceLock<Vec<i64>>,
}

/// An attempt as the batch runner runs it: here, or in a child that runs it here.
impl Batch for Attempts<'_> {
    type Item = AttemptSpec;
    type Outcome = Tried;

    fn name<'a>(&self, spec: &'a AttemptSpec) -> &'a str {
        match spec.reference {
            true => "the reference run",
            false => "the attempt",
        }
    }

    fn run(&self, spec: &AttemptSpec, _bars: &indicatif::MultiProgress) -> Tried {
        // What the parent knew when it handed the attempt on: its staging folder, the reference's tokens.
        let reference_tokens = std::sync::OnceLock::new();
        if let Some(tokens) = spec.reference_tokens.clone() {
            let _ = reference_tokens.set(tokens);
        }
        let here = Attempts { placement: Placement::default(), staging: &spec.staging, reference_tokens, ..*self };
        match spec.reference {
            true => here.reference_here(),
            false => here.run_here(&spec.remedies),
        }
    }

    fn ended(&self, _spec: &AttemptSpec, end: Ended) -> Tried {
        let why = match end {
            Ended::Crash(how) | Ended::Timeout(how) | Ended::Interrupted(how) => how,
        };
        Tried::failed(why, 0.0)
    }
}

impl Tried {
    pub(super) fn passes(&self) -> bool {
        matches!(self.attempt.outcome, AttemptOutcome::Passes)
    }

    /// An attempt that could not run: why.
    fn failed(why: String, seconds: f64) -> Tried {
        Tried {
            attempt: Attempt {
                remedies: Vec::new(),
                outcome: AttemptOutcome::Fails(why),
                max_abs_diff: None,
                seconds,
                note: None,
            },
            model: None,
            tokens: None,
            overflowed: false,
        }
    }
}

/// A path not taken yet: `attempt-7.onnx`, else `attempt-7-2.onnx`, ...
pub(super) fn unique(path: PathBuf) -> PathBuf {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    (1..)
        .map(|k| if k == 1 { path.clone() } else { path.with_file_name(format!("{stem}-{k}.onnx")) })
        .find(|p| !p.exists())
        .expect("an unbounded range")
}

/// This run's own arguments made `dmlrun reduce`'s: the command word changed, fix's own flags
/// (its output and --write-unchanged) dropped, `extra` added. The flags they share (inputs,
/// shapes, EP and session, reference and tolerance, runtime) pass as they are.
pub(super) fn reduce_args(own: &[OsString], extra: &[OsString]) -> Vec<OsString> {
    let mut out = Vec::new();
    let mut command_seen = false;
    let mut skip_value = false;
    for arg in own {
        if skip_value {
            skip_value = false;
            continue;
        }
        let text = arg.to_string_lossy();
        if !command_seen && text == "fix" {
            command_seen = true;
            out.push(OsString::from("reduce"));
            continue;
        }
        match text.as_ref() {
            "-o" | "--output" => skip_value = true,
            "--write-unchanged" | "--save-fixed-dims" | "-q" | "--quiet" => {}
            t if t.starts_with("--output=") || (t.starts_with("-o") && t.len() > 2 && !t.starts_with("--")) => {}
            _ => out.push(arg.clone()),
        }
    }
    out.extend(extra.iter().cloned());
    out
}

impl Attempts<'_> {
    /// The whole model with `remedies` (beside the user's own flags) on the EP under test,
    /// against the reference on the original model.
    pub(super) fn run(&self, remedies: &[Remedy]) -> Tried {
        let mut tried = self.through_runner(AttemptSpec {
            reference: false,
            remedies: remedies.to_vec(),
            reference_tokens: self.reference_tokens.get().cloned(),
            staging: self.staging.to_path_buf(),
        });
        tried.attempt.remedies = remedies.iter().map(|r| r.flag()).collect();
        tried
    }

    /// The original on the reference: `Passes` where it runs, `Fails` with why otherwise.
    pub(super) fn reference(&self) -> Tried {
        self.through_runner(AttemptSpec {
            reference: true,
            remedies: Vec::new(),
            reference_tokens: None,
            staging: self.staging.to_path_buf(),
        })
    }

    /// `spec` as the one item of a batch: in a child held to the time limit where the placement
    /// says so (one that hangs, crashes or is stopped is that attempt's failure), else here.
    fn through_runner(&self, spec: AttemptSpec) -> Tried {
        let started = Instant::now();
        let options = batch::Options::new(self.placement, self.directml, (1, 1), Counting::Attempts, true);
        batch::run_alone(self, spec, &options).unwrap_or_else(|why| Tried::failed(why, started.elapsed().as_secs_f64()))
    }

    /// An attempt in this process.
    fn run_here(&self, remedies: &[Remedy]) -> Tried {
        let started = Instant::now();
        let request = self.request_with(remedies);
        let flags = remedies.iter().map(|r| r.flag()).collect();
        if self.settings.decoder {
            let reference = self.reference_tokens.get().cloned().unwrap_or_default();
            let judged = reference_of(&self.settings.request, self.settings);
            let against = engine::Against { request: &judged, tokens: &reference };
            let (outcome, note) =
                match engine::greedy_tokens(self.runtime, &self.settings.model, &request, Some(against)) {
                    Ok(run) => decoder::judge(&run, &reference),
                    Err(e) => (AttemptOutcome::Fails(crate::exit::one_line(&e)), None),
                };
            let attempt = Attempt {
                remedies: flags,
                outcome,
                max_abs_diff: None,
                seconds: started.elapsed().as_secs_f64(),
                note,
            };
            return Tried { attempt, model: None, tokens: None, overflowed: false };
        }
        let mut overflowed = false;
        // A float16 remedy is held to float16's tolerance where the one given asks less, as tune
        // holds its float16 candidate: float32's would reject every float16 model.
        let tolerance = match request.precision {
            Precision::Fp16 => self.settings.tolerance.at_least(crate::compare::FLOAT16),
            _ => self.settings.tolerance,
        };
        let note = (tolerance != self.settings.tolerance)
            .then(|| format!("held to float16's tolerance: atol {}, rtol {}", tolerance.atol, tolerance.rtol));
        let (outcome, max_abs_diff, model) = match run_once(self.runtime, self.settings, &request, Some(tolerance)) {
            Ok(ran) => {
                // NaN or infinity where the reference has a number.
                overflowed = ran.mismatches.iter().any(crate::compare::Mismatch::non_finite);
                match ran.mismatches.first() {
                    // Right numbers with the model's work on the CPU: not what was asked.
                    None if ran.off_directml.is_some() => (
                        AttemptOutcome::Fails(format!(
                            "ran, but not wholly on DirectML: off it, {}",
                            ran.off_directml.unwrap_or_default()
                        )),
                        ran.max_abs_diff,
                        None,
                    ),
                    None => (AttemptOutcome::Passes, ran.max_abs_diff, ran.model),
                    // The largest finite difference would hide the infinite one.
                    Some(first) => {
                        (AttemptOutcome::Differs(first.to_string()), ran.max_abs_diff.filter(|_| !overflowed), None)
                    }
                }
            }
            Err(e) => (AttemptOutcome::Fails(crate::exit::one_line(&e)), None, None),
        };
        // The model to ship, kept as a file: a child hands it to its parent this way.
        let model = model.map(|made| {
            made.and_then(|bytes| {
                let path = self.staging.join(format!("attempt-{}.onnx", std::process::id()));
                let path = unique(path);
                std::fs::write(&path, bytes).map_err(|e| format!("writing {}: {e}", path.display()))?;
                Ok(path)
            })
        });
        let attempt =
            Attempt { remedies: flags, outcome, max_abs_diff, seconds: started.elapsed().as_secs_f64(), note };
        Tried { attempt, model, tokens: None, overflowed }
    }

    /// The user's request with `remedies` added.
    pub(super) fn request_with(&self, remedies: &[Remedy]) -> PlanRequest {
        let mut request = self.settings.request.clone();
        for remedy in remedies {
            match remedy {
                Remedy::Rewrite(rewrite) => request.rewrites.push(*rewrite),
                Remedy::Float16 => request.precision = Precision::Fp16,
                Remedy::KeepFp32(nodes) => request.keep_fp32.extend(nodes.iter().cloned()),
            }
        }
        request
    }

    /// The reference's request, the model's preflight under it, and the user's inputs bound for it.
    fn reference_inputs(&self) -> Result<(PlanRequest, Preflight, engine::BoundForSession)> {
        let request = reference_of(&self.settings.request, self.settings);
        let preflight = Preflight::read(self.runtime, &self.settings.model, &request, Scope::Alone)?;
        let inputs = preflight.bind(self.runtime, &self.settings.inputs, &self.settings.load, false)?;
        Ok((request, preflight, inputs))
    }

    /// The graph with what the remedies that read the reference's run need, read with its inputs
    /// bound once: the shapes ONNX Runtime infers (for the rules that read shapes; a model that
    /// declares none of its tensors' shapes would fit none of them) and the conditions of its
    /// `If` nodes (for `--inline-if`). As it is for a decoder (its remedies read neither); what
    /// cannot be read is said, and those remedies see the model's own.
    pub(super) fn with_what_the_reference_reads(&self, graph: Graph) -> Graph {
        if self.settings.decoder {
            return graph;
        }
        let warn = |what: &str, e: &anyhow::Error, so: &str| {
            if !self.settings.quiet {
                crate::errln!("dmlrun: warning: fix: {what} could not be read ({}); {so}", crate::exit::one_line(e));
            }
        };
        const SHAPES_NOT_READ: &str = "the remedies that read shapes see the model's own";
        const CONDITIONS_NOT_READ: &str = "--inline-if is not offered";
        let (request, preflight, inputs) = match self.reference_inputs() {
            Ok(bound) => bound,
            Err(e) => {
                warn("the reference's inputs", &e, &format!("{SHAPES_NOT_READ}, and {CONDITIONS_NOT_READ}"));
                return graph;
            }
        };
        let model = &self.settings.model;
        let graph =
            match engine::inferred_shapes(self.runtime, &graph, model, preflight.info(), &request, &inputs.prepared) {
                Ok(shapes) => graph.with_inferred(shapes),
                Err(e) => {
                    warn("the shapes ONNX Runtime infers", &e, SHAPES_NOT_READ);
                    graph
                }
            };
        if graph.if_conditions().is_empty() {
            return graph;
        }
        match engine::decided_conditions(self.runtime, &graph, &request, &inputs.prepared) {
            Ok(decided) => graph.with_decided(decided),
            Err(e) => {
                warn("the conditions of the model's If nodes", &e, CONDITIONS_NOT_READ);
                graph
            }
        }
    }

    /// The nodes (by name) one of whose float inputs or outputs leaves float16's range (65504) in
    /// the reference's float32 run of the original: in float16 they overflow to infinity.
    pub(super) fn beyond_float16(&self, graph: &Graph) -> Result<Vec<String>> {
        const FLOAT16_MAX: f64 = 65504.0;
        let (request, _, inputs) = self.reference_inputs()?;
        let run = engine::diagnose::reference_run(self.runtime, graph, &request, inputs)?;
        let beyond: std::collections::HashSet<String> = run
            .values
            .iter()
            .filter_map(|(name, value)| match value {
                crate::tensor::HostValue::Tensor(t) if t.dtype.is_float() => Some((name, t.to_f64()?)),
                _ => None,
            })
            .filter(|(_, values)| values.iter().any(|v| v.is_finite() && v.abs() > FLOAT16_MAX))
            .map(|(name, _)| name.clone())
            .collect();
        Ok(graph
            .nodes()
            .iter()
            .filter(|n| !n.name.is_empty())
            .filter(|n| n.inputs.iter().chain(&n.outputs).any(|t| beyond.contains(t)))
            .map(|n| n.name.clone())
            .collect())
    }

    /// The reference's run in this process.
    fn reference_here(&self) -> Tried {
        let started = Instant::now();
        let reference = reference_of(&self.settings.request, self.settings);
        let (outcome, tokens) = match self.settings.decoder {
            true => match engine::greedy_tokens(self.runtime, &self.settings.model, &reference, None) {
                Ok(run) => (AttemptOutcome::Passes, Some(run.tokens)),
                Err(e) => (AttemptOutcome::Fails(crate::exit::one_line(&e)), None),
            },
            false => match run_once(self.runtime, self.settings, &reference, None) {
                Ok(_) => (AttemptOutcome::Passes, None),
                Err(e) => (AttemptOutcome::Fails(crate::exit::one_line(&e)), None),
            },
        };
        let attempt = Attempt {
            remedies: Vec::new(),
            outcome,
            max_abs_diff: None,
            seconds: started.elapsed().as_secs_f64(),
            note: None,
        };
        Tried { attempt, model: None, tokens, overflowed: false }
    }

    /// `dmlrun reduce` on the model as the user gave it, in a child held to one attempt's time
    /// limit in all: the node its failure is pinned on, what got the smallest model through, and
    /// that model, written to `folder`.
    pub(super) fn locate(&self, folder: &Path) -> Located {
        let json = self.staging.join("reduce.json");
        let mut extra: Vec<OsString> =
            vec!["-q".into(), "-o".into(), folder.as_os_str().to_owned(), "--json".into(), json.clone().into()];
        if let Some(limit) = self.placement.limit {
            let limit: OsString = humantime::format_duration(limit).to_string().into();
            extra.extend(["--candidate-timeout".into(), limit.clone(), "--time-limit".into(), limit]);
        }
        let args = reduce_args(&crate::isolation::child_args(&crate::report::export::report_flags(), &[]), &extra);
        if !self.settings.quiet {
            crate::errln!("fix: dmlrun reduce finds where it fails");
        }
        crate::stage::step("the reduction");
        let ran = std::env::current_exe().context("finding dmlrun's own executable").and_then(|exe| {
            std::process::Command::new(exe)
                .args(&args)
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .output()
                .context("running dmlrun reduce")
        });
        let failed = |why: String| Located { error: Some(why), ..Located::default() };
        let output = match ran {
            Ok(output) => output,
            Err(e) => return failed(crate::exit::one_line(&e)),
        };
        let said = String::from_utf8_lossy(&output.stderr);
        let error_line = said.lines().rev().find(|l| l.starts_with("dmlrun: error:")).map(str::to_string);
        match std::fs::read_to_string(&json).map(|t| serde_json::from_str::<serde_json::Value>(&t)) {
            Ok(Ok(reduced)) => Located::from_reduce(&reduced, folder, output.status.success()),
            _ => failed(error_line.unwrap_or_else(|| {
                format!("dmlrun reduce ended ({}) without its report", crate::isolation::describe_exit(&output.status))
            })),
        }
    }
}

/// One whole run's result against the reference.
pub(super) struct Ran {
    pub(super) mismatches: Vec<crate::compare::Mismatch>,
    pub(super) max_abs_diff: Option<f64>,
    /// Where it passed against the reference: the model the session ran, as `--save-model`
    /// writes it, or why it cannot be written.
    pub(super) model: Option<std::result::Result<Vec<u8>, String>>,
    /// Where DirectML was asked for: the nodes doing the model's work that ran elsewhere, said.
    pub(super) off_directml: Option<String>,
}

/// Runs the model once with `request`, against the reference on the original where `tolerance`
/// is given.
pub(super) fn run_once(
    runtime: &Runtime,
    settings: &FixSettings,
    request: &PlanRequest,
    tolerance: Option<Tolerance>,
) -> Result<Ran> {
    let preflight = Preflight::read(runtime, &settings.model, request, Scope::Alone)?;
    let reference = tolerance.map(|t| (reference_of(&preflight.request, settings), t));
    let measure = engine::MeasureRequest {
        preflight: &preflight,
        label: None,
        print_plan: false,
        inputs: &settings.inputs,
        load: &settings.load,
        warmup: 0,
        budget: engine::RunBudget { max: 1, time_box: None, min: 0 },
        reference,
        time_reference: false,
        time_float32: false,
        rounds: 1,
        paired: None,
        // The reference check (no tolerance) ships nothing.
        keep_made_model: tolerance.is_some(),
    };
    let measured = engine::measure(runtime, &measure, &indicatif::ProgressBar::hidden())?;
    let device = &measured.model.device;
    let off_directml = device.off_directml.iter().any(|n| n.works()).then(|| device.off_directml_line()).flatten();
    let (mismatches, max_abs_diff) = match measured.comparison {
        Some(c) => {
            let largest =
                c.differences.iter().map(|d| d.max_abs).fold(None, |m: Option<f64>, d| Some(m.map_or(d, |m| m.max(d))));
            (c.mismatches, largest)
        }
        None => (Vec::new(), None),
    };
    // The model to ship, made only where the attempt passed: re-encoding a large model for an
    // attempt that differs would be work thrown away.
    let model = (tolerance.is_some() && mismatches.is_empty()).then(|| {
        engine::saved_model(
            &settings.model,
            &preflight,
            measured.made_model.as_deref(),
            measured.rewrite.as_ref(),
            measured.precision.as_ref(),
            settings.save_fixed_dims,
        )
        .map_err(|e| crate::exit::one_line(&e))
    });
    Ok(Ran { mismatches, max_abs_diff, model, off_directml })
}

/// The reference runs the model as ONNX Runtime does by default: the options under test
/// (`--session-config`, `--ep-option`) are the EP under test's alone, as in reduce.
pub(super) fn reference_of(request: &PlanRequest, settings: &FixSettings) -> PlanRequest {
    PlanRequest {
        session_config: Vec::new(),
        ep_options: Vec::new(),
        ..request.reference(settings.compare_ep.clone(), None)
    }
}
