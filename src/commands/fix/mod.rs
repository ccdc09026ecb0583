//! `dmlrun fix MODEL -o OUT`: the model run whole on the EP under test against the reference on
//! the original; where it fails or differs, the remedies that fit it tried in a fixed order, each
//! attempt a whole run against the reference; the first set that passes pruned to the fewest
//! that still pass, and written as `--save-model` writes a model, with the record of every attempt.

mod decoder;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use crate::cli::FixArgs;
use crate::compare::Tolerance;
use crate::exit::ExitStatus;
use crate::graph::{Graph, Rewrite};
use crate::inputs::LoadOptions;
use crate::isolation::{ChildEnd, ChildFiles, Placement, PlacementRequest};
use crate::report::fix::{self as report, Attempt, AttemptOutcome, FixReport, Located, FIX_SCHEMA};
use crate::runtime::engine::{self, Preflight, Scope};
use crate::runtime::plan::{PlanRequest, Precision};
use crate::runtime::Runtime;
use crate::settings;

/// One thing dmlrun knows to do to a model an execution provider rejects or gets wrong.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Remedy {
    Rewrite(Rewrite),
    /// Float32 converted to float16 (with the float32 run typing the conversion), for a float32
    /// kernel an EP cannot compile.
    Float16,
    /// With float16: these nodes left in float32, each one whose input or output leaves
    /// float16's range on the reference.
    KeepFp32(Vec<String>),
}

impl Remedy {
    fn flag(&self) -> String {
        self.args().join(" ")
    }

    /// The command-line arguments that ask for it.
    fn args(&self) -> Vec<String> {
        match self {
            Remedy::Rewrite(Rewrite::Decompose(op)) => vec!["--decompose".into(), op.to_string()],
            Remedy::Rewrite(Rewrite::GemmZeroBias) => vec!["--gemm-zero-bias".into()],
            Remedy::Rewrite(Rewrite::ReshapeAllowzeroOff) => vec!["--reshape-allowzero-off".into()],
            Remedy::Float16 => vec!["--precision".into(), "fp16".into()],
            Remedy::KeepFp32(nodes) => nodes.iter().flat_map(|n| ["--keep-fp32".to_string(), n.clone()]).collect(),
        }
    }
}

/// What a child is asked to run (`--attempt`, as JSON): the reference's run of the original, or
/// the model with `remedies`; a decoder's attempt is held to the reference's tokens.
#[derive(Debug, Default, Serialize, Deserialize)]
struct AttemptSpec {
    #[serde(default)]
    reference: bool,
    #[serde(default)]
    remedies: Vec<Remedy>,
    #[serde(default)]
    reference_tokens: Option<Vec<i64>>,
}

/// How long an attempt may take by default, as a bench model: a large model's float16
/// conversion and DirectML's compilation of it take minutes.
const ATTEMPT_LIMIT: Duration = Duration::from_secs(600);

/// One attempt's record, and the model to write where it passed (or why there is none): a file
/// in the staging folder, written by whichever process ran the attempt.
#[derive(Serialize, Deserialize)]
struct Tried {
    attempt: Attempt,
    model: Option<std::result::Result<PathBuf, String>>,
    /// A decoder's greedy tokens (the reference's run, which later attempts are held to).
    #[serde(default)]
    tokens: Option<Vec<i64>>,
    /// An output is NaN or infinite where the reference's is finite (or the other way round): in
    /// float16, a value that left its range.
    #[serde(default)]
    overflowed: bool,
}

impl Tried {
    fn passes(&self) -> bool {
        matches!(self.attempt.outcome, AttemptOutcome::Passes)
    }
}

/// What every attempt shares.
struct Attempts<'a> {
    runtime: &'a Runtime,
    args: &'a FixArgs,
    base: &'a PlanRequest,
    load: &'a LoadOptions,
    tolerance: Tolerance,
    placement: Placement,
    /// Where attempts write their models and children their records.
    staging: &'a Path,
    /// Children started so far, to name each one's files.
    children: std::cell::Cell<usize>,
    /// An onnxruntime-genai folder: attempts generate, and are held to the reference's tokens.
    decoder: bool,
    reference_tokens: std::cell::RefCell<Option<Vec<i64>>>,
}

pub fn execute(args: &FixArgs) -> Result<ExitStatus> {
    let model_path = args.model.as_path();
    let decoder = model_path.is_dir();
    if decoder && !model_path.join("genai_config.json").is_file() {
        bail!(
            "model {}: is a folder without genai_config.json; dmlrun fix takes a model file or an onnxruntime-genai folder",
            model_path.display()
        );
    }
    if !decoder && !model_path.is_file() {
        bail!("model {}: no such file", model_path.display());
    }
    if let Some(attempt) = &args.attempt {
        return attempt_as_child(args, attempt, decoder);
    }
    if decoder {
        decoder::check_output_folder(&args.output)?;
    } else {
        crate::report::export::check_writable(&args.output)
            .with_context(|| format!("--output {}", args.output.display()))?;
    }
    if let Some(path) = args.json.as_deref().filter(|p| *p != Path::new("-")) {
        crate::report::export::check_writable(path).with_context(|| format!("--json {}", path.display()))?;
    }
    let reduced_to = reduced_folder(&args.output);
    if crate::fsutil::occupied(&reduced_to) {
        bail!(
            "--output {}: {} (where the smallest failing model goes if nothing fixes it) exists and is not an empty folder; remove it or name another --output",
            args.output.display(),
            reduced_to.display()
        );
    }
    let runtime = Runtime::load(args.ort.ort_lib.as_deref(), args.ort.ort_log_level, &args.ort.ep_libraries)?;
    let request = settings::plan_request(&args.session, args.ort.ort_log_level)?;
    engine::check_request(&runtime, &request)?;
    let placement_directml = engine::plans_directml(&runtime, &request);
    let placement = PlacementRequest {
        isolation: args.isolation.isolation,
        timeout: args.isolation.timeout,
        default_limit: ATTEMPT_LIMIT,
        directml: placement_directml,
        print_plan: false,
    }
    .resolve()?;
    let load = settings::load_options(&args.input, &args.preprocess);
    let tolerance = args.reference.tolerance();
    if decoder && request.precision != Precision::Fp32 {
        bail!("--precision fp16: a decoder comes in float16 from its builder (onnxruntime-genai's -p fp16); dmlrun generate does not convert one");
    }
    let graph = match decoder {
        true => Graph::read(&decoder::decoder_file(model_path)?)?,
        false => Graph::read(model_path)?,
    };
    let staging = staging_folder(&args.output)?;
    let attempts = Attempts {
        runtime: &runtime,
        args,
        base: &request,
        load: &load,
        tolerance,
        placement,
        staging: staging.path(),
        children: Default::default(),
        decoder,
        reference_tokens: Default::default(),
    };

    // The reference must run the original: its outputs are what every attempt is held to.
    crate::stage::step("the reference run");
    let reference = attempts.reference();
    *attempts.reference_tokens.borrow_mut() = reference.tokens;
    if let AttemptOutcome::Fails(why) = reference.attempt.outcome {
        bail!(
            "model {}: the reference ({}) cannot run it either, so there is nothing {} could be fixed against: {why}",
            model_path.display(),
            args.reference.compare_ep,
            args.session.ep,
        );
    }

    // The remedies the user gave stay in every attempt; those that fit the model are tried after.
    let fit: Vec<Remedy> = graph
        .applicable_rewrites()
        .into_iter()
        .filter(|r| !request.rewrites.contains(r))
        .map(Remedy::Rewrite)
        .chain((request.precision == Precision::Fp32 && !decoder).then_some(Remedy::Float16))
        .collect();
    let mut record = Vec::new();
    let mut note = |tried: &Tried| {
        if !args.quiet {
            crate::errln!("fix: {}", tried.attempt.describe());
        }
        record.push(tried.attempt.clone());
    };

    // The model as it is; where it fails, reduce finds the node first, and the remedies that got
    // its smallest model through are tried first; then the others, in the fixed order, each
    // added to those before it, each attempt the whole model.
    let mut applied: Vec<Remedy> = Vec::new();
    let mut tried = attempts.run(&applied);
    note(&tried);
    let reduced_here = staging.path().join("reduced");
    let located = match tried.passes() {
        true => None,
        false if decoder => Some(Located {
            error: Some("a decoder is not reduced: reduce takes one model and its inputs, not a generation".into()),
            ..Located::default()
        }),
        false => Some(attempts.locate(&reduced_here)),
    };
    if let Some(node) = located.as_ref().and_then(|l| l.node.as_deref()) {
        if !args.quiet {
            let op = located.as_ref().and_then(|l| l.op_type.as_deref()).unwrap_or("?");
            crate::errln!("fix: reduce pins it on node '{node}' ({op})");
        }
    }
    let on_the_node = |r: &Remedy| located.as_ref().is_some_and(|l| l.passing_on_minimal.contains(&r.flag()));
    let mut queue: std::collections::VecDeque<Remedy> =
        fit.iter().filter(|r| on_the_node(r)).chain(fit.iter().filter(|r| !on_the_node(r))).cloned().collect();
    let mut range_checked = false;
    let mut passing = loop {
        if tried.passes() {
            break Some((applied.clone(), tried));
        }
        // Float16 ran and an output overflowed: the nodes whose values leave its range stay in
        // float32, tried next (once). A difference of rounding is not that, and no node kept in
        // float32 for a range would mend it.
        let float16 = request.precision == Precision::Fp16 || applied.contains(&Remedy::Float16);
        if float16 && !range_checked && tried.overflowed {
            range_checked = true;
            match attempts.beyond_float16(&graph) {
                Ok(nodes) if !nodes.is_empty() => queue.push_front(Remedy::KeepFp32(nodes)),
                Ok(_) => {}
                Err(e) => {
                    crate::errln!("warning: fix: the values beyond float16's range: {}", crate::exit::one_line(&e))
                }
            }
        }
        let Some(remedy) = queue.pop_front().filter(|_| !crate::interrupt::interrupted()) else { break None };
        applied.push(remedy);
        tried = attempts.run(&applied);
        note(&tried);
    };
    // The fewest that still pass: each remedy but the last left out in turn, earliest first
    // (without the last, the attempt before it ran already, and failed).
    if let Some((mut kept, mut best)) = passing.take() {
        let last = kept.last().cloned();
        for remedy in kept.clone().into_iter().filter(|r| Some(r) != last.as_ref()) {
            if crate::interrupt::interrupted() {
                break;
            }
            // Nodes kept in float32 mean nothing without float16.
            let without: Vec<Remedy> = kept
                .iter()
                .filter(|r| **r != remedy && !(remedy == Remedy::Float16 && matches!(r, Remedy::KeepFp32(_))))
                .cloned()
                .collect();
            let tried = attempts.run(&without);
            note(&tried);
            if tried.passes() {
                kept = without;
                best = tried;
            }
        }
        passing = Some((kept, best));
    }
    if crate::interrupt::interrupted() {
        bail!("interrupted after {} attempts; nothing written", record.len());
    }

    // Nothing made it pass: the smallest model that shows the failure goes beside the output.
    let mut located = located;
    if let Some(found) = located.as_mut().filter(|f| f.minimal.is_some()) {
        found.minimal = match passing {
            Some(_) => None,
            None => {
                std::fs::rename(&reduced_here, &reduced_to)
                    .with_context(|| format!("moving the smallest failing model to {}", reduced_to.display()))?;
                Some(reduced_to.clone())
            }
        };
    }

    let write = |tried: &Tried, kept: &[Remedy]| -> Result<PathBuf> {
        if decoder {
            decoder::write_fixed_folder(&runtime, model_path, &attempts.request_with(kept), &args.output)?;
            return Ok(args.output.clone());
        }
        let made = match &tried.model {
            Some(Ok(path)) => path,
            Some(Err(why)) => bail!("--output {}: {why}", args.output.display()),
            None => bail!("--output {}: no model to write", args.output.display()),
        };
        let bytes = std::fs::read(made).with_context(|| format!("reading {}", made.display()))?;
        crate::formats::onnx_proto::write_model(&args.output, &bytes)
            .with_context(|| format!("--output {}", args.output.display()))?;
        Ok(args.output.clone())
    };
    let (verdict, remedies, written) = match &passing {
        Some((kept, tried)) if kept.is_empty() => {
            ("passes", Vec::new(), if args.write_unchanged { Some(write(tried, kept)?) } else { None })
        }
        Some((kept, tried)) => ("fixed", kept.iter().map(|r| r.flag()).collect(), Some(write(tried, kept)?)),
        None => ("not_fixed", Vec::new(), None),
    };
    let report = FixReport {
        schema: FIX_SCHEMA,
        dmlrun_version: env!("CARGO_PKG_VERSION"),
        model: args.model.clone(),
        // `auto` said as what it chose.
        execution_provider: match (&args.session.ep, placement_directml) {
            (crate::runtime::plan::EpRequest::Auto, true) => "dml".to_string(),
            (crate::runtime::plan::EpRequest::Auto, false) => "cpu".to_string(),
            (ep, _) => ep.to_string(),
        },
        reference: args.reference.compare_ep.to_string(),
        tolerance,
        time_limit_s: placement.limit.map(|l| l.as_secs_f64()),
        remedies_that_fit: fit.iter().map(|r| r.flag()).collect(),
        attempts: record,
        verdict,
        remedies,
        written,
        located,
    };
    let json_on_stdout = match &args.json {
        Some(path) => crate::report::write_json(path, &report, "--json")?,
        None => false,
    };
    let human = report::human(&report);
    if json_on_stdout {
        crate::err!("{human}");
    } else {
        crate::out!("{human}");
    }
    Ok(if verdict == "not_fixed" { ExitStatus::Failed } else { ExitStatus::Success })
}

/// `bert-dml.onnx` -> `bert-dml-reduced/` beside it.
fn reduced_folder(output: &Path) -> PathBuf {
    let stem = output.file_stem().map_or_else(|| "model".into(), |s| s.to_string_lossy().into_owned());
    output.with_file_name(format!("{stem}-reduced"))
}

/// A temporary folder beside the output (the model to ship is moved from the same disk), gone
/// with everything in it when fix ends.
fn staging_folder(output: &Path) -> Result<tempfile::TempDir> {
    crate::fsutil::temp_dir_beside(output, ".dmlrun-fix-").with_context(|| format!("--output {}", output.display()))
}

/// A child's side: one attempt (or the reference's run) here, its record appended to
/// --child-report as one JSON line, its model (where it passed) beside that file.
fn attempt_as_child(args: &FixArgs, attempt: &str, decoder: bool) -> Result<ExitStatus> {
    let spec: AttemptSpec =
        serde_json::from_str(attempt).with_context(|| format!("--attempt {attempt}: not an attempt"))?;
    let report = args.isolation.child_report.as_deref().context("--attempt needs --child-report")?;
    if let Some(progress) = &args.isolation.progress {
        crate::stage::report_to(progress);
    }
    crate::stage::item(if spec.reference { "the reference run" } else { "the attempt" });
    let runtime = Runtime::load(args.ort.ort_lib.as_deref(), args.ort.ort_log_level, &args.ort.ep_libraries)?;
    let request = settings::plan_request(&args.session, args.ort.ort_log_level)?;
    let load = settings::load_options(&args.input, &args.preprocess);
    let staging = report.parent().unwrap_or(Path::new("."));
    let attempts = Attempts {
        runtime: &runtime,
        args,
        base: &request,
        load: &load,
        tolerance: args.reference.tolerance(),
        placement: Placement::default(),
        staging,
        children: Default::default(),
        decoder,
        reference_tokens: std::cell::RefCell::new(spec.reference_tokens),
    };
    let tried = match spec.reference {
        true => attempts.reference(),
        false => attempts.run(&spec.remedies),
    };
    let mut line = serde_json::to_string(&tried).context("a fix attempt's record")?;
    line.push('\n');
    std::fs::write(report, line).with_context(|| format!("--child-report {}", report.display()))?;
    Ok(ExitStatus::Success)
}

impl Attempts<'_> {
    /// The whole model with `remedies` (beside the user's own flags) on the EP under test,
    /// against the reference on the original model.
    fn run(&self, remedies: &[Remedy]) -> Tried {
        if self.placement.in_children {
            let spec = AttemptSpec {
                reference: false,
                remedies: remedies.to_vec(),
                reference_tokens: self.reference_tokens.borrow().clone(),
            };
            let mut tried = self.in_child(&spec);
            tried.attempt.remedies = remedies.iter().map(|r| r.flag()).collect();
            return tried;
        }
        let started = Instant::now();
        let request = self.request_with(remedies);
        let flags = remedies.iter().map(|r| r.flag()).collect();
        if self.decoder {
            let reference = self.reference_tokens.borrow().clone().unwrap_or_default();
            let outcome = match decoder::greedy_tokens(self.runtime, &self.args.model, &request) {
                Ok(tokens) => decoder::judge(&tokens, &reference),
                Err(e) => AttemptOutcome::Fails(crate::exit::one_line(&e)),
            };
            let attempt =
                Attempt { remedies: flags, outcome, max_abs_diff: None, seconds: started.elapsed().as_secs_f64() };
            return Tried { attempt, model: None, tokens: None, overflowed: false };
        }
        let mut overflowed = false;
        let (outcome, max_abs_diff, model) =
            match run_once(self.runtime, self.args, &request, self.load, Some(self.tolerance)) {
                Ok(ran) => {
                    // NaN or infinity where the reference has a number.
                    overflowed = ran.mismatches.iter().any(crate::compare::Mismatch::non_finite);
                    match ran.mismatches.first() {
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
        let attempt = Attempt { remedies: flags, outcome, max_abs_diff, seconds: started.elapsed().as_secs_f64() };
        Tried { attempt, model, tokens: None, overflowed }
    }

    /// The user's request with `remedies` added.
    fn request_with(&self, remedies: &[Remedy]) -> PlanRequest {
        let mut request = self.base.clone();
        for remedy in remedies {
            match remedy {
                Remedy::Rewrite(rewrite) => request.rewrites.push(*rewrite),
                Remedy::Float16 => request.precision = Precision::Fp16,
                Remedy::KeepFp32(nodes) => request.keep_fp32.extend(nodes.iter().cloned()),
            }
        }
        request
    }

    /// The nodes (by name) one of whose float inputs or outputs leaves float16's range (65504) in
    /// the reference's float32 run of the original: in float16 they overflow to infinity.
    fn beyond_float16(&self, graph: &Graph) -> Result<Vec<String>> {
        const FLOAT16_MAX: f64 = 65504.0;
        let request = reference_of(self.base, self.args);
        let preflight = Preflight::read(self.runtime, &self.args.model, &request, Scope::Alone)?;
        let run = engine::diagnose::reference_run(
            self.runtime,
            &preflight,
            graph,
            &request,
            &self.args.input.inputs,
            self.load,
        )?;
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

    /// The original on the reference: `Passes` where it runs, `Fails` with why otherwise.
    fn reference(&self) -> Tried {
        if self.placement.in_children {
            return self.in_child(&AttemptSpec { reference: true, ..AttemptSpec::default() });
        }
        let started = Instant::now();
        let reference = reference_of(self.base, self.args);
        let (outcome, tokens) = match self.decoder {
            true => match decoder::greedy_tokens(self.runtime, &self.args.model, &reference) {
                Ok(tokens) => (AttemptOutcome::Passes, Some(tokens)),
                Err(e) => (AttemptOutcome::Fails(crate::exit::one_line(&e)), None),
            },
            false => match run_once(self.runtime, self.args, &reference, self.load, None) {
                Ok(_) => (AttemptOutcome::Passes, None),
                Err(e) => (AttemptOutcome::Fails(crate::exit::one_line(&e)), None),
            },
        };
        let attempt =
            Attempt { remedies: Vec::new(), outcome, max_abs_diff: None, seconds: started.elapsed().as_secs_f64() };
        Tried { attempt, model: None, tokens, overflowed: false }
    }

    /// Runs `attempt` in a child dmlrun held to the time limit; a child that hangs, crashes or
    /// is stopped is that attempt's failure.
    fn in_child(&self, spec: &AttemptSpec) -> Tried {
        let attempt = serde_json::to_string(spec).expect("an attempt serialises");
        let started = Instant::now();
        let n = self.children.get();
        self.children.set(n + 1);
        let files = ChildFiles {
            handoff: self.staging.join(format!("child-{n}.unused")),
            results: self.staging.join(format!("child-{n}.jsonl")),
            progress: self.staging.join(format!("child-{n}.progress")),
        };
        let extra: Vec<OsString> = vec![
            "--isolation".into(),
            "none".into(),
            "--attempt".into(),
            attempt.into(),
            "--child-report".into(),
            files.results.clone().into(),
            "--progress".into(),
            files.progress.clone().into(),
        ];
        let args = crate::isolation::child_args(&extra);
        let mut line = None;
        let end = crate::isolation::run_child(&args, &files, self.placement.limit, &mut |l| line = Some(l.to_string()));
        let failed = |why: String| Tried {
            attempt: Attempt {
                remedies: Vec::new(),
                outcome: AttemptOutcome::Fails(why),
                max_abs_diff: None,
                seconds: started.elapsed().as_secs_f64(),
            },
            model: None,
            tokens: None,
            overflowed: false,
        };
        match end {
            Err(e) => failed(crate::exit::one_line(&e)),
            Ok(ChildEnd::TimedOut(limit, stage)) => failed(crate::isolation::timed_out_reason(limit, &stage)),
            Ok(ChildEnd::Interrupted(_)) => failed("interrupted".into()),
            Ok(ChildEnd::Exited { how, .. }) => match line.map(|l| serde_json::from_str::<Tried>(&l)) {
                Some(Ok(tried)) => tried,
                Some(Err(e)) => failed(format!("the attempt's record: {e}")),
                None => failed(format!("the attempt's process ended ({how}) before saying how it went")),
            },
        }
    }

    /// `dmlrun reduce` on the model as the user gave it, in a child held to one attempt's time
    /// limit in all: the node its failure is pinned on, what got the smallest model through, and
    /// that model, written to `folder`.
    fn locate(&self, folder: &Path) -> Located {
        let json = self.staging.join("reduce.json");
        let mut extra: Vec<OsString> =
            vec!["-q".into(), "-o".into(), folder.as_os_str().to_owned(), "--json".into(), json.clone().into()];
        if let Some(limit) = self.placement.limit {
            let limit: OsString = humantime::format_duration(limit).to_string().into();
            extra.extend(["--candidate-timeout".into(), limit.clone(), "--time-limit".into(), limit]);
        }
        let args = reduce_args(&crate::isolation::child_args(&[]), &extra);
        if !self.args.quiet {
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

/// A path not taken yet: `attempt-7.onnx`, else `attempt-7-2.onnx`, ...
fn unique(path: PathBuf) -> PathBuf {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    (1..)
        .map(|k| if k == 1 { path.clone() } else { path.with_file_name(format!("{stem}-{k}.onnx")) })
        .find(|p| !p.exists())
        .expect("an unbounded range")
}

/// This run's own arguments made `dmlrun reduce`'s: the command word changed, fix's own flags
/// (its output and --write-unchanged) dropped, `extra` added. The flags they share (inputs,
/// shapes, EP and session, reference and tolerance, runtime) pass as they are.
fn reduce_args(own: &[OsString], extra: &[OsString]) -> Vec<OsString> {
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

/// One whole run's result against the reference.
struct Ran {
    mismatches: Vec<crate::compare::Mismatch>,
    max_abs_diff: Option<f64>,
    /// Where it passed against the reference: the model the session ran, as `--save-model`
    /// writes it, or why it cannot be written.
    model: Option<std::result::Result<Vec<u8>, String>>,
}

/// Runs the model once with `request`, against the reference on the original where `tolerance`
/// is given.
fn run_once(
    runtime: &Runtime,
    args: &FixArgs,
    request: &PlanRequest,
    load: &LoadOptions,
    tolerance: Option<Tolerance>,
) -> Result<Ran> {
    let preflight = Preflight::read(runtime, &args.model, request, Scope::Alone)?;
    let reference = tolerance.map(|t| (reference_of(&preflight.request, args), t));
    let measure = engine::MeasureRequest {
        preflight: &preflight,
        label: None,
        print_plan: false,
        inputs: &args.input.inputs,
        load,
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
            &args.model,
            &preflight,
            measured.made_model.as_deref(),
            measured.rewrite.as_ref(),
            measured.precision.as_ref(),
            args.save_fixed_dims,
        )
        .map_err(|e| crate::exit::one_line(&e))
    });
    Ok(Ran { mismatches, max_abs_diff, model })
}

/// The reference runs the model as ONNX Runtime does by default: the options under test
/// (`--session-config`, `--ep-option`) are the EP under test's alone, as in reduce.
fn reference_of(request: &PlanRequest, args: &FixArgs) -> PlanRequest {
    PlanRequest {
        session_config: Vec::new(),
        ep_options: Vec::new(),
        ..request.reference(args.reference.compare_ep.clone(), None)
    }
}
